"""SaturationBatch against JointSaturationLimiter: the same values, bit for bit.

A randomized comparison over many joints and cycles (random limits with missing flags,
measured states with NaN, absent interfaces and positions out of the limits, NaN commands,
bad dt), a few worked cases, and CommandLimits with and without the batch.
"""

from __future__ import annotations

import math
import struct
from types import SimpleNamespace
from typing import cast

import numpy as np
import pytest

from py_controllers.hardware_interface.command_limits import CommandLimits
from py_controllers.hardware_interface.component_info import ComponentInfo, HardwareInfo
from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.joint_limits import (
    JointControlInterfacesData,
    JointLimits,
    JointPositionOutOfBoundsError,
    JointSaturationLimiter,
    SoftJointLimits,
)
from py_controllers.joint_limits.vector_limiter import BATCH_KINDS, SaturationBatch

NAN = math.nan
INF = math.inf


def bits(value: float | None) -> int | None:
    """The float's bit pattern (tells -0.0 from 0.0), None for None."""
    return None if value is None else struct.unpack('<q', struct.pack('<d', value))[0]


def random_limits(rng: np.random.Generator) -> JointLimits:
    """Random valid limits; an unflagged bound holds junk (NaN, negative) to be ignored."""
    junk = [NAN, -1.0, 0.0, INF]
    lim = JointLimits()
    lower = float(rng.choice([rng.uniform(-2.0, 0.5), -INF, 0.0, -0.0]))
    upper = lower + float(rng.choice([rng.uniform(0.0, 3.0), 0.0, -0.0, INF]))
    if math.isinf(lower):
        upper = float(rng.uniform(-1.0, 2.0))
    lim.has_position_limits = bool(rng.random() < 0.75)
    lim.lower, lim.upper = (lower, upper) if lim.has_position_limits else (NAN, -5.0)
    for name, scale in (('velocity', 3.0), ('effort', 5.0), ('acceleration', 40.0)):
        flagged = bool(rng.random() < 0.7)
        setattr(lim, f'has_{name}_limits', flagged)
        value = float(rng.choice([rng.uniform(0.0, scale), 0.0, -0.0, INF, scale]))
        setattr(lim, name, value if flagged else float(rng.choice(junk)))
    return lim


def ranges(limits: list[JointLimits]) -> np.ndarray:
    """Per kind (rows BATCH_KINDS) and joint, the interval the random values are drawn
    around: the position limits, +-max_velocity, +-max_effort (+-1 where unset)."""

    def interval(flag: bool, lo: float, hi: float) -> tuple[float, float]:
        if not flag:
            return -1.0, 1.0
        lo = lo if math.isfinite(lo) else min(-1.0, hi)
        return lo, hi if math.isfinite(hi) else max(1.0, lo)

    return np.array(
        [
            [interval(lim.has_position_limits, lim.lower, lim.upper) for lim in limits],
            [interval(lim.has_velocity_limits, -lim.velocity, lim.velocity) for lim in limits],
            [interval(lim.has_effort_limits, -lim.effort, lim.effort) for lim in limits],
        ]
    ).transpose(2, 0, 1)  # (2, 3, n): lower ends, upper ends


def draw(rng: np.random.Generator, around: np.ndarray) -> np.ndarray:
    """Values (3, n): inside, on, just past (by either position tolerance) or far past the
    interval, anywhere, NaN, +-inf, +-0."""
    lo, hi = around
    shape = lo.shape
    past = rng.choice([0.0, 0.001, 0.002, 0.005, 0.0087, 0.05], shape)  # both tolerances
    anywhere = rng.uniform(-4.0, 4.0, shape) * (hi - lo + 1.0)
    full = np.full(shape, 1.0)
    candidates = np.stack(
        [lo + rng.random(shape) * (hi - lo), lo, hi, hi + past, lo - past, anywhere, anywhere]
        + [full * v for v in (NAN, INF, -INF, 0.0, -0.0)]
    )
    pick = rng.integers(0, len(candidates), shape)
    with np.errstate(invalid='ignore'):
        return np.take_along_axis(candidates, pick[None], 0)[0]


def random_dt(rng: np.random.Generator) -> float:
    return float(rng.choice([0.001, rng.uniform(1e-4, 0.05), 0.0, -0.01, NAN, INF] + [0.01] * 4))


