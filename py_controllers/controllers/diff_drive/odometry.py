"""Differential drive odometry (no ROS): wheel motion to pose and body velocity.

Integration is exact on arcs; when the heading change of a step is tiny the arc formula
is ill-conditioned and a second-order Runge-Kutta step (heading at the midpoint) is used.
Unlike upstream, the first position update after construction or reset only latches the
wheel positions, so encoders that do not start at zero cause no jump.
"""

from __future__ import annotations

import math

_TINY_DT_S = 1e-6
_TINY_ANGLE = 1e-6


class Odometry:
    """Pose (x, y, heading) and rolling-mean body velocities of a differential drive."""

    def __init__(
        self,
        wheel_separation: float,
        left_wheel_radius: float,
        right_wheel_radius: float,
        velocity_rolling_window_size: int = 10,
    ) -> None:
        self.wheel_separation = wheel_separation
        self.left_wheel_radius = left_wheel_radius
        self.right_wheel_radius = right_wheel_radius
        self._window = max(1, int(velocity_rolling_window_size))
        self.x = self.y = self.heading = 0.0
        self.reset_accumulators()

    # --- state ----------------------------------------------------------------------
    def reset_accumulators(self) -> None:
        """Forget the velocity history and the latched wheel positions."""
        self._lin = [0.0] * self._window
        self._ang = [0.0] * self._window
        self._i = 0
        self._n = 0
        self._left_prev: float | None = None
        self._right_prev: float | None = None

    def set_pose(self, x: float, y: float, heading: float) -> None:
        """Start integrating from this pose (set_odometry; zeros = reset)."""
        self.x, self.y, self.heading = x, y, heading
        self.reset_accumulators()

    def reset(self) -> None:
        """Pose and velocities back to zero."""
        self.set_pose(0.0, 0.0, 0.0)

    @property
    def linear(self) -> float:
        """Rolling mean of the forward velocity, m/s."""
        return sum(self._lin) / self._n if self._n else 0.0

    @property
    def angular(self) -> float:
        """Rolling mean of the yaw rate, rad/s."""
        return sum(self._ang) / self._n if self._n else 0.0

    # --- updates -------------------------------------------------------------------
    def update_from_position(self, left_pos_rad: float, right_pos_rad: float, dt_s: float) -> bool:
        """Integrate wheel angle changes over `dt_s`; False when nothing was integrated."""
        if self._left_prev is None:
            self._left_prev, self._right_prev = left_pos_rad, right_pos_rad
            return False
        if abs(dt_s) < _TINY_DT_S:
            return False
        left_rate = (left_pos_rad - self._left_prev) / dt_s
        right_rate = (right_pos_rad - self._right_prev) / dt_s
        self._left_prev, self._right_prev = left_pos_rad, right_pos_rad
        return self.update_from_velocity(left_rate, right_rate, dt_s)

    def update_from_velocity(
        self, left_vel_rad_s: float, right_vel_rad_s: float, dt_s: float
    ) -> bool:
        """Integrate wheel angular velocities over `dt_s`."""
        if abs(dt_s) < _TINY_DT_S:
            return False
        left = left_vel_rad_s * self.left_wheel_radius
        right = right_vel_rad_s * self.right_wheel_radius
        linear = (left + right) / 2.0
        angular = (right - left) / self.wheel_separation
        self._integrate(linear * dt_s, angular * dt_s)
        self._record(linear, angular)
        return True

    def update_open_loop(self, linear: float, angular: float, dt_s: float) -> bool:
        """Integrate the commanded body velocities (no wheel feedback)."""
        if abs(dt_s) < _TINY_DT_S:
            return False
        self._integrate(linear * dt_s, angular * dt_s)
        self._record(linear, angular)
        return True

    def _integrate(self, ds: float, dtheta: float) -> None:
        if abs(dtheta) < _TINY_ANGLE:
            mid = self.heading + dtheta / 2.0
            self.x += ds * math.cos(mid)
            self.y += ds * math.sin(mid)
        else:
            r = ds / dtheta
            new = self.heading + dtheta
            self.x += r * (math.sin(new) - math.sin(self.heading))
            self.y -= r * (math.cos(new) - math.cos(self.heading))
        self.heading += dtheta

    def _record(self, linear: float, angular: float) -> None:
        i = self._i
        self._lin[i], self._ang[i] = linear, angular
        self._i = (i + 1) % self._window
        self._n = min(self._n + 1, self._window)
