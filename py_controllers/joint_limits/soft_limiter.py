"""Soft limiter: the saturation limiter plus the `<safety_controller>` soft bounds.

Mirrors upstream's `JointSoftLimiter`, which the resource manager uses instead of the
saturation limiter for every joint that has soft limits (a URDF `<safety_controller>`).
The soft bounds follow the classic safety-controller law: near a soft position limit the
allowed velocity shrinks as k_position * (distance to the soft limit), and the allowed
effort as k_velocity * (velocity margin to the allowed velocity).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Final

from py_controllers.joint_limits.data import JointControlInterfacesData
from py_controllers.joint_limits.helpers import (
    POSITION_BOUNDS_TOLERANCE,
    Bounds,
    clamp,
    effort_bounds,
    finite,
    known,
    position_bounds,
    seed_prev_command,
    update_prev_command,
    velocity_bounds,
)
from py_controllers.joint_limits.limits import JointLimits, SoftJointLimits
from py_controllers.joint_limits.saturation_limiter import (
    JointLimiter,
    JointSaturationLimiter,
    apply_bounds,
    limit_acceleration_and_jerk,
)

VALUE_CONSIDERED_ZERO: Final = 1e-10
# Velocity allowed back towards the soft range when the joint is measured outside it (1 deg/s).
SOFT_LIMIT_REACH_VELOCITY: Final = math.radians(1.0)
_INF: Final = math.inf


def has_soft_position_limits(soft: SoftJointLimits) -> bool:
    """True for a finite, non-empty soft position range."""
    return (
        math.isfinite(soft.min_position)
        and math.isfinite(soft.max_position)
        and soft.max_position - soft.min_position > VALUE_CONSIDERED_ZERO
    )


def has_soft_limits(soft: SoftJointLimits) -> bool:
    """True when the soft velocity bounds apply: a soft range and a finite, non-zero k_position."""
    return (
        has_soft_position_limits(soft)
        and math.isfinite(soft.k_position)
        and abs(soft.k_position) > VALUE_CONSIDERED_ZERO
    )


def _or_else(value: float, fallback: float) -> float:
    """`value`, or `fallback` when it is NaN (0 * inf in a soft bound)."""
    return fallback if math.isnan(value) else value


class JointSoftLimiter(JointSaturationLimiter):
    """Clamp one joint's commands into its hard limits and its soft-limit bounds.

    With velocity limits, the allowed velocity is
    [-k_position * (p - soft_min), -k_position * (p - soft_max)] clipped to ±max_velocity,
    where p is the previous position command (else the actual position); it is [0, 0] when
    the measured position is beyond a hard limit by more than POSITION_BOUNDS_TOLERANCE,
    and ±1 deg/s (back inwards) when it is measured outside the soft range. A position
    command must lie in the soft range, reachable at that allowed velocity in `dt_s`, and
    within the saturation limiter's position bounds (if these two do not overlap, the soft
    band alone applies, as upstream). Velocity commands get the allowed velocity, also
    within actual velocity ± max_acceleration * dt_s and the saturation velocity bounds.
    With effort limits and a finite k_velocity, the effort is bounded by
    -k_velocity * (v - allowed velocity bound), v the actual velocity. Acceleration and jerk
    are limited as by the saturation limiter; NaN commands stay NaN.
    """

    def __init__(
        self, joint_name: str, limits: JointLimits, soft_limits: SoftJointLimits | None = None
    ) -> None:
        """Raises InvalidJointLimitsError like JointSaturationLimiter."""
        super().__init__(joint_name, limits)
        self._soft = dataclasses.replace(soft_limits) if soft_limits else SoftJointLimits()

    @property
    def soft_limits(self) -> SoftJointLimits:
        """A copy of the soft limits in use."""
        return dataclasses.replace(self._soft)

    def set_soft_limits(self, soft_limits: SoftJointLimits) -> None:
        """Use new soft limits from the next `enforce` on."""
        self._soft = dataclasses.replace(soft_limits)

    def enforce(
        self,
        actual: JointControlInterfacesData,
        desired: JointControlInterfacesData,
        dt_s: float,
    ) -> bool:
        """Clamp `desired` in place; True if any value changed. `dt_s` and errors as in
        JointSaturationLimiter.enforce."""
        if not (dt_s > 0.0 and math.isfinite(dt_s)):
            return False
        hard, soft = self._limits, self._soft
        prev = self._prev
        if not prev.has_data():
            seed_prev_command(prev, actual, desired)
        # Reference for the soft band: the previous command, else the actual position.
        reference = prev.position if finite(prev.position) else actual.position
        # Position used to decide whether the joint is outside its (soft) limits.
        measured = actual.position
        if measured is None and finite(prev.position):
            measured = prev.position
        vel_lo, vel_hi = self._soft_velocity_bounds(hard, soft, reference, measured)
        changed = False
        if known(desired.position):
            hard_bounds = position_bounds(
                self._joint_name, hard, actual.velocity, actual.position, prev.position, dt_s
            )
            lo, hi = (
                (soft.min_position, soft.max_position)
                if has_soft_position_limits(soft)
                else (-_INF, _INF)
            )
            if hard.has_velocity_limits and finite(reference):
                lo = clamp(reference + vel_lo * dt_s, Bounds(lo, hi))
                hi = clamp(reference + vel_hi * dt_s, Bounds(lo, hi))
            band = Bounds(lo, hi)
            both = Bounds(max(lo, hard_bounds.lower), min(hi, hard_bounds.upper))
            changed = apply_bounds(desired, 'position', band if both.lower > both.upper else both)
        if known(desired.velocity):
            hard_bounds = velocity_bounds(
                self._joint_name, hard, desired.velocity, actual.position, prev.velocity, dt_s
            )
            if (
                hard.has_velocity_limits
                and hard.has_acceleration_limits
                and finite(actual.velocity)
            ):
                vel_lo = max(actual.velocity - hard.acceleration * dt_s, vel_lo)
                vel_hi = min(actual.velocity + hard.acceleration * dt_s, vel_hi)
            vel_lo = max(vel_lo, hard_bounds.lower)
            vel_hi = min(vel_hi, hard_bounds.upper)
            changed = apply_bounds(desired, 'velocity', Bounds(vel_lo, vel_hi)) or changed
        if known(desired.effort):
            bounds = effort_bounds(hard, actual.position, actual.velocity)
            if (
                hard.has_effort_limits
                and math.isfinite(soft.k_velocity)
                and finite(actual.velocity)
            ):
                hard_effort = Bounds(-hard.effort, hard.effort)
                kv, v = soft.k_velocity, actual.velocity
                low = clamp(_or_else(-kv * (v - vel_lo), bounds.lower), hard_effort)
                high = clamp(_or_else(-kv * (v - vel_hi), bounds.upper), hard_effort)
                bounds = Bounds(max(low, bounds.lower), min(high, bounds.upper))
            changed = apply_bounds(desired, 'effort', bounds) or changed
        changed = limit_acceleration_and_jerk(hard, actual, desired) or changed
        update_prev_command(desired, prev)
        return changed

    @staticmethod
    def _soft_velocity_bounds(
        hard: JointLimits,
        soft: SoftJointLimits,
        reference: float | None,
        measured: float | None,
    ) -> tuple[float, float]:
        """Velocity allowed by the hard velocity limit and the soft position law."""
        if not hard.has_velocity_limits:
            return -_INF, _INF
        vmax = hard.velocity
        lo, hi = -vmax, vmax
        if not (hard.has_position_limits and has_soft_limits(soft) and finite(reference)):
            return lo, hi
        kp, hard_velocity = soft.k_position, Bounds(-vmax, vmax)
        lo = clamp(-kp * (reference - soft.min_position), hard_velocity)
        hi = clamp(-kp * (reference - soft.max_position), hard_velocity)
        if finite(measured) and (
            measured < hard.lower - POSITION_BOUNDS_TOLERANCE
            or measured > hard.upper + POSITION_BOUNDS_TOLERANCE
        ):
            return 0.0, 0.0
        if known(measured) and (measured < soft.min_position or measured > soft.max_position):
            return (
                math.copysign(SOFT_LIMIT_REACH_VELOCITY, lo),
                math.copysign(SOFT_LIMIT_REACH_VELOCITY, hi),
            )
        return lo, hi


def make_joint_limiter(
    joint_name: str, limits: JointLimits, soft_limits: SoftJointLimits | None = None
) -> JointLimiter:
    """A JointSoftLimiter when soft limits are given, else a JointSaturationLimiter (the
    choice upstream's resource manager makes per joint). Raises InvalidJointLimitsError."""
    if soft_limits is not None:
        return JointSoftLimiter(joint_name, limits, soft_limits)
    return JointSaturationLimiter(joint_name, limits)


def make_joint_limiters(
    limits: Mapping[str, JointLimits],
    soft_limits: Mapping[str, SoftJointLimits],
    *,
    disabled_joints: frozenset[str] | set[str] = frozenset(),
) -> dict[str, JointLimiter]:
    """One limiter per joint of `limits` (e.g. `HardwareInfo.limits`), skipping
    `disabled_joints` (joints whose `<limits enable="false"/>`), soft where `soft_limits`
    has the joint. Raises InvalidJointLimitsError naming the first bad joint."""
    return {
        name: make_joint_limiter(name, joint_limits, soft_limits.get(name))
        for name, joint_limits in limits.items()
        if name not in disabled_joints
    }
