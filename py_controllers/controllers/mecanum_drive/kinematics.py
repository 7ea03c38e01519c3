"""Mecanum base kinematics and odometry (no ROS), with upstream's conventions.

Wheels in upstream's order: front left, front right, rear right, rear left. `k` is
`sum_of_robot_center_projection_on_X_Y_axis` (lx + ly), `r` the wheels' radius. The body
twist is given in the base frame; `base_frame_offset` (x, y, theta) places the base frame
relative to the robot's centre, where the wheel equations hold:

    front_left  = (vx - vy - k wz) / r      front_right = (vx + vy + k wz) / r
    rear_right  = (vx - vy + k wz) / r      rear_left   = (vx + vy - k wz) / r

(vx, vy: the centre's velocity). As upstream, odometry reports the raw twist (no rolling
mean) and integrates with the heading after the step (Euler).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from py_controllers.controllers.diff_drive.odometry import HolonomicOdometryState

_MIN_DT_S = 0.0001  # upstream: "interval too small to integrate with"


@dataclass(frozen=True)
class MecanumGeometry:
    """Wheel radius r, k = lx + ly, and the base frame's offset from the robot's centre."""

    wheels_radius: float
    sum_of_robot_center_projection_on_x_y_axis: float
    base_frame_offset: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def __post_init__(self) -> None:
        if not self.wheels_radius > 0.0:
            raise ValueError(f'wheels_radius must be > 0, got {self.wheels_radius}')
        if not self.sum_of_robot_center_projection_on_x_y_axis > 0.0:
            raise ValueError(
                'sum_of_robot_center_projection_on_X_Y_axis must be > 0, got '
                f'{self.sum_of_robot_center_projection_on_x_y_axis}'
            )


def inverse(
    g: MecanumGeometry, vx: float, vy: float, wz: float
) -> tuple[float, float, float, float]:
    """Wheel velocities (front left, front right, rear right, rear left), rad/s, for a body
    twist in the base frame (m/s, m/s, rad/s)."""
    ox, oy, theta = g.base_frame_offset
    c, s = math.cos(theta), math.sin(theta)
    cx = c * vx - s * vy + oy * wz
    cy = s * vx + c * vy - ox * wz
    k, r = g.sum_of_robot_center_projection_on_x_y_axis, g.wheels_radius
    return (
        (cx - cy - k * wz) / r,
        (cx + cy + k * wz) / r,
        (cx - cy + k * wz) / r,
        (cx + cy - k * wz) / r,
    )


def forward(
    g: MecanumGeometry, front_left: float, front_right: float, rear_right: float, rear_left: float
) -> tuple[float, float, float]:
    """Body twist in the base frame (vx, vy, wz) from wheel velocities (rad/s)."""
    r, k = g.wheels_radius, g.sum_of_robot_center_projection_on_x_y_axis
    cvx = 0.25 * r * (front_left + rear_left + rear_right + front_right)
    cvy = 0.25 * r * (-front_left + rear_left - rear_right + front_right)
    wz = 0.25 * r / k * (-front_left - rear_left + rear_right + front_right)
    ox, oy, theta = g.base_frame_offset
    c, s = math.cos(-theta), math.sin(-theta)
    # the centre's velocity and the offset (centre -> base) in base-frame axes
    vx, vy = c * cvx - s * cvy, s * cvx + c * cvy
    lx, ly = -c * ox + s * oy, -s * ox - c * oy
    return vx + ly * wz, vy - lx * wz, wz


class MecanumOdometry(HolonomicOdometryState):
    """Pose in the odom frame and body twist of a mecanum base, from wheel velocities."""

    def __init__(self, geometry: MecanumGeometry) -> None:
        super().__init__()
        self.geometry = geometry

    def update(
        self,
        front_left: float,
        front_right: float,
        rear_right: float,
        rear_left: float,
        dt_s: float,
    ) -> bool:
        """Integrate wheel velocities (rad/s) held for `dt_s`; False (nothing changed) when
        dt_s < 0.1 ms."""
        if dt_s < _MIN_DT_S:
            return False
        vx, vy, wz = forward(self.geometry, front_left, front_right, rear_right, rear_left)
        self.vx, self.vy, self.wz = vx, vy, wz
        self.heading += wz * dt_s
        c, s = math.cos(self.heading), math.sin(self.heading)
        self.x += (c * vx - s * vy) * dt_s
        self.y += (s * vx + c * vy) * dt_s
        return True
