"""Differential drive odometry (no ROS): wheel motion to pose and body velocity.

Follows rolling's `diff_drive_controller::Odometry` (explicit dt, |dt| < 1e-6 -> no update,
exact arc integration, rolling-mean twist, open loop reports the command as is), with two
deliberate differences:
- a step whose heading change is below 1e-6 rad uses second-order Runge-Kutta (heading at
  the midpoint of the step) rather than rolling's Euler step with the start heading;
- position feedback: the first position sample after construction or `reset()` /
  `reset_accumulators()` only latches the wheel angles. Upstream starts from 0 rad, so
  encoders that are not at zero when the controller starts make the pose jump.
Heading is not wrapped (as upstream); it is turned into a quaternion downstream.
"""

from __future__ import annotations

import math

_MIN_DT_S = 1e-6
_MIN_ARC_ANGLE_RAD = 1e-6


class RollingMean:
    """Mean of the last `size` samples: fixed ring buffer with a running sum."""

    __slots__ = ('_buf', '_count', '_next', '_sum')

    def __init__(self, size: int) -> None:
        self._buf = [0.0] * size
        self.clear()

    def clear(self) -> None:
        for i in range(len(self._buf)):
            self._buf[i] = 0.0
        self._next = 0
        self._count = 0
        self._sum = 0.0

    def add(self, value: float) -> None:
        buf = self._buf
        i = self._next
        self._sum += value - buf[i]
        buf[i] = value
        i += 1
        if i == len(buf):
            i = 0
            # re-add from scratch once per lap so rounding in the running sum cannot build up
            self._sum = math.fsum(buf)
        self._next = i
        if self._count < len(buf):
            self._count += 1

    @property
    def mean(self) -> float:
        return self._sum / self._count if self._count else 0.0


class PlanarOdometry:
    """Pose (x, y, heading) and rolling-mean body velocities of a base that drives along its
    heading (no sideways motion): the integration shared by the differential drive and the
    tricycle, fed body twists.

    `update_*` return False (and change nothing) when |dt_s| < 1e-6. Raises ValueError for
    a velocity_rolling_window_size below 1.
    """

    def __init__(self, velocity_rolling_window_size: int = 10) -> None:
        if int(velocity_rolling_window_size) < 1:
            raise ValueError(
                f'velocity_rolling_window_size must be >= 1, got {velocity_rolling_window_size}'
            )
        self._linear = RollingMean(int(velocity_rolling_window_size))
        self._angular = RollingMean(int(velocity_rolling_window_size))
        self._x = 0.0
        self._y = 0.0
        self._heading = 0.0
        self._linear_now = 0.0
        self._angular_now = 0.0

    # --- pose and twist ------------------------------------------------------------------
    @property
    def x(self) -> float:
        """Position along the odom frame's x axis, m."""
        return self._x

    @property
    def y(self) -> float:
        """Position along the odom frame's y axis, m."""
        return self._y

    @property
    def heading(self) -> float:
        """Yaw in the odom frame, rad (not wrapped)."""
        return self._heading

    @property
    def linear(self) -> float:
        """Forward velocity, m/s: rolling mean with feedback, the command in open loop."""
        return self._linear_now

    @property
    def angular(self) -> float:
        """Yaw rate, rad/s: rolling mean with feedback, the command in open loop."""
        return self._angular_now

    # --- resets --------------------------------------------------------------------------
    def reset(self) -> None:
        """Back to the origin with no velocity history and no latched wheel angles."""
        self.set_pose(0.0, 0.0, 0.0)
        self.reset_accumulators()

    def set_pose(self, x: float, y: float, heading: float) -> None:
        """Continue from this pose (set_odometry); forgets the velocity history.

        Wheel angles a subclass latched are kept, so wheel motion since the last sample
        still counts, from the new pose.
        """
        self._x, self._y, self._heading = x, y, heading
        self._clear_velocity()

    def reset_accumulators(self) -> None:
        """Forget the velocity history (e.g. on activation)."""
        self._clear_velocity()

    def _clear_velocity(self) -> None:
        self._linear.clear()
        self._angular.clear()
        self._linear_now = self._angular_now = 0.0

    # --- updates -------------------------------------------------------------------------
    def update_from_twist(self, linear: float, angular: float, dt_s: float) -> bool:
        """Integrate a measured body velocity (m/s, rad/s) held for `dt_s`; the reported
        velocities are rolling means of the measurements."""
        if abs(dt_s) < _MIN_DT_S:
            return False
        self._integrate(linear * dt_s, angular * dt_s)
        self._linear.add(linear)
        self._angular.add(angular)
        self._linear_now = self._linear.mean
        self._angular_now = self._angular.mean
        return True

    def update_open_loop(self, linear: float, angular: float, dt_s: float) -> bool:
        """Integrate a body velocity command (m/s, rad/s) held for `dt_s`; no feedback."""
        if abs(dt_s) < _MIN_DT_S:
            return False
        self._integrate(linear * dt_s, angular * dt_s)
        self._linear_now = linear
        self._angular_now = angular
        return True

    def _integrate(self, ds: float, dtheta: float) -> None:
        self._x, self._y, self._heading = integrate_arc(self._x, self._y, self._heading, ds, dtheta)