def joint_sets(rng: np.random.Generator, n: int) -> tuple[list[list[str]], list[list[str]]]:
    """Per joint: its state kinds (any, maybe none) and claimed kinds (at least one)."""
    states = [[k for k in BATCH_KINDS if rng.random() < 0.75] for _ in range(n)]
    commands = []
    for _ in range(n):
        kinds = [k for k in BATCH_KINDS if rng.random() < 0.5]
        commands.append(kinds or [str(rng.choice(BATCH_KINDS))])
    return states, commands


def prev_bits(prev: JointControlInterfacesData) -> tuple[int | None, ...]:
    return tuple(bits(getattr(prev, kind)) for kind in (*BATCH_KINDS, 'acceleration', 'jerk'))


@pytest.mark.parametrize('seed', [1, 2, 3])
def test_batch_equals_scalar_limiter_bit_for_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, cycles = 40, 1500
    names = [f'j{i}' for i in range(n)]
    limits = [random_limits(rng) for _ in range(n)]
    around = ranges(limits)
    states, commands = joint_sets(rng, n)
    scalar = [JointSaturationLimiter(name, lim) for name, lim in zip(names, limits)]
    batch = SaturationBatch(names, limits, states=states, commands=commands)
    has = {(k, i) for i in range(n) for k in states[i]}
    wants = {(k, i) for i in range(n) for k in commands[i]}
    seen = {'changed': 0, 'out_of_bounds': 0, 'bad_dt': 0, 'reset': 0, 'not_seeding': 0}
    for cycle in range(cycles):
        if rng.random() < 0.01:
            seen['reset'] += 1
            batch.reset()
            for limiter in scalar:
                limiter.reset()
        dt_s = random_dt(rng)
        seen['bad_dt'] += not (dt_s > 0.0 and math.isfinite(dt_s))
        measured, given = draw(rng, around), draw(rng, around)
        batch.actual[:] = measured  # entries of interfaces a joint lacks: junk, ignored
        if not batch.seeding:  # and so are the measured values no bound needs
            unused = ~batch.actual_used
            batch.actual[unused] = rng.choice([NAN, INF, 0.0, 9.0], np.count_nonzero(unused))
            seen['not_seeding'] += 1
        batch.desired[:] = given
        rows_a, rows_d = measured.tolist(), given.tolist()
        pending = batch.enforce(dt_s)
        expected = given.copy()
        for i, limiter in enumerate(scalar):
            act = JointControlInterfacesData(names[i])
            des = JointControlInterfacesData(names[i])
            for k, kind in enumerate(BATCH_KINDS):
                if (kind, i) in has:
                    setattr(act, kind, rows_a[k][i])
                if (kind, i) in wants:
                    setattr(des, kind, rows_d[k][i])
            where = (seed, cycle, i, limits[i], act, des, dt_s)  # shown on a failure
            try:
                changed = limiter.enforce(act, des, dt_s)
            except JointPositionOutOfBoundsError:
                assert batch.out_of_bounds[i], where
                batch.set_prev_command(i, limiter.prev_command)  # as CommandLimits does
                seen['out_of_bounds'] += 1
            else:
                assert not batch.out_of_bounds[i], where
                assert bool(batch.changed[:, i].any()) == changed, where
                seen['changed'] += changed
                for k, kind in enumerate(BATCH_KINDS):
                    if (kind, i) in wants:
                        expected[k, i] = getattr(des, kind)
            assert prev_bits(batch.prev_command(i)) == prev_bits(limiter.prev_command), where
        same = batch.desired.view(np.int64) == expected.view(np.int64)
        assert same.all(), [(int(k), int(i)) for k, i in zip(*np.nonzero(~same))]
        moved = batch.desired.view(np.int64) != given.view(np.int64)
        assert (batch.changed == moved).all()
        assert pending == bool(batch.changed.any() or batch.out_of_bounds.any())
    assert min(seen.values()) > 10, seen  # the run went through every branch worth having


def test_a_zero_bound_keeps_the_sign_python_max_gives_it() -> None:
    # at the lower limit with max_velocity 0: lower = max((0.5 - 0.5) / dt, -0.0) = +0.0
    # (Python's max keeps the first of equal values); a command of -1 becomes +0.0
    lim = JointLimits(lower=0.5, upper=1.0, velocity=0.0)
    lim.has_position_limits = lim.has_velocity_limits = True
    batch = SaturationBatch(['j'], [lim], states=[['position']], commands=[['velocity']])
    batch.actual[0, 0], batch.desired[1, 0] = 0.5, -1.0
    assert batch.enforce(0.01)
    assert bits(float(batch.desired[1, 0])) == bits(0.0)
    reference = JointControlInterfacesData('j', velocity=-1.0)
    JointSaturationLimiter('j', lim).enforce(
        JointControlInterfacesData(position=0.5), reference, 0.01
    )
    assert bits(reference.velocity) == bits(0.0)


