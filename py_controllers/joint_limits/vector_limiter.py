"""Saturation limiting for many joints at once: `JointSaturationLimiter.enforce` on
position, velocity and effort commands, vectorized with numpy.

Value for value the same as the scalar limiter called per joint (test_vector_limiter.py
checks it bit for bit on random joints): the same float operations in the same order,
Python's `min`/`max` tie rule (the first argument wins, which decides the sign of a zero)
written as selections, NaN commands left NaN, a NaN command leaving the previous one.
Left to the caller:
- acceleration and jerk commands (refused), and joints with soft limits (the soft limiter's
  bounds are not computed here);
- a joint for which the scalar limiter would raise JointPositionOutOfBoundsError (a position
  command while measured beyond OUT_OF_BOUNDS_EXCEPTION_TOLERANCE): `enforce` leaves its
  commands and previous command untouched and flags it in `out_of_bounds`; the caller
  limits it with the scalar limiter and hands the result back with `set_prev_command`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Sequence

import numpy as np

from py_controllers.joint_limits.data import JointControlInterfacesData
from py_controllers.joint_limits.helpers import (
    OUT_OF_BOUNDS_EXCEPTION_TOLERANCE,
    POSITION_BOUNDS_TOLERANCE,
)
from py_controllers.joint_limits.limits import JointLimits, validate_joint_limits

# The interface kinds the batch limits, in the order of the rows of its arrays.
BATCH_KINDS = ('position', 'velocity', 'effort')
_NAN = math.nan
_INF = math.inf


class SaturationBatch:
    """The saturation limiter of a fixed group of joints, one numpy row per interface kind.

    Per cycle the caller writes the measured values into `actual` and the commands into
    `desired` (shape (3, n), rows `BATCH_KINDS`; NaN: not measured / no command; entries of
    interfaces a joint lacks are ignored, and so are those outside `actual_used` unless
    `seeding`), calls `enforce(dt_s)`, and reads the clamped commands back from `desired`
    (`changed` marks the values that moved, `out_of_bounds` the joints left to the caller).
    Arrays are allocated once; `enforce` is for the loop, everything else is not.
    """

    def __init__(
        self,
        joint_names: Sequence[str],
        limits: Sequence[JointLimits],
        *,
        states: Sequence[Collection[str]],
        commands: Sequence[Collection[str]],
    ) -> None:
        """`states[i]` / `commands[i]`: the interface kinds joint i has / has claimed.

        Raises InvalidJointLimitsError like the scalar limiter, ValueError for a command kind
        outside BATCH_KINDS or mismatched lengths.
        """
        n = len(joint_names)
        if not len(limits) == len(states) == len(commands) == n:
            raise ValueError('joint_names, limits, states and commands differ in length')
        for name, joint_limits, kinds in zip(joint_names, limits, commands):
            validate_joint_limits(name, joint_limits)
            extra = sorted(set(kinds) - set(BATCH_KINDS))
            if extra:
                raise ValueError(f"joint '{name}': {extra} commands are not limited in a batch")
        self._names = list(joint_names)
        self._limits = [dataclasses.replace(lim) for lim in limits]
        self._has_state = np.array([[k in s for s in states] for k in BATCH_KINDS], bool)
        self._has_cmd = np.array([[k in c for c in commands] for k in BATCH_KINDS], bool)
        self._no_state = ~self._has_state
        self._any_absent_state = bool(self._no_state.any())
        self.actual = np.full((3, n), _NAN)
        self.desired = np.full((3, n), _NAN)
        self.changed = np.zeros((3, n), bool)
        self.out_of_bounds = np.zeros(n, bool)
        self._lo = np.empty((3, n))
        self._hi = np.empty((3, n))
        self._speed = np.zeros(n)
        # previous command: values (NaN where unset), which are set, and the acceleration
        # and jerk the scalar limiter had remembered (kept for it, unused here)
        self._prev = np.full((3, n), _NAN)
        self._prev_set = np.zeros((3, n), bool)
        self._prev_extra: list[tuple[float | None, float | None]] = [(None, None)] * n
        self._prev_other = np.zeros(n, bool)
        self._seeded = np.zeros(n, bool)  # the scalar limiter's prev.has_data()
        self._unseeded = n > 0
        self._derive()

    def _derive(self) -> None:
        """The arrays that depend on the limits and interfaces only (not in the loop).

        Each row's bounds are built unbounded (-inf, inf) where the row is not limited (no
        command, no limit), so the loop clamps all rows without masking them.
        """

        def values(attr: str) -> np.ndarray:
            return np.array([getattr(lim, attr) for lim in self._limits], float)

        def flags(attr: str) -> np.ndarray:
            return np.array([getattr(lim, attr) for lim in self._limits], bool)

        has_pos, has_vel = flags('has_position_limits'), flags('has_velocity_limits')
        has_eff, has_acc = flags('has_effort_limits'), flags('has_acceleration_limits')
        lower, upper = values('lower'), values('upper')
        vel, eff, acc = values('velocity'), values('effort'), values('acceleration')
        cmd, state = self._has_cmd, self._has_state
        rows = (cmd[0], cmd[1] & has_vel, cmd[2] & has_eff)  # the rows limited at all
        self._blocks = tuple(bool(row.any()) for row in rows)
        self._lower, self._upper, self._vel, self._neg_vel, self._acc = lower, upper, vel, -vel, acc
        # position: the check, the static bounds, the velocity band and its speed
        checks = has_pos & cmd[0] & state[0]
        self._any_check = bool(checks.any())
        self._upper_oob = np.where(checks, upper + OUT_OF_BOUNDS_EXCEPTION_TOLERANCE, _INF)
        self._lower_oob = np.where(checks, lower - OUT_OF_BOUNDS_EXCEPTION_TOLERANCE, -_INF)
        self._pos_lo0 = np.where(has_pos & rows[0], lower, -_INF)
        self._pos_hi0 = np.where(has_pos & rows[0], upper, _INF)
        self._pos_band = has_vel & rows[0]
        self._acc_no_vel_state = self._pos_band & has_acc & ~state[1]
        self._acc_vel_state = self._pos_band & has_acc & state[1]
        self._any_acc_no_vel_state = bool(self._acc_no_vel_state.any())
        self._any_acc_vel_state = bool(self._acc_vel_state.any())
        # velocity
        self._vel_lo0 = np.where(rows[1], -vel, -_INF)
        self._vel_hi0 = np.where(rows[1], vel, _INF)
        self._upper_tol = upper + POSITION_BOUNDS_TOLERANCE
        self._lower_tol = lower - POSITION_BOUNDS_TOLERANCE
        self._vel_pos = rows[1] & has_pos
        self._vel_acc = rows[1] & has_acc
        self._any_vel_pos = bool(self._vel_pos.any())
        self._any_vel_acc = bool(self._vel_acc.any())
        # effort
        self._eff_lo0 = np.where(rows[2], -eff, -_INF)
        self._eff_hi0 = np.where(rows[2], eff, _INF)
        self._eff_pos = rows[2] & has_pos
        self._eff_vel = rows[2] & has_vel
        self._any_eff_pos = bool(self._eff_pos.any())
        self._any_eff_vel = bool(self._eff_vel.any())
        # seeding, and which measured values the bounds read
        self._seed_from_actual = cmd & state
        self._seed_from_desired = cmd & ~state
        self._lo.fill(-_INF)  # rows no block computes stay unbounded
        self._hi.fill(_INF)
        self.out_of_bounds.fill(False)  # not rewritten while nothing is checked
        self.actual_used = state & np.stack(
            [
                checks | self._pos_band | self._vel_pos | self._eff_pos,
                self._acc_vel_state | self._eff_pos | self._eff_vel,
                np.zeros_like(checks),
            ]
        )

    @property
    def joint_names(self) -> list[str]:
        """The joints, in the order of the array columns."""
        return list(self._names)

    def limits(self, i: int) -> JointLimits:
        """A copy of joint i's limits."""
        return dataclasses.replace(self._limits[i])

    def set_limits(self, i: int, limits: JointLimits) -> None:
        """New limits for joint i from the next `enforce` (raises InvalidJointLimitsError)."""
        validate_joint_limits(self._names[i], limits)
        self._limits[i] = dataclasses.replace(limits)
        self._derive()

    def prev_command(self, i: int) -> JointControlInterfacesData:
        """Joint i's previous command, as the scalar limiter's `prev_command` would be."""
        pos, vel, eff = (
            float(self._prev[k, i]) if self._prev_set[k, i] else None for k in range(3)
        )
        acc, jerk = self._prev_extra[i]
        return JointControlInterfacesData(self._names[i], pos, vel, eff, acc, jerk)

    def set_prev_command(self, i: int, prev: JointControlInterfacesData) -> None:
        """Take `prev` as joint i's previous command (a scalar limiter's `prev_command`)."""
        for k, kind in enumerate(BATCH_KINDS):
            value = getattr(prev, kind)
            self._prev_set[k, i] = value is not None
            self._prev[k, i] = _NAN if value is None else value
        self._prev_extra[i] = (prev.acceleration, prev.jerk)
        self._prev_other[i] = prev.acceleration is not None or prev.jerk is not None
        self._seeded[i] = prev.has_data()
        self._unseeded = not self._seeded.all()

    @property
    def seeding(self) -> bool:
        """True while a joint's previous command is still to be seeded from the actual
        values: then `enforce` reads every present entry of `actual`, else only those of
        `actual_used` (the others may hold anything)."""
        return self._unseeded

    def reset(self) -> None:
        """Forget every previous command (after a command mode switch)."""
        self._prev.fill(_NAN)
        self._prev_set.fill(False)
        self._prev_extra = [(None, None)] * len(self._names)
        self._prev_other.fill(False)
        self._seeded.fill(False)
        self._unseeded = bool(self._names)

    def enforce(self, dt_s: float) -> bool:
        """Clamp `desired` in place (loop); True if `changed` or `out_of_bounds` has an entry.

        A `dt_s` that is not a positive finite number changes nothing, like the scalar
        limiter (no previous command is seeded or remembered either).
        """
        if not (dt_s > 0.0 and math.isfinite(dt_s)) or not self._names:
            self.changed.fill(False)
            self.out_of_bounds.fill(False)
            return False
        with np.errstate(all='ignore'):  # rows a mask leaves out may hold inf - inf
            return self._enforce(float(dt_s))

    def _enforce(self, dt_s: float) -> bool:
        act, des = self.actual, self.desired
        if self._any_absent_state:
            np.copyto(act, _NAN, where=self._no_state)
        ap, av = act[0], act[1]
        oob = self.out_of_bounds
        any_oob = False
        if self._any_check:  # the scalar limiter's check_actual_position
            np.greater(ap, self._upper_oob, out=oob)  # +-inf where nothing is checked
            oob |= ap < self._lower_oob
            if np.count_nonzero(oob):
                oob &= des[0] == des[0]  # a NaN command is no command: no error
                any_oob = bool(np.count_nonzero(oob))
        live = ~oob if any_oob else None
        if self._unseeded:
            self._seed(live)
        lo, hi = self._lo, self._hi
        if self._blocks[0]:
            self._position_bounds(dt_s, ap, av, lo[0], hi[0])
        if self._blocks[1]:
            self._velocity_bounds(dt_s, ap, des[1], lo[1], hi[1])
            swap = lo[1] > hi[1]  # ordered(); the other rows never need it
            if np.count_nonzero(swap):
                was_lo = lo[1].copy()
                np.copyto(lo[1], hi[1], where=swap)
                np.copyto(hi[1], was_lo, where=swap)
        if self._blocks[2]:
            self._effort_bounds(ap, av, lo[2], hi[2])
        below = des < lo  # clamp(): the lower bound first
        above = des > hi
        if live is not None:
            below &= live
            above &= live
        np.copyto(des, lo, where=below)
        np.copyto(des, hi, where=above)
        changed = np.logical_or(below, above, out=self.changed)
        keep = des == des  # update_prev_command: NaN leaves the previous one
        keep &= self._has_cmd
        if live is not None:
            keep &= live
        np.copyto(self._prev, des, where=keep)
        self._prev_set |= keep
        return any_oob or bool(np.count_nonzero(changed))

    def _seed(self, live: np.ndarray | None) -> None:
        """seed_prev_command for the joints whose previous command has no data yet."""
        act, des = self.actual, self.desired
        fresh = ~self._seeded
        if live is not None:
            fresh &= live
        from_actual = self._seed_from_actual & fresh
        from_desired = self._seed_from_desired & fresh
        from_desired &= des == des
        np.copyto(self._prev, act, where=from_actual)
        np.copyto(self._prev, des, where=from_desired)
        self._prev_set |= from_actual
        self._prev_set |= from_desired
        np.logical_or(self._prev_set.any(axis=0), self._prev_other, out=self._seeded)
        self._unseeded = not self._seeded.all()

    def _position_bounds(
        self, dt_s: float, ap: np.ndarray, av: np.ndarray, lo: np.ndarray, hi: np.ndarray
    ) -> None:
        """helpers.position_bounds (without the check, done in `_enforce`)."""
        lo0, hi0 = self._pos_lo0, self._pos_hi0
        speed = self._speed
        if self._any_acc_no_vel_state or self._any_acc_vel_state:
            np.copyto(speed, self._vel)
            acc_dt = self._acc * dt_s
            if self._any_acc_no_vel_state:  # speed = min(speed, acc * dt)
                np.copyto(speed, acc_dt, where=self._acc_no_vel_state & (acc_dt < speed))
            if self._any_acc_vel_state:  # speed = min(speed, |v| + acc * dt)
                reach = np.abs(av)
                reach += acc_dt
                take = reach < speed  # false for a NaN velocity: max_velocity stays
                take &= self._acc_vel_state
                np.copyto(speed, reach, where=take)
            step = np.multiply(speed, dt_s, out=speed)
        else:
            step = np.multiply(self._vel, dt_s, out=speed)
        prev = self._prev[0]
        band = np.isfinite(prev)
        ref = np.where(band, prev, ap)  # previous command, else the actual position
        band |= np.isfinite(ap)
        band &= self._pos_band
        new_lo = ref - step  # max(min(ref - step, upper), lower)
        np.copyto(new_lo, hi0, where=hi0 < new_lo)
        np.copyto(new_lo, lo0, where=lo0 > new_lo)
        new_hi = np.add(ref, step, out=ref)  # min(max(ref + step, new_lower), upper)
        np.copyto(new_hi, new_lo, where=new_lo > new_hi)
        np.copyto(new_hi, hi0, where=hi0 < new_hi)
        np.copyto(lo, lo0)
        np.copyto(lo, new_lo, where=band)
        np.copyto(hi, hi0)
        np.copyto(hi, new_hi, where=band)

    def _velocity_bounds(
        self, dt_s: float, ap: np.ndarray, dv: np.ndarray, lo: np.ndarray, hi: np.ndarray
    ) -> None:
        """helpers.velocity_bounds."""
        np.copyto(lo, self._vel_lo0)
        np.copyto(hi, self._vel_hi0)
        if self._any_vel_pos:
            measured = np.isfinite(ap)
            measured &= self._vel_pos
            reach = self._lower - ap  # lower = max((min_position - pos) / dt, lower)
            reach /= dt_s
            take = reach >= lo  # no NaN where measured: `not lo > reach`
            take &= measured
            np.copyto(lo, reach, where=take)
            reach = self._upper - ap  # upper = min((max_position - pos) / dt, upper)
            reach /= dt_s
            take = reach <= hi
            take &= measured
            np.copyto(hi, reach, where=take)
            outside = (ap > self._upper) | (ap < self._lower)
            outside &= measured
            if np.count_nonzero(outside):
                pushing_up = (ap < self._upper_tol) & (ap > self._lower) & (dv >= 0.0)
                pushing_down = (ap > self._lower_tol) & (ap < self._upper) & (dv <= 0.0)
                far_out = (ap > self._upper_tol) | (ap < self._lower_tol)
                zero = pushing_up | pushing_down | far_out
                zero &= outside
                np.copyto(lo, 0.0, where=zero)
                np.copyto(hi, 0.0, where=zero)
        if self._any_vel_acc:  # the acceleration step around the previous velocity
            prev = self._prev[1]
            usable = np.isfinite(prev)
            usable &= self._vel_acc
            step = self._acc * dt_s
            bound = prev - step
            take = bound >= lo
            take &= usable
            np.copyto(lo, bound, where=take)
            bound = np.add(prev, step, out=bound)
            take = bound <= hi
            take &= usable
            np.copyto(hi, bound, where=take)

    def _effort_bounds(
        self, ap: np.ndarray, av: np.ndarray, lo: np.ndarray, hi: np.ndarray
    ) -> None:
        """helpers.effort_bounds (NaN state values compare false: they close nothing)."""
        np.copyto(lo, self._eff_lo0)
        np.copyto(hi, self._eff_hi0)
        if self._any_eff_pos:
            at_lower = (ap <= self._lower) & (av <= 0.0)
            at_lower &= self._eff_pos
            at_upper = (ap >= self._upper) & (av >= 0.0)
            at_upper &= self._eff_pos
            at_upper &= ~at_lower  # elif
            np.copyto(lo, 0.0, where=at_lower)
            np.copyto(hi, 0.0, where=at_upper)
        if self._any_eff_vel:
            too_fast_down = av < self._neg_vel
            too_fast_down &= self._eff_vel
            too_fast_up = av > self._vel
            too_fast_up &= self._eff_vel
            too_fast_up &= ~too_fast_down  # elif
            np.copyto(lo, 0.0, where=too_fast_down)
            np.copyto(hi, 0.0, where=too_fast_up)