class HolonomicOdometryState:
    """Pose in the odom frame (x, y, heading) and raw body twist (vx forward, vy sideways,
    wz turning) of a base that also moves sideways (mecanum, omni); subclasses integrate."""

    def __init__(self) -> None:
        self.x = 0.0
        self.y = 0.0
        self.heading = 0.0
        self.vx = 0.0
        self.vy = 0.0
        self.wz = 0.0

    def set_pose(self, x: float, y: float, heading: float) -> None:
        """Continue from this pose (set_odometry)."""
        self.x, self.y, self.heading = x, y, heading


def integrate_arc(
    x: float, y: float, heading: float, ds: float, dtheta: float
) -> tuple[float, float, float]:
    """The planar pose after driving `ds` along an arc that turns by `dtheta` (exact arc;
    RK2 with the midpoint heading when the turn is below 1e-6 rad)."""
    if abs(dtheta) < _MIN_ARC_ANGLE_RAD:
        # arc radius ds/dtheta is ill-conditioned here: RK2 with the midpoint heading
        mid = heading + 0.5 * dtheta
        return x + ds * math.cos(mid), y + ds * math.sin(mid), heading + dtheta
    radius = ds / dtheta
    end = heading + dtheta
    return (
        x + radius * (math.sin(end) - math.sin(heading)),
        y - radius * (math.cos(end) - math.cos(heading)),
        end,
    )


class Odometry(PlanarOdometry):
    """Pose (x, y, heading) and rolling-mean body velocities of a differential drive.

    Wheel angles in rad, rates in rad/s, radii and separation in m. `update_*` return
    False (and change nothing) when |dt_s| < 1e-6. Raises ValueError for a non-positive
    wheel_separation or velocity_rolling_window_size.
    """

    def __init__(
        self,
        wheel_separation: float,
        left_wheel_radius: float,
        right_wheel_radius: float,
        velocity_rolling_window_size: int = 10,
    ) -> None:
        if not wheel_separation > 0.0:
            raise ValueError(f'wheel_separation must be > 0, got {wheel_separation}')
        super().__init__(velocity_rolling_window_size)
        self.wheel_separation = wheel_separation
        self.left_wheel_radius = left_wheel_radius
        self.right_wheel_radius = right_wheel_radius
        self._left_prev_rad = 0.0
        self._right_prev_rad = 0.0
        self._latched = False

    def reset_accumulators(self) -> None:
        """Forget the velocity history and the latched wheel angles (e.g. on activation)."""
        super().reset_accumulators()
        self._latched = False

    def update_from_position(self, left_pos_rad: float, right_pos_rad: float, dt_s: float) -> bool:
        """Integrate the wheel angle change since the previous sample over `dt_s`.

        The first sample after construction or reset is only latched (returns False).
        """
        if not self._latched:
            self._left_prev_rad, self._right_prev_rad = left_pos_rad, right_pos_rad
            self._latched = True
            return False
        if abs(dt_s) < _MIN_DT_S:
            return False
        left_rate = (left_pos_rad - self._left_prev_rad) / dt_s
        right_rate = (right_pos_rad - self._right_prev_rad) / dt_s
        self._left_prev_rad, self._right_prev_rad = left_pos_rad, right_pos_rad
        return self.update_from_velocity(left_rate, right_rate, dt_s)

    def update_from_velocity(
        self, left_vel_rad_s: float, right_vel_rad_s: float, dt_s: float
    ) -> bool:
        """Integrate wheel angular velocities held for `dt_s`."""
        if abs(dt_s) < _MIN_DT_S:
            return False
        left = left_vel_rad_s * self.left_wheel_radius
        right = right_vel_rad_s * self.right_wheel_radius
        return self.update_from_twist(
            (left + right) * 0.5, (right - left) / self.wheel_separation, dt_s
        )
