"""Saturation limiter: clamp one joint's commands into the bounds its limits allow now.

Mirrors upstream's `JointSaturationLimiter<JointControlInterfacesData>`, the limiter the
resource manager puts on every joint without soft limits when `enforce_command_limits` is on.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Protocol

from py_controllers.joint_limits.data import JointControlInterfacesData
from py_controllers.joint_limits.helpers import (
    Bounds,
    acceleration_bounds,
    clamp,
    effort_bounds,
    is_limited,
    jerk_bounds,
    known,
    position_bounds,
    seed_prev_command,
    update_prev_command,
    velocity_bounds,
)
from py_controllers.joint_limits.limits import JointLimits, validate_joint_limits


class JointLimiter(Protocol):
    """What the resource manager needs from a per-joint limiter.

    `enforce` is called from the control loop; it clamps `desired` in place, remembers the
    result as the previous command and returns True if anything was changed. `reset` forgets
    the previous command (after a command mode switch), so the next `enforce` starts again
    from the actual state.
    """

    @property
    def joint_name(self) -> str: ...

    def enforce(
        self,
        actual: JointControlInterfacesData,
        desired: JointControlInterfacesData,
        dt_s: float,
    ) -> bool: ...

    def reset(self) -> None: ...


def apply_bounds(data: JointControlInterfacesData, name: str, bounds: Bounds) -> bool:
    """Clamp `data.<name>` into `bounds`; True if it was outside (and so changed)."""
    value = getattr(data, name)
    if not is_limited(value, bounds):
        return False
    setattr(data, name, clamp(value, bounds))
    return True


class JointSaturationLimiter:
    """Clamp position, velocity, effort, acceleration and jerk commands of one joint.

    Per cycle, for each command value present and not NaN (a NaN command stays NaN):
    - position: into [min_position, max_position], narrowed to what the velocity limit can
      reach in `dt_s` from the previous command (see `helpers.position_bounds`);
    - velocity: into ±max_velocity, narrowed so the measured position stays within its
      limits after `dt_s` and so the change from the previous command is at most
      max_acceleration * dt_s;
    - effort: into ±max_effort, with the outward side closed at a position limit or beyond
      the velocity limit;
    - acceleration: into ±max_deceleration when slowing the measured motion, else
      ±max_acceleration;
    - jerk: into ±max_jerk.
    A limit applies only when its `has_*` flag is set. NaN measurements count as unknown,
    and so do infinite ones where they would enter arithmetic (upstream turns a NaN
    measurement into NaN bounds and stops limiting that value altogether).

    Not thread-safe beyond the GIL: `reset` swaps the remembered command in one assignment,
    so a concurrent `enforce` acts either before or after it.
    """

    def __init__(self, joint_name: str, limits: JointLimits) -> None:
        """Raises InvalidJointLimitsError if a flagged bound is NaN, negative or inverted."""
        validate_joint_limits(joint_name, limits)
        self._joint_name = joint_name
        self._limits = dataclasses.replace(limits)
        self._prev = JointControlInterfacesData(joint_name=joint_name)

    @property
    def joint_name(self) -> str:
        """The joint this limiter guards."""
        return self._joint_name

    @property
    def limits(self) -> JointLimits:
        """A copy of the hard limits in use."""
        return dataclasses.replace(self._limits)

    @property
    def prev_command(self) -> JointControlInterfacesData:
        """A copy of the last limited command (empty before the first `enforce`)."""
        return dataclasses.replace(self._prev)

    def set_limits(self, limits: JointLimits) -> None:
        """Use new hard limits from the next `enforce` on (raises like the constructor)."""
        validate_joint_limits(self._joint_name, limits)
        self._limits = dataclasses.replace(limits)

    def configure(self, actual: JointControlInterfacesData) -> None:
        """Take `actual` as the previous command (upstream's `configure`)."""
        self._prev = dataclasses.replace(actual)

    def reset(self) -> None:
        """Forget the previous command; the next `enforce` starts from the actual state."""
        self._prev = JointControlInterfacesData(joint_name=self._joint_name)

    def enforce(
        self,
        actual: JointControlInterfacesData,
        desired: JointControlInterfacesData,
        dt_s: float,
    ) -> bool:
        """Clamp `desired` in place; True if any value changed.

        A `dt_s` that is not a positive finite number changes nothing and returns False (the
        previous command is kept). Raises JointPositionOutOfBoundsError if a position command
        is given while the measured position is more than about half a degree
        (OUT_OF_BOUNDS_EXCEPTION_TOLERANCE) outside the position limits.
        """
        if not (dt_s > 0.0 and math.isfinite(dt_s)):
            return False
        limits = self._limits
        prev = self._prev
        if not prev.has_data():
            seed_prev_command(prev, actual, desired)
        changed = False
        # `v == v`: not NaN (`known` written out: this runs for every joint every cycle)
        v = desired.position
        if v is not None and v == v:
            bounds = position_bounds(
                self._joint_name, limits, actual.velocity, actual.position, prev.position, dt_s
            )
            if is_limited(v, bounds):  # (apply_bounds written out: no attribute by name)
                desired.position = clamp(v, bounds)
                changed = True
        v = desired.velocity
        if v is not None and v == v:
            bounds = velocity_bounds(
                self._joint_name, limits, v, actual.position, prev.velocity, dt_s
            )
            if is_limited(v, bounds):
                desired.velocity = clamp(v, bounds)
                changed = True
        v = desired.effort
        if v is not None and v == v:
            bounds = effort_bounds(limits, actual.position, actual.velocity)
            if is_limited(v, bounds):
                desired.effort = clamp(v, bounds)
                changed = True
        if desired.acceleration is not None or desired.jerk is not None:
            changed = limit_acceleration_and_jerk(limits, actual, desired) or changed
        update_prev_command(desired, prev)
        return changed


def limit_acceleration_and_jerk(
    limits: JointLimits,
    actual: JointControlInterfacesData,
    desired: JointControlInterfacesData,
) -> bool:
    """Clamp the acceleration and jerk commands (shared by both limiters); True if changed."""
    changed = False
    if known(desired.acceleration):
        bounds = acceleration_bounds(limits, desired.acceleration, actual.velocity)
        changed = apply_bounds(desired, 'acceleration', bounds)
    if known(desired.jerk):
        changed = apply_bounds(desired, 'jerk', jerk_bounds(limits)) or changed
    return changed