def test_position_steps_at_most_max_velocity_from_the_actual_position() -> None:
    lim = JointLimits(lower=-1.0, upper=1.0, velocity=2.0)
    lim.has_position_limits = lim.has_velocity_limits = True
    batch = SaturationBatch(
        ['a', 'b'], [lim, lim], states=[['position']] * 2, commands=[['position']] * 2
    )
    batch.actual[0] = [0.0, 0.5]
    batch.desired[0] = [10.0, NAN]
    assert batch.enforce(0.01)
    assert batch.desired[0, 0] == pytest.approx(0.02)  # 0 (seeded from actual) + 2 * 0.01
    assert math.isnan(batch.desired[0, 1])  # no command stays no command
    assert batch.prev_command(0).position == batch.desired[0, 0]
    assert batch.prev_command(1).position == 0.5  # seeded from the actual, NaN not taken
    batch.desired[0] = [10.0, 10.0]
    batch.enforce(0.01)
    assert list(batch.desired[0]) == pytest.approx([0.04, 0.52])  # around the previous ones


@pytest.mark.parametrize('dt_s', [0.0, -0.01, NAN, INF])
def test_bad_dt_changes_and_remembers_nothing(dt_s: float) -> None:
    lim = JointLimits(lower=-1.0, upper=1.0, has_position_limits=True)
    batch = SaturationBatch(['j'], [lim], states=[['position']], commands=[['position']])
    batch.actual[0, 0], batch.desired[0, 0] = 0.0, 3.0
    assert not batch.enforce(dt_s)
    assert batch.desired[0, 0] == 3.0 and not batch.prev_command(0).has_data()


def test_a_joint_far_out_is_left_to_the_caller() -> None:
    lim = JointLimits(lower=-1.0, upper=1.0, has_position_limits=True)
    batch = SaturationBatch(['j'], [lim], states=[['position']], commands=[['position']])
    batch.actual[0, 0], batch.desired[0, 0] = 1.5, 3.0  # 0.5 past: the scalar one raises
    assert batch.enforce(0.01)
    assert batch.out_of_bounds[0] and not batch.changed.any()
    assert batch.desired[0, 0] == 3.0 and not batch.prev_command(0).has_data()
    batch.actual[0, 0] = 1.005  # within OUT_OF_BOUNDS_EXCEPTION_TOLERANCE: limited here
    batch.enforce(0.01)
    assert not batch.out_of_bounds[0] and batch.desired[0, 0] == 1.0


def test_rows_nothing_limits_are_left_alone() -> None:
    vel = JointLimits(velocity=1.0, has_velocity_limits=True)
    batch = SaturationBatch(['a', 'b'], [vel, vel], states=[[]] * 2, commands=[['position']] * 2)
    batch.desired[:] = [[0.5, 0.5], [5.0, -5.0], [7.0, 7.0]]  # velocity, effort: not claimed
    batch.enforce(0.01)
    assert batch.desired.tolist() == [[0.5, 0.5], [5.0, -5.0], [7.0, 7.0]]
    batch = SaturationBatch(['a', 'b'], [vel, vel], states=[[]] * 2, commands=[['velocity']] * 2)
    batch.desired[1] = [5.0, -5.0]
    batch.enforce(0.01)
    assert batch.desired[1].tolist() == [1.0, -1.0]
    batch.set_limits(0, JointLimits())  # no limits left on a: its row is no longer limited
    batch.set_limits(1, JointLimits())
    batch.desired[1] = [5.0, -5.0]
    assert not batch.enforce(0.01)
    assert batch.desired[1].tolist() == [5.0, -5.0]


def test_acceleration_commands_are_not_taken() -> None:
    with pytest.raises(ValueError, match=r"joint 'j'.*acceleration"):
        SaturationBatch(['j'], [JointLimits()], states=[[]], commands=[['acceleration']])


# --- CommandLimits with and without the batch ----------------------------------------------


KINDS = ('position', 'velocity', 'effort', 'acceleration')


