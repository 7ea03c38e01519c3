"""`enforce_command_limits`: every joint's claimed commands clamped to its limits before write.

As upstream's resource manager does it: one limiter per joint of the hardware components
(a soft limiter where the URDF has a `<safety_controller>`), built from the joint's merged
limits (URDF `<limit>`, tightened by the `<ros2_control>` interface min/max) and, here as
well, from the manager's `joint_limits.<joint>.*` parameters (upstream reads those only in
controllers; a user who writes them for the manager expects them to count). After every
controller has updated, each joint's claimed position/velocity/effort/acceleration commands
go through its limiter with the current states as the actual values. A NaN command stays
NaN. The remembered previous commands are forgotten after every command mode switch.

Limits fail closed: when a limiter raises (or a handle holds something it cannot read),
the joint's claimed commands are set to their hold values (`hold`, the resource manager's
command guard), never left as the controller wrote them; logged once per claim.

Handles are resolved once; the loop only walks lists. With many joints (issue #17) the
joints on a plain saturation limiter whose claimed commands are positions, velocities or
efforts are limited together by a numpy `SaturationBatch` (same values, bit for bit); the
others, and a batch joint measured far outside its position limits, one by one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, cast

import numpy as np

from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.joint_limits import (
    JointControlInterfacesData,
    JointLimiter,
    JointLimits,
    JointPositionOutOfBoundsError,
    JointSaturationLimiter,
    apply_limits_parameters,
    joint_limits_parameters,
    make_joint_limiter,
)
from py_controllers.joint_limits.vector_limiter import BATCH_KINDS, SaturationBatch

LIMITED_INTERFACES: Final = ('position', 'velocity', 'effort', 'acceleration')
# Fewest joints for the numpy batch: where it overtakes the scalar path. Measured through
# CommandLimits.enforce (AMD EPYC, Python 3.11, numpy 2.4), us per cycle, scalar / batch:
# joints with position and velocity limits, both states, position commands:
#   1: 3.1 / 42, 2: 6.1 / 39, 4: 11.5 / 39, 8: 23 / 40, 16: 45 / 42, 32: 90 / 45,
#   64: 180 / 54, 128: 356 / 64, 300: 838 / 97;
# with effort and acceleration limits too, three states, position+velocity+effort commands:
#   1: 6.2 / 92, 4: 24 / 77, 8: 48 / 79, 16: 95 / 83, 32: 192 / 90, 64: 385 / 104,
#   128: 769 / 132, 300: 1807 / 214.
N_VECTOR: Final = 16


_ByKind = tuple[Any, Any, Any, Any]


def _by_kind(handles: list[tuple[str, Any]]) -> _ByKind:
    """`(kind, handle)` pairs as a handle (or None) per kind of LIMITED_INTERFACES."""
    found = dict(handles)
    p, v, e, a = (found.get(kind) for kind in LIMITED_INTERFACES)
    return p, v, e, a


@dataclass(eq=False)
class _Joint:
    """One joint's limiter, its handles and the data objects reused every cycle."""

    name: str
    limiter: JointLimiter
    limits: JointLimits
    states: list[tuple[str, StateInterface]]
    commands: list[tuple[str, CommandInterface]]
    claimed: list[tuple[str, CommandInterface]] = field(default_factory=list)
    # the same handles by kind, in LIMITED_INTERFACES order (None: absent, or not claimed):
    # the loop reads and writes the data objects' attributes by name, not through setattr
    state_by_kind: _ByKind = (None, None, None, None)
    claimed_by_kind: _ByKind = (None, None, None, None)
    actual: JointControlInterfacesData = field(default_factory=JointControlInterfacesData)
    desired: JointControlInterfacesData = field(default_factory=JointControlInterfacesData)
    out_of_bounds_reported: bool = False
    failure_reported: bool = False


