"""Steering kinematics (no ROS): the formulas of upstream's steering_kinematics, one job each.

Conventions as upstream: a positive steering angle turns the robot towards +z (REP-103); with
two wheels on an axle the order is (right, left); traction speeds are wheel angular
velocities (rad/s), steering angles are in rad.
"""

from __future__ import annotations

import math
from enum import Enum

#: |value| below this counts as zero (upstream's is_close_to_zero)
CLOSE_TO_ZERO = 1e-6
#: reduce_wheel_speed_until_steering_reached: full speed below this steering error (rad)
MIN_PHI_DELTA = math.pi / 6.0
#: ... and the speed stops shrinking beyond this error (rad), just short of pi/2
MAX_PHI_DELTA = 1.5608


class Configuration(Enum):
    """The drive layouts the steering controllers library knows (upstream's *_CONFIG)."""

    BICYCLE = 0  # one traction wheel, one steering joint
    TRICYCLE = 1  # two traction wheels on the rear axle, one steering joint
    ACKERMANN = 2  # two traction wheels, two steering joints


def is_close_to_zero(value: float) -> bool:
    return abs(value) < CLOSE_TO_ZERO


def steering_angle(linear: float, angular: float, wheelbase: float) -> float:
    """The virtual middle steering angle giving `angular` at `linear`; 0 when undefined
    (both zero). Reversing (linear < 0) steers the other way, as upstream."""
    if linear == 0.0:
        # what C++'s atan(x / +-0.0) gives: +-pi/2 for x != 0, and 0 for 0/0 (NaN there)
        numerator = angular * wheelbase
        if numerator == 0.0:
            return 0.0
        return math.copysign(math.pi / 2.0, numerator) * math.copysign(1.0, linear)
    phi = math.atan(angular * wheelbase / linear)
    return phi if math.isfinite(phi) else 0.0


def speed_scale(measured_steering: float, target_steering: float) -> float:
    """Factor (0, 1] for the traction speed while the steering is still far from its target."""
    delta = abs(measured_steering - target_steering)
    if delta < MIN_PHI_DELTA:
        return 1.0
    return math.cos(min(delta, MAX_PHI_DELTA)) / math.cos(MIN_PHI_DELTA)


def axle_wheel_speeds(
    middle_speed: float, steering: float, wheelbase: float, track: float
) -> tuple[float, float]:
    """(right, left) wheel speeds of a driven axle whose middle turns at `middle_speed` on
    the circle set by the middle steering angle `steering`."""
    if is_close_to_zero(steering):
        return middle_speed, middle_speed
    radius = wheelbase / math.tan(steering)
    return (
        middle_speed * (radius + track * 0.5) / radius,
        middle_speed * (radius - track * 0.5) / radius,
    )


def ackermann_angles(steering: float, wheelbase: float, track: float) -> tuple[float, float]:
    """(right, left) wheel steering angles for the middle steering angle `steering`, the
    steering joints `track` apart."""
    numerator = 2.0 * wheelbase * math.sin(steering)
    first = 2.0 * wheelbase * math.cos(steering)
    second = track * math.sin(steering)
    return math.atan2(numerator, first + second), math.atan2(numerator, first - second)


def middle_steering_from_pair(right: float, left: float, wheelbase: float, track: float) -> float:
    """The middle steering angle from measured (right, left) wheel angles: each wheel's
    estimate, averaged (the pair over-determines it)."""
    half = track / 2.0
    right_est = math.atan(wheelbase * math.tan(right) / (wheelbase - half * math.tan(right)))
    left_est = math.atan(wheelbase * math.tan(left) / (wheelbase + half * math.tan(left)))
    return (right_est + left_est) * 0.5


def axle_linear_speed(
    right_speed: float, left_speed: float, steering: float, wheelbase: float, track: float
) -> float:
    """Speed of the middle of a driven axle (m/s) from its (right, left) wheel rim speeds
    (m/s); the average of both wheels' estimates."""
    tan = math.tan(steering)
    if tan == 0.0:
        return (right_speed + left_speed) * 0.5
    radius = wheelbase / tan
    right = right_speed * radius / (radius + track * 0.5)
    left = left_speed * radius / (radius - track * 0.5)
    return (right + left) * 0.5
