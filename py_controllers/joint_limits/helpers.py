"""The bounds a joint's command must stay within this cycle, from its limits and state.

Mirrors upstream's `joint_limits_helpers.cpp`; the limiters combine these bounds. Each
function returns a closed interval (`Bounds`) that is never NaN: where upstream would
compute a NaN bound from a NaN measurement (and so stop limiting altogether), the NaN
measurement counts as unknown here and only the bounds that do not need it apply.
"""

from __future__ import annotations

import math
from typing import Final, TypeGuard, final

from py_controllers.joint_limits.data import INTERFACE_FIELDS, JointControlInterfacesData
from py_controllers.joint_limits.errors import JointPositionOutOfBoundsError
from py_controllers.joint_limits.limits import JointLimits

# A measured position this far past a position limit is tolerated without zeroing the
# velocity bounds (upstream's POSITION_BOUNDS_TOLERANCE).
POSITION_BOUNDS_TOLERANCE: Final = 0.002
# A measured position this far past a position limit makes a position command an error
# (upstream's OUT_OF_BOUNDS_EXCEPTION_TOLERANCE, about half a degree).
OUT_OF_BOUNDS_EXCEPTION_TOLERANCE: Final = 0.0087

_INF: Final = math.inf


@final
class Bounds:
    """Closed interval [lower, upper] for one command value (a plain class, not a
    NamedTuple: compiled, a NamedTuple is built through the interpreter, several per cycle)."""

    __slots__ = ('lower', 'upper')

    def __init__(self, lower: float, upper: float) -> None:
        self.lower = lower
        self.upper = upper

    def __repr__(self) -> str:
        return f'Bounds({self.lower}, {self.upper})'


UNBOUNDED: Final = Bounds(-_INF, _INF)


def known(value: float | None) -> TypeGuard[float]:
    """True for a present, non-NaN value."""
    return value is not None and value == value  # NaN is the one float unequal to itself


def finite(value: float | None) -> TypeGuard[float]:
    """True for a present, finite value."""
    return value is not None and math.isfinite(value)


def is_limited(value: float, bounds: Bounds) -> bool:
    """True when `value` lies outside `bounds` (clamping it would change it)."""
    return value < bounds.lower or value > bounds.upper


def clamp(value: float, bounds: Bounds) -> float:
    """Clamp like C++ `std::clamp`: the lower bound wins if the interval is empty."""
    if value < bounds.lower:
        return bounds.lower
    if value > bounds.upper:
        return bounds.upper
    return value


def ordered(lower: float, upper: float) -> Bounds:
    """The interval with its ends swapped if given the wrong way round (as upstream does)."""
    return Bounds(upper, lower) if lower > upper else Bounds(lower, upper)


def check_actual_position(
    joint_name: str, limits: JointLimits, actual_position: float | None
) -> None:
    """Raise JointPositionOutOfBoundsError if the measured position is far out of its limits.

    NaN or absent positions pass (nothing is known about them).
    """
    if not known(actual_position) or not limits.has_position_limits:
        return
    if (
        actual_position > limits.upper + OUT_OF_BOUNDS_EXCEPTION_TOLERANCE
        or actual_position < limits.lower - OUT_OF_BOUNDS_EXCEPTION_TOLERANCE
    ):
        raise JointPositionOutOfBoundsError(joint_name, actual_position, limits.lower, limits.upper)


def position_bounds(
    joint_name: str,
    limits: JointLimits,
    actual_velocity: float | None,
    actual_position: float | None,
    prev_command_position: float | None,
    dt_s: float,
) -> Bounds:
    """Position limits, narrowed to what is reachable in `dt_s` at the velocity limit.

    The reachable band is centred on the previous command (the state lags the command by a
    few cycles, so the actual position would be too conservative), else on the actual
    position, else not applied. With acceleration limits the speed used is at most
    |actual velocity| + max_acceleration * dt (0 for an absent velocity; a NaN velocity
    leaves max_velocity, as upstream). Raises JointPositionOutOfBoundsError via
    `check_actual_position`.
    """
    lower, upper = (limits.lower, limits.upper) if limits.has_position_limits else (-_INF, _INF)
    check_actual_position(joint_name, limits, actual_position)
    if limits.has_velocity_limits:
        speed = limits.velocity
        if limits.has_acceleration_limits and actual_velocity is None:
            speed = min(speed, limits.acceleration * dt_s)
        elif limits.has_acceleration_limits and known(actual_velocity):
            speed = min(speed, abs(actual_velocity) + limits.acceleration * dt_s)
        step = speed * dt_s
        if finite(prev_command_position):
            reference: float | None = prev_command_position
        else:
            reference = actual_position if finite(actual_position) else None
        if reference is not None:
            new_lower = max(min(reference - step, upper), lower)
            upper = min(max(reference + step, new_lower), upper)
            lower = new_lower
    return ordered(lower, upper)


