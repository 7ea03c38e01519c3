"""The ROS-free core of the ROS 1 style PID joint controllers.

Behaviour follows ros_controllers (noetic) ``velocity_controllers`` and ``effort_controllers``
``JointPositionController`` / ``JointVelocityController``; the code is our own:

* a position command is clamped to the URDF limits of revolute and prismatic joints;
* the position error is the shortest rotation that stays inside the limits for a revolute
  joint (``shortest_angular_distance_with_large_limits``), the shortest rotation for a
  continuous joint and the plain difference otherwise;
* with a velocity command next to the position, ``velocity command - velocity`` is the PID's
  derivative error, otherwise the PID differentiates the position error itself;
* the velocity controller feeds ``velocity command - velocity`` to the PID.

Nothing here allocates per step: the cores keep their last values in attributes for the
state message.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from py_controllers.control_toolbox.angles import (
    shortest_angular_distance,
    shortest_angular_distance_with_large_limits,
)
from py_controllers.control_toolbox.pid import Gains, Pid

__all__ = ['JointModel', 'PositionPid', 'VelocityPid', 'clamp_position', 'position_error']

_NAN = math.nan
_INF = math.inf

REVOLUTE = 'revolute'
CONTINUOUS = 'continuous'
PRISMATIC = 'prismatic'


@dataclass(frozen=True)
class JointModel:
    """What the controllers need from a URDF joint: its type and position limits."""

    name: str
    type: str = PRISMATIC
    lower: float = -_INF
    upper: float = _INF

    @classmethod
    def from_urdf_joint(cls, name: str, joint: Any) -> JointModel:
        """Build from a parsed URDF joint (``.type`` and ``.limits.lower/.upper`` or ``.lower``).

        A continuous joint never has position limits, whatever the URDF says.
        """
        joint_type = str(getattr(joint, 'type', PRISMATIC) or PRISMATIC)
        source = getattr(joint, 'limits', None) or getattr(joint, 'limit', None) or joint
        lower = getattr(source, 'lower', None)
        upper = getattr(source, 'upper', None)
        lower = -_INF if lower is None else float(lower)
        upper = _INF if upper is None else float(upper)
        if joint_type == CONTINUOUS or not lower < upper:
            lower, upper = -_INF, _INF
        return cls(name, joint_type, lower, upper)

    @property
    def has_position_limits(self) -> bool:
        """True for a revolute or prismatic joint with a finite limit."""
        return self.type in (REVOLUTE, PRISMATIC) and (
            math.isfinite(self.lower) or math.isfinite(self.upper)
        )


def clamp_position(joint: JointModel, position: float) -> float:
    """``position`` clamped to the joint's limits (revolute and prismatic joints only)."""
    if joint.type == CONTINUOUS:
        return position
    if position > joint.upper:
        return joint.upper
    if position < joint.lower:
        return joint.lower
    return position


def position_error(joint: JointModel, current: float, command: float) -> float:
    """Signed distance from ``current`` to ``command`` the joint should travel.

    Revolute with both limits finite: the rotation equivalent to ``command`` modulo 2*pi
    that stays inside the limits (the plain shortest rotation if none does); continuous:
    the shortest rotation; anything else: ``command - current``.
    """
    if joint.type == CONTINUOUS:
        return shortest_angular_distance(current, command)
    if joint.type == REVOLUTE and math.isfinite(joint.lower) and math.isfinite(joint.upper):
        return shortest_angular_distance_with_large_limits(
            current, command, joint.lower, joint.upper
        )[1]
    return command - current


class PositionPid:
    """Position setpoint to a velocity or effort command through one :class:`Pid`.

    The core of ``velocity_controllers/JointPositionController`` and
    ``effort_controllers/JointPositionController``; :meth:`start` on activation, :meth:`step`
    every update. Read ``set_point``, ``error`` and ``command`` after a step.
    """

    def __init__(self, joint: JointModel, gains: Gains) -> None:
        self.joint = joint
        self.pid = Pid.from_gains(gains)
        self.set_point = _NAN
        self.error = _NAN
        self.command = _NAN

    def start(self, current_position: float) -> float:
        """Reset the PID and return the first setpoint: the current position, clamped."""
        self.pid.reset()
        self.set_point = clamp_position(self.joint, current_position)
        self.error = 0.0
        self.command = 0.0
        return self.set_point

    def step(
        self,
        command_position: float,
        command_velocity: float,
        position: float,
        velocity: float,
        dt_s: float,
    ) -> float:
        """One update; ``command_velocity`` NaN means "no velocity command".

        Returns the output (NaN when the setpoint or the measurement is not finite, in
        which case the PID state is left untouched).
        """
        set_point = clamp_position(self.joint, command_position)
        self.set_point = set_point
        if not (math.isfinite(set_point) and math.isfinite(position)):
            self.error = _NAN
            self.command = _NAN
            return _NAN
        error = position_error(self.joint, position, set_point)
        self.error = error
        error_dot = command_velocity - velocity
        if error_dot == error_dot and abs(error_dot) < _INF:
            self.command = self.pid.compute_command(error, dt_s, error_dot=error_dot)
        else:
            self.command = self.pid.compute_command(error, dt_s)
        return self.command


class VelocityPid:
    """Velocity setpoint to an effort command (``effort_controllers/JointVelocityController``)."""

    def __init__(self, gains: Gains) -> None:
        self.pid = Pid.from_gains(gains)
        self.set_point = 0.0
        self.error = _NAN
        self.command = _NAN

    def start(self) -> float:
        """Reset the PID and return the first setpoint: zero velocity."""
        self.pid.reset()
        self.set_point = 0.0
        self.error = 0.0
        self.command = 0.0
        return 0.0

    def step(self, command_velocity: float, velocity: float, dt_s: float) -> float:
        """One update; NaN (PID untouched) when the setpoint or the velocity is not finite."""
        self.set_point = command_velocity
        error = command_velocity - velocity
        if not (error == error and abs(error) < _INF):
            self.error = _NAN
            self.command = _NAN
            return _NAN
        self.error = error
        self.command = self.pid.compute_command(error, dt_s)
        return self.command
