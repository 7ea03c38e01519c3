"""The tricycle's traction and steering limiters (no ROS), as upstream's tricycle_controller.

Both take magnitudes: one positive limit applies to both directions. A min without its max
gets 1000 (upstream's "arbitrarily big"), a max without its min gets 0; the steering's
missing position bound mirrors the other. NaN everywhere: unlimited. Unlike the diff
drive's SpeedLimiter, a velocity limit here also lifts small speeds up to min_velocity.
"""

from __future__ import annotations

import math

_BIG = 1000.0
_ONE_LIMIT = ' (one magnitude bounds both directions: give it as a positive number)'


def _pair(low: float, high: float) -> tuple[float, float]:
    if not math.isnan(low) and math.isnan(high):
        high = _BIG
    if not math.isnan(high) and math.isnan(low):
        low = 0.0
    return low, high


def _check(name: str, low: float, high: float, ordered: bool = True) -> None:
    if low < 0.0 or high < 0.0:
        raise ValueError(f'{name} limits must not be negative{_ONE_LIMIT}')
    if ordered and low > high:
        raise ValueError(f'min {name} cannot be greater than max {name}')


def _clamp_magnitude(step: float, low: float, high: float) -> float:
    """`step` with its magnitude clamped to [low, high], its sign kept (0 counts as +)."""
    magnitude = min(max(abs(step), low), high)
    return magnitude if step >= 0.0 else -magnitude


def _active(low: float, high: float) -> bool:
    return not (math.isnan(low) or math.isnan(high))


class TractionLimiter:
    """Velocity, acceleration (speeding up), deceleration (slowing down) and jerk limits
    on the traction wheel's speed. Raises ValueError for negative or crossed limits."""

    def __init__(
        self,
        min_velocity: float = math.nan,
        max_velocity: float = math.nan,
        min_acceleration: float = math.nan,
        max_acceleration: float = math.nan,
        min_deceleration: float = math.nan,
        max_deceleration: float = math.nan,
        min_jerk: float = math.nan,
        max_jerk: float = math.nan,
    ) -> None:
        self.velocity = _pair(min_velocity, max_velocity)
        self.acceleration = _pair(min_acceleration, max_acceleration)
        self.deceleration = _pair(min_deceleration, max_deceleration)
        self.jerk = _pair(min_jerk, max_jerk)
        _check('velocity', *self.velocity)
        _check('acceleration', *self.acceleration)
        _check('deceleration', *self.deceleration)
        _check('jerk', *self.jerk)

    def limit(self, v: float, v0: float, v1: float, dt: float) -> float:
        """`v` limited in jerk, then acceleration, then velocity; v0 and v1 the last two
        commands."""
        if _active(*self.jerk):
            v = self.limit_jerk(v, v0, v1, dt)
        if _active(*self.acceleration):
            v = self.limit_acceleration(v, v0, dt)
        if _active(*self.velocity):
            v = self.limit_velocity(v)
        return v

    def limit_velocity(self, v: float) -> float:
        return _clamp_magnitude(v, *self.velocity)

    def limit_acceleration(self, v: float, v0: float, dt: float) -> float:
        low, high = self.acceleration if abs(v) >= abs(v0) else self.deceleration
        return v0 + _clamp_magnitude(v - v0, low * dt, high * dt)

    def limit_jerk(self, v: float, v0: float, v1: float, dt: float) -> float:
        dv, dv0 = v - v0, v0 - v1
        dt2 = 2.0 * dt * dt
        low, high = self.jerk
        return v0 + dv0 + _clamp_magnitude(dv - dv0, low * dt2, high * dt2)


class SteeringLimiter:
    """Position, velocity and acceleration limits on the steering angle. Raises ValueError
    for negative velocity or acceleration limits."""

    def __init__(
        self,
        min_position: float = math.nan,
        max_position: float = math.nan,
        min_velocity: float = math.nan,
        max_velocity: float = math.nan,
        min_acceleration: float = math.nan,
        max_acceleration: float = math.nan,
    ) -> None:
        if not math.isnan(min_position) and math.isnan(max_position):
            max_position = -min_position
        if not math.isnan(max_position) and math.isnan(min_position):
            min_position = -max_position
        self.position = (min_position, max_position)
        self.velocity = _pair(min_velocity, max_velocity)
        self.acceleration = _pair(min_acceleration, max_acceleration)
        _check('velocity', *self.velocity, ordered=False)
        _check('acceleration', *self.acceleration, ordered=False)

    def limit(self, p: float, p0: float, p1: float, dt: float) -> float:
        """`p` limited in acceleration, then velocity, then position; p0 and p1 the last
        two commands."""
        if _active(*self.acceleration):
            low, high = self.acceleration
            dp, dp0 = p - p0, p0 - p1
            dt2 = 2.0 * dt * dt
            p = p0 + dp0 + _clamp_magnitude(dp - dp0, low * dt2, high * dt2)
        if _active(*self.velocity):
            low, high = self.velocity
            p = p0 + _clamp_magnitude(p - p0, low * dt, high * dt)
        if _active(*self.position):
            low, high = self.position
            p = min(max(p, low), high)
        return p
