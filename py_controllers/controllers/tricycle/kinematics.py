"""Tricycle kinematics (no ROS): one steered and driven wheel at `wheelbase` from the rear
axle, as upstream's tricycle_controller (naming of Lima's kinematics notes: Ws the
traction wheel's angular speed, alpha the steering angle).
"""

from __future__ import annotations

import math


def twist_to_ackermann(
    vx: float, wz: float, wheelbase: float, wheel_radius: float
) -> tuple[float, float]:
    """(alpha rad, Ws rad/s) for a body twist. Turning on the spot (vx 0, wz not 0) steers
    to +-pi/2; otherwise alpha = atan(wz L / vx) (0 when either is 0)."""
    if vx == 0.0 and wz != 0.0:
        alpha = math.pi / 2 if wz > 0.0 else -math.pi / 2
        return alpha, abs(wz) * wheelbase / wheel_radius
    alpha = 0.0 if wz == 0.0 or vx == 0.0 else math.atan(wz * wheelbase / vx)
    return alpha, vx / (wheel_radius * math.cos(alpha))


def ackermann_to_twist(
    ws: float, alpha: float, wheelbase: float, wheel_radius: float
) -> tuple[float, float]:
    """Body twist (vx m/s, wz rad/s) of the base for traction speed Ws and steering alpha."""
    vs = ws * wheel_radius
    return vs * math.cos(alpha), vs * math.sin(alpha) / wheelbase


def steering_speed_scale(alpha_delta: float) -> float:
    """Factor on the traction speed while the steering is `alpha_delta` rad from its target
    (upstream: 1 below pi/6, 0.01 beyond pi/2, cos in between)."""
    if alpha_delta < math.pi / 6:
        return 1.0
    if alpha_delta > math.pi / 2:
        return 0.01
    return math.cos(alpha_delta)
