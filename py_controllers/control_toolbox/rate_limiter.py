"""RateLimiter: bounds on a value, its first and its second derivative (control_toolbox).

`limit(v, v0, v1, dt)` limits the new value `v` given the two previous limited values
(`v0` newest): jerk first, then acceleration, then the value itself. NaN disables a
bound; a NaN lower bound mirrors the upper one, and the reverse-direction rate bounds
mirror the forward ones.
"""

from __future__ import annotations

import math

_NAN = math.nan


def _clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


class RateLimiter:
    """Limits a signal's value, rate and rate of rate, with asymmetric bounds."""

    def __init__(
        self,
        min_value: float = _NAN,
        max_value: float = _NAN,
        min_first_derivative_neg: float = _NAN,
        max_first_derivative_pos: float = _NAN,
        min_first_derivative_pos: float = _NAN,
        max_first_derivative_neg: float = _NAN,
        min_second_derivative: float = _NAN,
        max_second_derivative: float = _NAN,
    ) -> None:
        self.min_value, self.max_value = self._pair(min_value, max_value, 'value')
        # speeding up / slowing down when the value is positive ...
        self.min_first_derivative_pos, self.max_first_derivative_pos = self._pair(
            min_first_derivative_pos, max_first_derivative_pos, 'first_derivative_pos'
        )
        # ... and when it is negative; unset reverse bounds mirror the forward ones
        if math.isnan(max_first_derivative_neg):
            max_first_derivative_neg = self.max_first_derivative_pos
        if math.isnan(min_first_derivative_neg):
            min_first_derivative_neg = self.min_first_derivative_pos
        self.min_first_derivative_neg, self.max_first_derivative_neg = (
            min_first_derivative_neg,
            max_first_derivative_neg,
        )
        if self.min_first_derivative_neg > self.max_first_derivative_neg:
            raise ValueError(
                f'min_first_derivative_neg ({self.min_first_derivative_neg}) must not exceed '
                f'max_first_derivative_neg ({self.max_first_derivative_neg})'
            )
        self.min_second_derivative, self.max_second_derivative = self._pair(
            min_second_derivative, max_second_derivative, 'second_derivative'
        )

    @staticmethod
    def _pair(lo: float, hi: float, what: str) -> tuple[float, float]:
        """(lo, hi) with NaN meaning unlimited and a NaN lower bound mirroring the upper."""
        if math.isnan(hi):
            hi = math.inf
        if math.isnan(lo):
            lo = -hi
        if lo > hi:
            raise ValueError(f'min_{what} ({lo}) must not exceed max_{what} ({hi})')
        return lo, hi

    def limit_value(self, v: float) -> float:
        """Clamp `v` to [min_value, max_value]."""
        return _clamp(v, self.min_value, self.max_value)

    def limit_first_derivative(self, v: float, v0: float, dt: float) -> float:
        """Bound the change from `v0`; the bounds depend on the sign of `v0`."""
        if v0 > 0.0:
            lo, hi = self.min_first_derivative_pos, self.max_first_derivative_pos
        elif v0 < 0.0:
            lo, hi = self.min_first_derivative_neg, self.max_first_derivative_neg
        else:
            lo, hi = self.min_first_derivative_neg, self.max_first_derivative_pos
        return v0 + _clamp(v - v0, lo * dt, hi * dt)

    def limit_second_derivative(self, v: float, v0: float, v1: float, dt: float) -> float:
        """Bound the change of the change while the command keeps accelerating."""
        dv, dv0 = v - v0, v0 - v1
        if (dv - dv0) * (v - v0) > 0.0:
            dt2 = dt * dt
            da = _clamp(
                dv - dv0, self.min_second_derivative * dt2, self.max_second_derivative * dt2
            )
            return v0 + dv0 + da
        return v

    def limit(self, v: float, v0: float, v1: float, dt: float) -> float:
        """Jerk, then acceleration, then value limits; returns the limited value."""
        v = self.limit_second_derivative(v, v0, v1, dt)
        v = self.limit_first_derivative(v, v0, dt)
        return self.limit_value(v)