def command_limits(
    seed: int, vector_min_joints: int
) -> tuple[CommandLimits, list[list[StateInterface | None]], list[list[CommandInterface]], list]:
    """50 random joints on one component, some with soft limits; the limits, per kind and
    joint the state handles (None: absent) and the command handles, and the log."""
    rng = np.random.default_rng(seed)
    info = HardwareInfo(name='Arm')
    states: dict[str, StateInterface] = {}
    commands: dict[str, CommandInterface] = {}
    for i in range(50):
        name = f'j{i}'
        info.joints.append(ComponentInfo(name=name))
        info.limits[name] = random_limits(rng)
        if i % 10 == 3:
            info.soft_limits[name] = SoftJointLimits(-0.5, 0.5, 10.0, 5.0)
        for kind in KINDS:
            if rng.random() < 0.8:
                states[f'{name}/{kind}'] = StateInterface(name, kind)
            commands[f'{name}/{kind}'] = CommandInterface(name, kind)
    logs: list[tuple[str, str]] = []
    limits = CommandLimits.build(
        [SimpleNamespace(info=info)],
        states,
        commands,
        {},
        lambda *entry: logs.append(entry),
        vector_min_joints=vector_min_joints,
    )
    state_rows = [[states.get(f'j{i}/{kind}') for i in range(50)] for kind in KINDS]
    command_rows = [[commands[f'j{i}/{kind}'] for i in range(50)] for kind in KINDS]
    return limits, state_rows, command_rows, logs


@pytest.mark.parametrize('seed', [5, 6])
def test_command_limits_give_the_same_values_with_the_batch(seed: int) -> None:
    scalar, scalar_states, scalar_commands, scalar_logs = command_limits(seed, 10**9)
    batched, states, commands, logs = command_limits(seed, 1)
    names = scalar.joint_names
    around = ranges([cast(JointSaturationLimiter, scalar.limiter(n)).limits for n in names])
    rng = np.random.default_rng(seed + 100)
    fallbacks = 0
    for cycle in range(600):
        if cycle % 150 == 0:  # new claims: joints move between the batch and the scalar path
            for name in rng.choice(names, 3).tolist():  # changed through a lent limiter first
                batched.limiter(name).reset()
                scalar.limiter(name).reset()
            claimed = {
                f'{name}/{kind}': 'c'
                for name in names
                for kind in KINDS
                if rng.random() < (0.5 if kind != 'acceleration' else 0.05)
            }
            scalar.refresh_claims(claimed)
            batched.refresh_claims(claimed)
            assert len(batched.batched_joints) > 25 and not scalar.batched_joints
        if rng.random() < 0.02:
            scalar.reset()
            batched.reset()
        for rows, values in ((scalar_states, states), (scalar_commands, commands)):
            drawn = np.vstack([draw(rng, around), rng.uniform(-5.0, 5.0, (1, 50))]).tolist()
            for k in range(4):
                for mine, theirs, value in zip(values[k], rows[k], drawn[k]):
                    if mine is not None and theirs is not None:
                        mine.value = theirs.value = value
        dt_s = random_dt(rng)
        logged = len(logs)
        scalar.enforce(dt_s)
        batched.enforce(dt_s)
        for k in range(4):
            got = [bits(h.value) for h in commands[k]]
            assert got == [bits(h.value) for h in scalar_commands[k]], (cycle, KINDS[k])
        assert sorted(logs) == sorted(scalar_logs), cycle  # in another order: batch last
        on_batch = set(batched.batched_joints)
        fallbacks += sum(text.split("'")[1] in on_batch for _, text in logs[logged:])
        if cycle % 50 == 30:  # lends the limiters out: the batch takes them back
            for name in names:
                mine = cast(JointSaturationLimiter, batched.limiter(name))
                theirs = cast(JointSaturationLimiter, scalar.limiter(name))
                assert prev_bits(mine.prev_command) == prev_bits(theirs.prev_command), name
            for name in rng.choice(names, 3).tolist():  # changed through the limiter
                if rng.random() < 0.5:
                    limits = random_limits(rng)
                    for owner in (batched, scalar):
                        cast(JointSaturationLimiter, owner.limiter(name)).set_limits(limits)
                else:
                    batched.limiter(name).reset()
                    scalar.limiter(name).reset()
    assert fallbacks > 3  # batch joints measured far out went through the scalar handling