class CommandLimits:
    """The limiters of every limited joint, bound to the resource manager's handles."""

    def __init__(
        self,
        joints: list[_Joint],
        log_rt: Callable[[str, str], None],
        *,
        vector_min_joints: int = N_VECTOR,
        hold: Callable[[CommandInterface], float] | None = None,
    ) -> None:
        """`vector_min_joints`: fewest qualifying joints for the numpy batch; `hold`: the
        value a command gets when its limiter fails (default: 0, the measured position for
        a position command)."""
        self._joints = joints
        self._log_rt = log_rt
        self._hold = hold
        self._vector_min_joints = vector_min_joints
        # what the loop limits, swapped as one tuple: the joints with a claimed command that
        # are limited one by one, and the batch of the others (None: no batch)
        self._plan: tuple[list[_Joint], _JointBatch | None] = ([], None)

    @classmethod
    def build(
        cls,
        components: Any,
        state_interfaces: Mapping[str, StateInterface],
        command_interfaces: Mapping[str, CommandInterface],
        parameters: Mapping[str, object],
        log_rt: Callable[[str, str], None],
        *,
        vector_min_joints: int = N_VECTOR,
        hold: Callable[[CommandInterface], float] | None = None,
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
                joint.state_by_kind = _by_kind(states)
                joint.actual.joint_name = joint.desired.joint_name = comp.name
                joints.append(joint)
        unknown = sorted(
            {key.split('.')[1] for key in parameters if key.startswith('joint_limits.')} - known
        )
        if unknown:
            raise ValueError(f'joint_limits parameters name joints no hardware has: {unknown}')
        return cls(joints, log_rt, vector_min_joints=vector_min_joints, hold=hold)

    @property
    def joint_names(self) -> list[str]:
        """The joints with a limiter."""
        return [j.name for j in self._joints]

    @property
    def batched_joints(self) -> list[str]:
        """The joints limited by the numpy batch (set by `refresh_claims`)."""
        batch = self._plan[1]
        return [] if batch is None else [j.name for j in batch.joints]

    def limiter(self, joint: str) -> JointLimiter:
        """The limiter of `joint` (KeyError if it has none).

        For a joint on the batch, the batch's previous command is first copied into it, and
        whatever it holds at the next `enforce` (limits, previous command: changes made
        through it, e.g. `reset`) is copied back; a reference kept across cycles is not
        updated. Call it under the cycle lock (or with the loop stopped).
        """
        for j in self._joints:
            if j.name == joint:
                batch = self._plan[1]
                if batch is not None:
                    batch.lend(joint)
                return j.limiter
        raise KeyError(joint)

    def refresh_claims(self, claimed: Mapping[str, str]) -> None:
        """Which commands count as desired: the claimed ones (call when claims change, not
        from the loop); decides which joints go on the batch."""
        due = []
        for j in self._joints:
            j.claimed = [(kind, h) for kind, h in j.commands if h.name in claimed]
            j.claimed_by_kind = _by_kind(j.claimed)
            j.failure_reported = False
            if j.claimed:
                due.append(j)
        old = self._plan[1]
        if old is not None:
            old.save_prev()
        batched = [j for j in due if _batchable(j)]
        if batched and len(batched) >= self._vector_min_joints:
            members = set(batched)
            self._plan = ([j for j in due if j not in members], _JointBatch(batched))
        else:
            self._plan = (due, None)

    def reset(self) -> None:
        """Forget every previous command (after a command mode switch)."""
        for j in self._joints:
            j.limiter.reset()
        batch = self._plan[1]
        if batch is not None:
            batch.batch.reset()

    def enforce(self, dt_s: float) -> None:
        """Clamp every claimed command of every joint in place (loop thread)."""
        due, batch = self._plan
        for j in due:
            self._enforce_joint(j, dt_s)
        if batch is not None:
            batch.enforce(dt_s, self)

    def _enforce_joint(self, j: _Joint, dt_s: float) -> None:
        """Limit one joint with its own limiter: read, enforce, write back if changed."""
        actual, desired = j.actual, j.desired
        sp, sv, se, sa = j.state_by_kind
        if sp is not None:
            actual.position = sp.value
        if sv is not None:
            actual.velocity = sv.value
        if se is not None:
            actual.effort = se.value
        if sa is not None:
            actual.acceleration = sa.value
        cp, cv, ce, ca = j.claimed_by_kind
        desired.position = None if cp is None else cp.value
        desired.velocity = None if cv is None else cv.value
        desired.effort = None if ce is None else ce.value
        desired.acceleration = None if ca is None else ca.value
        desired.jerk = None
        try:
            limiter = j.limiter
            if type(limiter) is JointSaturationLimiter:  # compiled: a native call, no boxing
                changed = cast(JointSaturationLimiter, limiter).enforce(actual, desired, dt_s)
            else:
                changed = limiter.enforce(actual, desired, dt_s)
            if j.out_of_bounds_reported:
                j.out_of_bounds_reported = False
        except JointPositionOutOfBoundsError as exc:
            try:
                changed = self._back_into_limits(j, exc, dt_s)
            except Exception as again:
                self.hold_joint(j, again)
                return
        except Exception as exc:  # a limiter bug must not stop the loop: hold the joint
            self.hold_joint(j, exc)
            return
        if changed:
            if cp is not None:
                cp.value = desired.position
            if cv is not None:
                cv.value = desired.velocity
            if ce is not None:
                ce.value = desired.effort
            if ca is not None:
                ca.value = desired.acceleration

    def hold_joint(self, j: _Joint, exc: Exception | None) -> None:
        """Limits fail closed: `j`'s claimed commands go to their hold values (`exc` logged
        once per claim; None: the caller reported it)."""
        if exc is not None and not j.failure_reported:
            j.failure_reported = True
            self._log_rt(
                'error',
                f"joint '{j.name}': the limiter raised {exc!r}; its commands are held "
                '(position where it is, velocity/effort/acceleration 0)',
            )
        hold = self._hold
        for kind, handle in j.claimed:
            if hold is not None:
                handle.value = hold(handle)
            elif kind == 'position':
                handle.value = _measured_position(j)
            else:
                handle.value = 0.0

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
        j.limiter.enforce(j.actual, desired, dt_s)  # raising: the caller holds the joint
        desired.position = position
        return True


def _measured_position(j: _Joint) -> float:
    """The joint's measured position when it has a finite one, else 0."""
    for kind, handle in j.states:
        value = handle.value
        if kind == 'position' and isinstance(value, float) and math.isfinite(value):
            return value
    return 0.0


def _handles(table: Mapping[str, Any], joint: str) -> list[tuple[str, Any]]:
    return [(k, table[f'{joint}/{k}']) for k in LIMITED_INTERFACES if f'{joint}/{k}' in table]


def _batchable(j: _Joint) -> bool:
    """A plain saturation limiter (not soft) and claimed commands the batch limits."""
    return type(j.limiter) is JointSaturationLimiter and all(
        kind in BATCH_KINDS for kind, _ in j.claimed
    )


class _JointBatch:
    """The joints on a SaturationBatch, their handles gathered into its arrays.

    The batch owns the previous position/velocity/effort commands of its joints; their
    scalar limiters get them (`save_prev`) when the batch is dropped, when one is lent out
    (`CommandLimits.limiter`) and around the scalar handling of a joint measured far out of
    its position limits, and give theirs back when the batch is built or after a loan.
    """

    def __init__(self, joints: list[_Joint]) -> None:
        self.joints = joints
        self._index = {j.name: i for i, j in enumerate(joints)}
        n = len(joints)
        # `_batchable` checked the type
        self._limiters = [cast(JointSaturationLimiter, j.limiter) for j in joints]
        self.batch = SaturationBatch(
            [j.name for j in joints],
            [limiter.limits for limiter in self._limiters],
            states=[[k for k, _ in j.states] for j in joints],
            commands=[[k for k, _ in j.claimed] for j in joints],
        )
        self._states: list[list[Any]] = [[None] * n for _ in BATCH_KINDS]
        self._commands: list[list[Any]] = [[None] * n for _ in BATCH_KINDS]
        for i, j in enumerate(joints):
            self.batch.set_prev_command(i, self._limiters[i].prev_command)
            for row, kind in enumerate(BATCH_KINDS):
                self._states[row][i] = next((h for k, h in j.states if k == kind), None)
                self._commands[row][i] = next((h for k, h in j.claimed if k == kind), None)
        self._command_handles = [h for row in self._commands for h in row]  # desired.ravel()
        self._all_states = self._layout(np.ones((3, n), bool))  # while seeding
        self._used_states = self._layout(self.batch.actual_used)
        self._lent: list[int] = []
        self._failure_reported = False  # once per batch: a new one comes with new claims
        self._reported = [i for i, j in enumerate(joints) if j.out_of_bounds_reported]

    def _layout(self, states: np.ndarray) -> tuple[list[Any], np.ndarray, np.ndarray, np.ndarray]:
        """The handles to read each cycle (the `states` entries present, every command), a
        buffer for their values with a NaN slot at the end, and where each of the batch's
        `actual` and `desired` entries comes from (the NaN slot: not read)."""
        handles: list[Any] = []
        gather = np.zeros((6, len(self.joints)), np.intp)
        for row, (state_row, command_row) in enumerate(zip(self._states, self._commands)):
            for i, (state, command) in enumerate(zip(state_row, command_row)):
                read = state if states[row, i] else None
                for at, handle in ((row, read), (3 + row, command)):
                    gather[at, i] = -1 if handle is None else len(handles)
                    if handle is not None:
                        handles.append(handle)
        gather[gather < 0] = len(handles)
        return handles, np.full(len(handles) + 1, np.nan), gather[:3].copy(), gather[3:].copy()

    def save_prev(self) -> None:
        """Copy the batch's previous commands into the scalar limiters (after taking back
        what was changed through a lent one)."""
        self._take_back()
        for i, limiter in enumerate(self._limiters):
            limiter.configure(self.batch.prev_command(i))

    def lend(self, joint: str) -> None:
        """`joint`'s limiter is handed out: bring it up to date, take it back next cycle
        (nothing for a joint not on the batch)."""
        i = self._index.get(joint)
        if i is not None:
            self._limiters[i].configure(self.batch.prev_command(i))
            self._lent.append(i)

    def _take_back(self) -> None:
        lent, self._lent = self._lent, []
        for i in lent:
            limiter = self._limiters[i]
            if limiter.limits != self.batch.limits(i):
                self.batch.set_limits(i, limiter.limits)
                self._used_states = self._layout(self.batch.actual_used)
            self.batch.set_prev_command(i, limiter.prev_command)

    def enforce(self, dt_s: float, owner: CommandLimits) -> None:
        """Read every handle, limit, write back the changed commands (loop thread)."""
        if self._lent:
            self._take_back()
        batch = self.batch
        handles, buffer, actual, desired = self._all_states if batch.seeding else self._used_states
        try:  # a value numpy cannot read, or a limiter bug, must not stop the loop
            buffer[:-1] = [h.value for h in handles]
            np.take(buffer, actual, out=batch.actual)
            np.take(buffer, desired, out=batch.desired)
            pending = batch.enforce(dt_s)
        except Exception as exc:  # fail closed: hold every joint of the batch
            if not self._failure_reported:
                self._failure_reported = True
                owner._log_rt(
                    'error',
                    f'joint limits of {len(self.joints)} joints raised {exc!r}; their '
                    'commands are held (position where it is, velocity/effort 0)',
                )
            for j in self.joints:
                owner.hold_joint(j, None)
            return
        if self._reported:  # the scalar limiter's flag clears when enforce does not raise
            oob = batch.out_of_bounds
            for i in self._reported:
                if not oob[i]:
                    self.joints[i].out_of_bounds_reported = False
            self._reported = []
        if not pending:
            return
        moved = np.flatnonzero(batch.changed)
        if moved.size:
            handles = self._command_handles
            for k, value in zip(moved.tolist(), batch.desired.take(moved).tolist()):
                handles[k].value = value
        if batch.out_of_bounds.any():
            self._out_of_bounds(dt_s, owner)

    def _out_of_bounds(self, dt_s: float, owner: CommandLimits) -> None:
        """The joints measured far out of their limits: limited one by one, as without the
        batch (the same clamping and log), the batch then taking their previous command."""
        batch = self.batch
        for i in np.flatnonzero(batch.out_of_bounds).tolist():
            j, limiter = self.joints[i], self._limiters[i]
            limiter.configure(batch.prev_command(i))
            owner._enforce_joint(j, dt_s)
            batch.set_prev_command(i, limiter.prev_command)
            if j.out_of_bounds_reported:
                self._reported.append(i)
