"""Steering odometry (no ROS): pose and twist from traction and steering joints, and the
joint commands for a body twist (upstream's steering_kinematics::SteeringKinematics).

The number of values given picks the formula, as upstream's overloads do: one traction
value is a single driven wheel; two are a driven axle (right, left); two steering values are
an Ackermann pair (right, left) whose middle angle is estimated from both.

Deliberate difference from upstream: with position feedback the first traction sample after
construction or `reset_accumulators()` is only latched (the steering angle is still taken),
as our diff drive odometry does; upstream starts from 0 rad, so encoders that are not at zero
at start make the pose jump.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from py_controllers.controllers.diff_drive.odometry import RollingMean, integrate_arc
from py_controllers.controllers.steering import kinematics
from py_controllers.controllers.steering.kinematics import Configuration

#: below this dt (s) the twist estimate is not updated (the pose still is), as upstream
_MIN_VELOCITY_DT_S = 1e-4
#: below this dt (s) positions are not differentiated
_MIN_POSITION_DT_S = 1e-9


@dataclass(frozen=True)
class Geometry:
    """Wheel radius, wheelbase and the two track widths (m); the steering track defaults
    to the traction track."""

    wheel_radius: float
    wheelbase: float
    traction_track: float = 0.0
    steering_track: float = 0.0

    @property
    def steering_track_or_traction(self) -> float:
        return self.steering_track if self.steering_track > 0.0 else self.traction_track


class SteeringOdometry:
    """Pose (x, y, heading), rolling-mean twist and the measured middle steering angle."""

    def __init__(
        self,
        configuration: Configuration,
        geometry: Geometry,
        velocity_rolling_window_size: int = 10,
    ) -> None:
        if int(velocity_rolling_window_size) < 1:
            raise ValueError(
                f'velocity_rolling_window_size must be >= 1, got {velocity_rolling_window_size}'
            )
        self.configuration = configuration
        self.geometry = geometry
        self._window = int(velocity_rolling_window_size)
        self._linear_acc = RollingMean(self._window)
        self._angular_acc = RollingMean(self._window)
        self.x = self.y = self.heading = 0.0
        #: body twist: rolling mean with feedback, the command in open loop
        self.linear = self.angular = 0.0
        #: the measured middle steering angle (rad) the closed-loop commands start from
        self.steer_pos = 0.0
        self._old_traction: list[float] | None = None

    # --- resets -------------------------------------------------------------------------
    def set_pose(self, x: float, y: float, heading: float) -> None:
        """Continue from this pose (set_odometry, reset); forgets the velocity history."""
        self.x, self.y, self.heading = x, y, heading
        self._linear_acc.clear()
        self._angular_acc.clear()

    def reset_accumulators(self) -> None:
        """Forget the velocity history and the latched traction positions."""
        self._linear_acc.clear()
        self._angular_acc.clear()
        self._old_traction = None

    # --- forward kinematics -------------------------------------------------------------
    def update_from_position(
        self, traction_pos: Sequence[float], steering_pos: Sequence[float], dt: float
    ) -> bool:
        """Traction wheel angles (rad) differentiated over `dt`, steering angles (rad)."""
        old = self._old_traction
        if old is None or dt < _MIN_POSITION_DT_S:
            if old is None:
                self._old_traction = list(traction_pos)
            self.steer_pos = self._middle_steering(steering_pos)
            return False
        rates = [(p - o) / dt for p, o in zip(traction_pos, old)]
        self._old_traction = list(traction_pos)
        return self.update_from_velocity(rates, steering_pos, dt)

    def update_from_velocity(
        self, traction_vel: Sequence[float], steering_pos: Sequence[float], dt: float
    ) -> bool:
        """Traction wheel velocities (rad/s) and steering angles (rad) held for `dt`."""
        g = self.geometry
        steer = self.steer_pos = self._middle_steering(steering_pos)
        if len(traction_vel) == 1:
            linear = traction_vel[0] * g.wheel_radius
        else:
            right, left = traction_vel
            linear = kinematics.axle_linear_speed(
                right * g.wheel_radius, left * g.wheel_radius, steer, g.wheelbase, g.traction_track
            )
        angular = math.tan(steer) * linear / g.wheelbase
        return self._update_twist(linear, angular, dt)

    def update_open_loop(self, linear: float, angular: float, dt: float) -> None:
        """Integrate the commanded body twist (m/s, rad/s); it is the reported twist."""
        self.linear, self.angular = linear, angular
        self.x, self.y, self.heading = integrate_arc(
            self.x, self.y, self.heading, linear * dt, angular * dt
        )

    def _middle_steering(self, steering_pos: Sequence[float]) -> float:
        if len(steering_pos) == 1:
            return steering_pos[0]
        g = self.geometry
        right, left = steering_pos
        return kinematics.middle_steering_from_pair(
            right, left, g.wheelbase, g.steering_track_or_traction
        )

    def _update_twist(self, linear: float, angular: float, dt: float) -> bool:
        self.x, self.y, self.heading = integrate_arc(
            self.x, self.y, self.heading, linear * dt, angular * dt
        )
        if dt < _MIN_VELOCITY_DT_S:
            return False
        self._linear_acc.add(linear)
        self._angular_acc.add(angular)
        self.linear = self._linear_acc.mean
        self.angular = self._angular_acc.mean
        return True

    # --- inverse kinematics -------------------------------------------------------------
    def get_commands(
        self,
        linear: float,
        angular: float,
        open_loop: bool,
        reduce_wheel_speed_until_steering_reached: bool = False,
    ) -> tuple[list[float], list[float]]:
        """(traction velocities rad/s, steering angles rad) for a body twist.

        Closed loop, the traction speeds follow the measured steering angle (`steer_pos`),
        so the wheels do not fight a steering that lags; open loop, the target one.
        """
        g = self.geometry
        phi = kinematics.steering_angle(linear, angular, g.wheelbase)
        phi_ik = phi if open_loop else self.steer_pos
        speed = linear / g.wheel_radius
        if not open_loop and reduce_wheel_speed_until_steering_reached:
            speed *= kinematics.speed_scale(self.steer_pos, phi)
        config = self.configuration
        if config is Configuration.BICYCLE:
            return [speed], [phi]
        traction = list(kinematics.axle_wheel_speeds(speed, phi_ik, g.wheelbase, g.traction_track))
        if config is Configuration.TRICYCLE:
            return traction, [phi]
        if kinematics.is_close_to_zero(phi_ik):
            return traction, [phi, phi]  # upstream's shortcut: no Ackermann split
        return traction, list(
            kinematics.ackermann_angles(phi, g.wheelbase, g.steering_track_or_traction)
        )
