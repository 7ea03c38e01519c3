"""Kinematics and odometry of a base on N >= 3 omni wheels (no ROS), as upstream.

Wheel i sits at angle theta_i = 2 pi i / N + wheel_offset around the centre, at
robot_radius R; wheels are named anticlockwise from the one at wheel_offset. For a body
twist (vx, vy, wz) its velocity is

    w_i = (sin(theta_i) vx - cos(theta_i) vy - R wz) / r

The forward direction is the least-squares solution of those N equations (upstream solves
it by SVD each cycle; the pseudo-inverse here is computed once). Odometry integrates the
twist exactly along the arc and reports it raw, as upstream.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from py_controllers.controllers.diff_drive.odometry import HolonomicOdometryState

_MIN_DT_S = 1e-6
_MIN_ARC_ANGLE_RAD = 1e-6


class OmniKinematics:
    """Wheel <-> body velocity maps of one omni-wheel layout."""

    def __init__(
        self, wheel_count: int, robot_radius: float, wheel_radius: float, wheel_offset: float
    ) -> None:
        if wheel_count < 3:
            raise ValueError(f'an omni-wheel base needs at least 3 wheels, got {wheel_count}')
        if not robot_radius > 0.0 or not wheel_radius > 0.0:
            raise ValueError(
                f'robot_radius and wheel_radius must be > 0, got {robot_radius}, {wheel_radius}'
            )
        self.robot_radius = robot_radius
        self.wheel_radius = wheel_radius
        step = 2.0 * math.pi / wheel_count
        self.angles = tuple(step * i + wheel_offset for i in range(wheel_count))
        self._rows = tuple((math.sin(t), -math.cos(t)) for t in self.angles)
        a = np.array([[s, c, -robot_radius] for s, c in self._rows])
        # body twist = pinv(A) @ (r * w): a 3 x N matrix, kept as tuples for the loop
        self._pinv = tuple(tuple(float(v) * wheel_radius for v in row) for row in np.linalg.pinv(a))

    def inverse(self, vx: float, vy: float, wz: float) -> list[float]:
        """Wheel velocities, rad/s, for a body twist (m/s, m/s, rad/s)."""
        spin = self.robot_radius * wz
        r = self.wheel_radius
        return [(s * vx + c * vy - spin) / r for s, c in self._rows]

    def forward(self, wheel_velocities: Sequence[float]) -> tuple[float, float, float]:
        """Least-squares body twist (vx, vy, wz) from wheel velocities (rad/s)."""
        px, py, pw = self._pinv
        vx = vy = wz = 0.0
        for i, w in enumerate(wheel_velocities):
            vx += px[i] * w
            vy += py[i] * w
            wz += pw[i] * w
        return vx, vy, wz


class OmniOdometry(HolonomicOdometryState):
    """Pose in the odom frame and body twist of an omni-wheel base.

    Position feedback: the first sample after construction or `reset_accumulators()` only
    latches the wheel angles (upstream starts from 0 rad, so encoders not at zero at start
    make the pose jump), as in diff_drive's odometry.
    """

    def __init__(self, kinematics: OmniKinematics) -> None:
        super().__init__()
        self.kinematics = kinematics
        self._previous = [0.0] * len(kinematics.angles)
        self._latched = False

    def reset_accumulators(self) -> None:
        """Forget the latched wheel angles (e.g. on activation)."""
        self._latched = False

    def update_from_position(self, wheel_positions: Sequence[float], dt_s: float) -> bool:
        """Integrate the wheel angle change since the previous sample over `dt_s`."""
        previous = self._previous
        if not self._latched:
            previous[:] = wheel_positions
            self._latched = True
            return False
        if abs(dt_s) < _MIN_DT_S:
            return False
        rates = [(p - previous[i]) / dt_s for i, p in enumerate(wheel_positions)]
        previous[:] = wheel_positions
        return self.update_from_velocity(rates, dt_s)

    def update_from_velocity(self, wheel_velocities: Sequence[float], dt_s: float) -> bool:
        """Integrate wheel velocities (rad/s) held for `dt_s`."""
        if abs(dt_s) < _MIN_DT_S:
            return False
        return self.update_open_loop(*self.kinematics.forward(wheel_velocities), dt_s)

    def update_open_loop(self, vx: float, vy: float, wz: float, dt_s: float) -> bool:
        """Integrate a body twist (m/s, m/s, rad/s) held for `dt_s`."""
        if abs(dt_s) < _MIN_DT_S:
            return False
        self.vx, self.vy, self.wz = vx, vy, wz
        dx, dy, dheading = vx * dt_s, vy * dt_s, wz * dt_s
        old = self.heading
        if abs(dheading) < _MIN_ARC_ANGLE_RAD:
            c, s = math.cos(old), math.sin(old)
            self.x += dx * c - dy * s
            self.y += dx * s + dy * c
            self.heading = old + dheading
            return True
        new = old + dheading
        ds, dc = math.sin(new) - math.sin(old), math.cos(new) - math.cos(old)
        self.x += (dx * ds + dy * dc) / dheading
        self.y += (-dx * dc + dy * ds) / dheading
        self.heading = new
        return True