def velocity_bounds(
    joint_name: str,
    limits: JointLimits,
    desired_velocity: float,
    actual_position: float | None,
    prev_command_velocity: float | None,
    dt_s: float,
) -> Bounds:
    """Velocity limit, narrowed so one step keeps the position in its limits and so the
    change from the previous command respects max_acceleration.

    Only with velocity limits (none: unbounded, even with acceleration limits, as upstream).
    A joint measured past a position limit gets [0, 0] when the command would push it
    further out (within POSITION_BOUNDS_TOLERANCE) or whenever it is further out than
    that tolerance. `joint_name` is for symmetry with upstream's logging and is unused.
    """
    del joint_name
    if not limits.has_velocity_limits:
        return UNBOUNDED
    lower, upper = -limits.velocity, limits.velocity
    if limits.has_position_limits and finite(actual_position):
        pos = actual_position
        lower = max((limits.lower - pos) / dt_s, lower)
        upper = min((limits.upper - pos) / dt_s, upper)
        if pos > limits.upper or pos < limits.lower:
            pushing_out = (
                pos < limits.upper + POSITION_BOUNDS_TOLERANCE
                and pos > limits.lower
                and desired_velocity >= 0.0
            ) or (
                pos > limits.lower - POSITION_BOUNDS_TOLERANCE
                and pos < limits.upper
                and desired_velocity <= 0.0
            )
            far_out = (
                pos > limits.upper + POSITION_BOUNDS_TOLERANCE
                or pos < limits.lower - POSITION_BOUNDS_TOLERANCE
            )
            if pushing_out or far_out:
                lower = upper = 0.0
    if limits.has_acceleration_limits and finite(prev_command_velocity):
        step = limits.acceleration * dt_s
        lower = max(prev_command_velocity - step, lower)
        upper = min(prev_command_velocity + step, upper)
    return ordered(lower, upper)


def effort_bounds(
    limits: JointLimits, actual_position: float | None, actual_velocity: float | None
) -> Bounds:
    """Effort limit, with the outward side closed (0) at a position limit or beyond the
    velocity limit, so effort can only bring the joint back. NaN state values close nothing."""
    if not limits.has_effort_limits:
        return UNBOUNDED
    lower, upper = -limits.effort, limits.effort
    if limits.has_position_limits and known(actual_position) and known(actual_velocity):
        if actual_position <= limits.lower and actual_velocity <= 0.0:
            lower = 0.0
        elif actual_position >= limits.upper and actual_velocity >= 0.0:
            upper = 0.0
    if limits.has_velocity_limits and known(actual_velocity):
        if actual_velocity < -limits.velocity:
            lower = 0.0
        elif actual_velocity > limits.velocity:
            upper = 0.0
    return Bounds(lower, upper)  # in order: lower is -effort or 0, upper effort or 0


def acceleration_bounds(
    limits: JointLimits, desired_acceleration: float, actual_velocity: float | None
) -> Bounds:
    """max_deceleration when the command slows the measured motion down (with deceleration
    limits), otherwise max_acceleration (with acceleration limits), otherwise unbounded."""
    slowing_down = known(actual_velocity) and (
        (desired_acceleration < 0.0 and actual_velocity > 0.0)
        or (desired_acceleration > 0.0 and actual_velocity < 0.0)
    )
    if limits.has_deceleration_limits and slowing_down:
        return ordered(-limits.deceleration, limits.deceleration)
    if limits.has_acceleration_limits:
        return ordered(-limits.acceleration, limits.acceleration)
    return UNBOUNDED


def jerk_bounds(limits: JointLimits) -> Bounds:
    """±max_jerk with jerk limits, otherwise unbounded."""
    if not limits.has_jerk_limits:
        return UNBOUNDED
    return ordered(-limits.jerk, limits.jerk)


def seed_prev_command(
    prev: JointControlInterfacesData,
    actual: JointControlInterfacesData,
    desired: JointControlInterfacesData,
) -> None:
    """First cycle: for each interface the command has, start from the actual value if the
    joint has that state (even NaN, as upstream), else from the command unless it is NaN."""
    for name in INTERFACE_FIELDS:
        wanted = getattr(desired, name)
        if wanted is None:
            continue
        measured = getattr(actual, name)
        if measured is not None:
            setattr(prev, name, measured)
        elif not math.isnan(wanted):
            setattr(prev, name, wanted)
    if actual.has_data():
        prev.joint_name = actual.joint_name
    elif desired.has_data():
        prev.joint_name = desired.joint_name


def update_prev_command(
    desired: JointControlInterfacesData, prev: JointControlInterfacesData
) -> None:
    """Remember the limited command; NaN ("no command") values leave the previous one."""
    # unrolled: this runs for every limited joint in every cycle (v == v: not NaN)
    v = desired.position
    if v is not None and v == v:
        prev.position = v
    v = desired.velocity
    if v is not None and v == v:
        prev.velocity = v
    v = desired.effort
    if v is not None and v == v:
        prev.effort = v
    v = desired.acceleration
    if v is not None and v == v:
        prev.acceleration = v
    v = desired.jerk
    if v is not None and v == v:
        prev.jerk = v
    prev.joint_name = desired.joint_name
