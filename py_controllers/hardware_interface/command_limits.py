"""`enforce_command_limits`: every joint's claimed commands clamped to its limits before write.

As upstream's resource manager does it: one limiter per joint of the hardware components
(a soft limiter where the URDF has a `<safety_controller>`), built from the joint's merged
limits (URDF `<limit>`, tightened by the `<ros2_control>` interface min/max) and, here as
well, from the manager's `joint_limits.<joint>.*` parameters (upstream reads those only in
controllers; a user who writes them for the manager expects them to count). After every
controller has updated, each joint's claimed position/velocity/effort/acceleration commands
go through its limiter with the current states as the actual values. A NaN command stays
NaN. The remembered previous commands are forgotten after every command mode switch.

Handles are resolved once; the loop only walks lists.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.joint_limits import (
    JointControlInterfacesData,
    JointLimiter,
    JointLimits,
    JointPositionOutOfBoundsError,
    apply_limits_parameters,
    joint_limits_parameters,
    make_joint_limiter,
)

LIMITED_INTERFACES = ('position', 'velocity', 'effort', 'acceleration')


@dataclass(eq=False)
class _Joint:
    """One joint's limiter, its handles and the data objects reused every cycle."""

    name: str
    limiter: JointLimiter
    limits: JointLimits
    states: list[tuple[str, StateInterface]]
    commands: list[tuple[str, CommandInterface]]
    claimed: list[tuple[str, CommandInterface]] = field(default_factory=list)
    actual: JointControlInterfacesData = field(default_factory=JointControlInterfacesData)
    desired: JointControlInterfacesData = field(default_factory=JointControlInterfacesData)
    out_of_bounds_reported: bool = False


class CommandLimits:
    """The limiters of every limited joint, bound to the resource manager's handles."""

    def __init__(self, joints: list[_Joint], log_rt: Callable[[str, str], None]) -> None:
        self._joints = joints
        self._log_rt = log_rt
        self._due: list[_Joint] = []  # joints with a claimed command: the only ones to check

    @classmethod
    def build(
        cls,
        components: Any,
        state_interfaces: Mapping[str, StateInterface],
        command_interfaces: Mapping[str, CommandInterface],
        parameters: Mapping[str, object],
        log_rt: Callable[[str, str], None],
    ) -> CommandLimits:
        """From the components' `info` (limits, soft limits, joints) and the manager's flat
        parameters; raises InvalidJointLimitsError (a ValueError) naming what is wrong."""
        joints: list[_Joint] = []
        known: set[str] = set()
        for managed in components:
            info = managed.info
            for comp in info.joints:
                known.add(comp.name)
                if not comp.enable_limits or comp.name not in info.limits:
                    continue
                limits, soft = apply_limits_parameters(
                    comp.name,
                    joint_limits_parameters(parameters, comp.name),
                    info.limits[comp.name],
                    info.soft_limits.get(comp.name),
                )
                states = _handles(state_interfaces, comp.name)
                commands = _handles(command_interfaces, comp.name)
                if not commands:
                    continue
                limiter = make_joint_limiter(comp.name, limits, soft)
                joint = _Joint(comp.name, limiter, limits, states, commands)
                joint.actual.joint_name = joint.desired.joint_name = comp.name
                joints.append(joint)
        unknown = sorted(
            {key.split('.')[1] for key in parameters if key.startswith('joint_limits.')} - known
        )
        if unknown:
            raise ValueError(f'joint_limits parameters name joints no hardware has: {unknown}')
        return cls(joints, log_rt)

    @property
    def joint_names(self) -> list[str]:
        """The joints with a limiter."""
        return [j.name for j in self._joints]

    def limiter(self, joint: str) -> JointLimiter:
        """The limiter of `joint` (KeyError if it has none)."""
        for j in self._joints:
            if j.name == joint:
                return j.limiter
        raise KeyError(joint)

    def refresh_claims(self, claimed: Mapping[str, str]) -> None:
        """Which commands count as desired: the claimed ones (call when claims change)."""
        due = []
        for j in self._joints:
            j.claimed = [(kind, h) for kind, h in j.commands if h.name in claimed]
            if j.claimed:
                due.append(j)
        self._due = due

    def reset(self) -> None:
        """Forget every previous command (after a command mode switch)."""
        for j in self._joints:
            j.limiter.reset()

    def enforce(self, dt_s: float) -> None:
        """Clamp every claimed command of every joint in place (loop thread)."""
        for j in self._due:
            actual, desired = j.actual, j.desired
            for kind, handle in j.states:
                setattr(actual, kind, handle.value)
            desired.position = desired.velocity = desired.effort = None
            desired.acceleration = desired.jerk = None
            for kind, handle in j.claimed:
                setattr(desired, kind, handle.value)
            try:
                changed = j.limiter.enforce(actual, desired, dt_s)
                if j.out_of_bounds_reported:
                    j.out_of_bounds_reported = False
            except JointPositionOutOfBoundsError as exc:
                changed = self._back_into_limits(j, exc, dt_s)
            except Exception as exc:  # a limiter bug must not stop the loop: hold the joint
                self._log_rt('error', f"joint '{j.name}': limiter raised {exc!r}")
                continue
            if changed:
                for kind, handle in j.claimed:
                    handle.value = getattr(desired, kind)

    def _back_into_limits(self, j: _Joint, exc: Exception, dt_s: float) -> bool:
        """The joint is measured outside its position limits: the position command is
        clamped to the limits (it can only lead back inside), the other commands limited as
        usual; reported once per excursion."""
        if not j.out_of_bounds_reported:
            j.out_of_bounds_reported = True
            self._log_rt('error', f'{exc}: position commands clamped to the limits')
        desired, limits = j.desired, j.limits
        position = desired.position
        if position is not None and not math.isnan(position):
            position = min(max(position, limits.lower), limits.upper)
        desired.position = None
        try:
            j.limiter.enforce(j.actual, desired, dt_s)
        except Exception as again:
            self._log_rt('error', f"joint '{j.name}': limiter raised {again!r}")
        desired.position = position
        return True


def _handles(table: Mapping[str, Any], joint: str) -> list[tuple[str, Any]]:
    return [(k, table[f'{joint}/{k}']) for k in LIMITED_INTERFACES if f'{joint}/{k}' in table]
