"""The bases a steering pad drives: every controller type that takes a TwistStamped, the
topic it reads it on, whether it moves sideways, and which of its parameters limit each
axis. Pure (no rclpy).

The limits are the controller's own where it has them: a diff drive's and a mecanum
drive's `<axis>.max_velocity`; a tricycle's `traction.max_velocity` is rad/s of its wheel,
so times `wheel_radius`. The omni wheel drive and the steering controllers have none: the
pad's own range is theirs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from py_controllers.dashboard.model import DIFF_DRIVE_TYPE, Velocity, speed_limit

Product = tuple[str, ...]
"""Parameters whose product is one axis's limit; () for none."""


@dataclass(frozen=True)
class Base:
    """How to steer one controller type."""

    topic: str  # relative to the controller node
    holonomic: bool  # takes linear.y (sideways)
    odometry: str = 'odom'  # nav_msgs/Odometry, relative to the controller node
    linear: Product = ()
    lateral: Product = ()
    angular: Product = ()

    @property
    def limit_parameters(self) -> list[str]:
        """Every parameter to read for the limits."""
        return sorted({*self.linear, *self.lateral, *self.angular})


_STEERING = Base('reference', holonomic=False, odometry='odometry')
BASES: dict[str, Base] = {
    DIFF_DRIVE_TYPE: Base(
        'cmd_vel',
        holonomic=False,
        linear=('linear.x.max_velocity',),
        angular=('angular.z.max_velocity',),
    ),
    'tricycle_controller/TricycleController': Base(
        'cmd_vel', holonomic=False, linear=('traction.max_velocity', 'wheel_radius')
    ),
    'omni_wheel_drive_controller/OmniWheelDriveController': Base('cmd_vel', holonomic=True),
    'mecanum_drive_controller/MecanumDriveController': Base(
        'reference',
        holonomic=True,
        odometry='odometry',
        linear=('linear.x.max_velocity',),
        lateral=('linear.y.max_velocity',),
        angular=('angular.z.max_velocity',),
    ),
    'ackermann_steering_controller/AckermannSteeringController': _STEERING,
    'bicycle_steering_controller/BicycleSteeringController': _STEERING,
    'tricycle_steering_controller/TricycleSteeringController': _STEERING,
}
"""Controller types a steering pad drives."""


def _product(names: Product, values: Mapping[str, object]) -> float | None:
    """The product of the named values; None when there are none or one is not a finite
    positive number (NaN means unlimited upstream)."""
    if not names:
        return None
    out = 1.0
    for name in names:
        value = values.get(name)
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0.0):
            return None
        out *= float(value)
    return out


def pad_limits(
    base: Base, values: Mapping[str, object], max_linear: float, max_angular: float
) -> Velocity:
    """The pad's range (`max_linear`, `max_angular`) narrowed to the controller's own limits
    in `values` (parameter -> value); no sideways speed for a base that cannot take one."""
    lateral = speed_limit(max_linear, _product(base.lateral, values)) if base.holonomic else 0.0
    return Velocity(
        linear=speed_limit(max_linear, _product(base.linear, values)),
        lateral=lateral,
        angular=speed_limit(max_angular, _product(base.angular, values)),
    )
