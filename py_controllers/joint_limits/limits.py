"""Joint limit values: hard limits (URDF `<limit>`, parameters) and soft limits.

These mirror ros2_control's `joint_limits::JointLimits` and `joint_limits::SoftJointLimits`.
A bound only applies when its `has_*` flag is set; an unset bound is infinite here (upstream
uses NaN, which the limiters there also treat as "no bound").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from py_controllers.joint_limits.errors import InvalidJointLimitsError

_INF: Final = math.inf
_NAN: Final = math.nan


@dataclass
class JointLimits:
    """Limits of one joint; a bound only applies when its `has_*` flag is set.

    Unset bounds are infinite. The `min_position`/`max_*` properties give the names
    used by ros2_control's `joint_limits::JointLimits`.
    """

    lower: float = -_INF
    upper: float = _INF
    velocity: float = _INF
    effort: float = _INF
    acceleration: float = _INF
    deceleration: float = _INF
    jerk: float = _INF
    has_position_limits: bool = False
    has_velocity_limits: bool = False
    has_effort_limits: bool = False
    has_acceleration_limits: bool = False
    has_deceleration_limits: bool = False
    has_jerk_limits: bool = False
    angle_wraparound: bool = False

    @property
    def min_position(self) -> float:
        """Lower position bound (ros2_control name)."""
        return self.lower

    @property
    def max_position(self) -> float:
        """Upper position bound (ros2_control name)."""
        return self.upper

    @property
    def max_velocity(self) -> float:
        """Velocity magnitude bound (ros2_control name)."""
        return self.velocity

    @property
    def max_effort(self) -> float:
        """Effort magnitude bound (ros2_control name)."""
        return self.effort

    @property
    def max_acceleration(self) -> float:
        """Acceleration magnitude bound (ros2_control name)."""
        return self.acceleration

    @property
    def max_deceleration(self) -> float:
        """Deceleration magnitude bound (ros2_control name)."""
        return self.deceleration

    @property
    def max_jerk(self) -> float:
        """Jerk magnitude bound (ros2_control name)."""
        return self.jerk

    def disable_all_limits(self) -> None:
        """Clear every limit flag and open every bound (`<limits enable="false"/>`)."""
        self.lower, self.upper = -_INF, _INF
        self.velocity = self.effort = self.acceleration = self.deceleration = self.jerk = _INF
        self.has_position_limits = self.has_velocity_limits = self.has_effort_limits = False
        self.has_acceleration_limits = self.has_deceleration_limits = False
        self.has_jerk_limits = False


@dataclass
class SoftJointLimits:
    """The URDF `<safety_controller>` of a joint (or its `joint_limits.<joint>` soft parameters).

    The gains default to NaN, upstream's "not set": a NaN `k_position` switches the soft
    position bounds off, a NaN `k_velocity` the soft effort bounds.
    """

    min_position: float = -_INF
    max_position: float = _INF
    k_position: float = _NAN
    k_velocity: float = _NAN


# (flag, value attribute, upstream name of the value) of each magnitude bound
MAGNITUDE_BOUNDS = (
    ('has_velocity_limits', 'velocity', 'max_velocity'),
    ('has_acceleration_limits', 'acceleration', 'max_acceleration'),
    ('has_deceleration_limits', 'deceleration', 'max_deceleration'),
    ('has_jerk_limits', 'jerk', 'max_jerk'),
    ('has_effort_limits', 'effort', 'max_effort'),
)


def validate_joint_limits(joint_name: str, limits: JointLimits) -> None:
    """Check the bounds whose flags are set: no NaN, magnitudes >= 0, lower <= upper.

    Raises InvalidJointLimitsError naming the joint and the bound: a NaN bound would
    silently switch limiting off, a negative magnitude would invert it.
    """
    if limits.has_position_limits:
        if math.isnan(limits.lower) or math.isnan(limits.upper):
            raise InvalidJointLimitsError(
                f"joint '{joint_name}': min_position/max_position must be numbers, "
                f'got [{limits.lower}, {limits.upper}]'
            )
        if limits.lower > limits.upper:
            raise InvalidJointLimitsError(
                f"joint '{joint_name}': min_position {limits.lower} is above "
                f'max_position {limits.upper}'
            )
    for flag, attr, name in MAGNITUDE_BOUNDS:
        value = getattr(limits, attr)
        if getattr(limits, flag) and not value >= 0.0:  # also catches NaN
            raise InvalidJointLimitsError(
                f"joint '{joint_name}': {name} must be a number >= 0, got {value}"
            )
