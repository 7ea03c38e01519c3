"""RateLimiter: bounds on a signal's value, first and second derivative (control_toolbox).

Behaves like `control_toolbox::RateLimiter`: `limit(v, v0, v1, dt_s)` takes the wanted
value `v` and the two previous *limited* values (`v0` newest, `v1` before it) and applies
the second-derivative (jerk) limit, then the first-derivative (acceleration) limit, then
the value clamp.

Bounds follow upstream's conventions:
- a level is active only when its max bound is set; a NaN max disables the whole level
  (its min is then ignored);
- a NaN min defaults to minus the max;
- the first derivative has separate bounds for a positive and a negative previous value:
  `*_pos` apply while `v0 > 0`, `*_neg` while `v0 < 0`, and `[min_neg, max_pos]` at
  `v0 == 0`. Unset "other direction" bounds copy the given ones, as upstream's
  `set_params` does (control_toolbox rate_limiter.hpp, jazzy to rolling): `max_neg`
  defaults to `max_pos` and `min_pos` to `min_neg`, so without them the bounds are
  `[min_neg, max_pos]` whatever the sign of `v0`.

Unlike upstream, `limit*` return the limited value (Python has no in/out arguments)
instead of the ratio limited/requested.
"""

from __future__ import annotations

import math

_NAN = math.nan


def _clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


def _check(lo: float, lo_name: str, hi: float, hi_name: str) -> None:
    if lo > hi:
        raise ValueError(f'{lo_name} ({lo}) must not exceed {hi_name} ({hi})')


class RateLimiter:
    """Limits a signal's value, rate and rate of rate, with direction-dependent rate bounds.

    Raises ValueError naming the offending bounds when a min exceeds its max.
    """

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
        self.has_value_limits = not math.isnan(max_value)
        if math.isnan(min_value):
            min_value = -max_value
        if self.has_value_limits:
            _check(min_value, 'min_value', max_value, 'max_value')

        self.has_first_derivative_limits = not math.isnan(max_first_derivative_pos)
        if math.isnan(min_first_derivative_neg):
            min_first_derivative_neg = -max_first_derivative_pos
        if self.has_first_derivative_limits:
            _check(
                min_first_derivative_neg,
                'min_first_derivative_neg',
                max_first_derivative_pos,
                'max_first_derivative_pos',
            )
            if math.isnan(max_first_derivative_neg):
                max_first_derivative_neg = max_first_derivative_pos
            if math.isnan(min_first_derivative_pos):
                min_first_derivative_pos = min_first_derivative_neg
            _check(
                min_first_derivative_pos,
                'min_first_derivative_pos',
                max_first_derivative_neg,
                'max_first_derivative_neg',
            )

        self.has_second_derivative_limits = not math.isnan(max_second_derivative)
        if math.isnan(min_second_derivative):
            min_second_derivative = -max_second_derivative
        if self.has_second_derivative_limits:
            _check(
                min_second_derivative,
                'min_second_derivative',
                max_second_derivative,
                'max_second_derivative',
            )

        self.min_value = min_value
        self.max_value = max_value
        self.min_first_derivative_neg = min_first_derivative_neg
        self.max_first_derivative_pos = max_first_derivative_pos
        self.min_first_derivative_pos = min_first_derivative_pos
        self.max_first_derivative_neg = max_first_derivative_neg
        self.min_second_derivative = min_second_derivative
        self.max_second_derivative = max_second_derivative

    def limit(self, v: float, v0: float, v1: float, dt_s: float) -> float:
        """Jerk, then acceleration, then value limits on `v`; returns the limited value."""
        v = self.limit_second_derivative(v, v0, v1, dt_s)
        v = self.limit_first_derivative(v, v0, dt_s)
        return self.limit_value(v)

    def limit_value(self, v: float) -> float:
        """`v` clamped to [min_value, max_value]."""
        if not self.has_value_limits:
            return v
        return _clamp(v, self.min_value, self.max_value)

    def limit_first_derivative(self, v: float, v0: float, dt_s: float) -> float:
        """`v` with its change from `v0` bounded; the bounds depend on the sign of `v0`."""
        if not self.has_first_derivative_limits:
            return v
        if v0 > 0.0:
            lo, hi = self.min_first_derivative_pos, self.max_first_derivative_pos
        elif v0 < 0.0:
            lo, hi = self.min_first_derivative_neg, self.max_first_derivative_neg
        else:
            lo, hi = self.min_first_derivative_neg, self.max_first_derivative_pos
        return v0 + _clamp(v - v0, lo * dt_s, hi * dt_s)

    def limit_second_derivative(self, v: float, v0: float, v1: float, dt_s: float) -> float:
        """`v` with its change of change bounded, only while the step grows in its direction.

        Limiting a shrinking step as well makes closed loops oscillate
        (control_toolbox issue #240), so upstream and we leave it alone.
        """
        if not self.has_second_derivative_limits:
            return v
        dv = v - v0
        dv0 = v0 - v1
        if (dv - dv0) * dv > 0.0:
            dt2 = dt_s * dt_s
            da = _clamp(
                dv - dv0, self.min_second_derivative * dt2, self.max_second_derivative * dt2
            )
            return v0 + dv0 + da
        return v
