"""`control_filters/RateLimiterDouble`: control_toolbox's RateLimiter as a filter.

Each update limits the input's value, first derivative (with separate bounds for positive
and negative values) and second derivative over `sampling_interval` seconds, from the last
two outputs; the first input initialises that history. Unset bounds (NaN) are off; the
bound rules are those of py_controllers.control_toolbox.rate_limiter.

Difference from upstream: a non-finite input returns None and leaves the history alone
(upstream limits it to NaN and restarts from the next input). ChainedFilter never feeds a
non-finite value.
"""

from __future__ import annotations

import math
from typing import Any

from py_controllers.control_toolbox.rate_limiter import RateLimiter
from py_controllers.filters.base import Filter, FilterConfigError, ParamSpec, gt
from py_controllers.filters.base import gt_eq_or_nan as _ge
from py_controllers.filters.base import lt_eq_or_nan as _le

_NAN = math.nan
# the limiter's constructor order (control_filters passes them in this order)
_BOUNDS = (
    'min_value',
    'max_value',
    'min_first_derivative_neg',
    'max_first_derivative_pos',
    'min_first_derivative_pos',
    'max_first_derivative_neg',
    'min_second_derivative',
    'max_second_derivative',
)


class RateLimiterFilter(Filter):
    """Value, rate and rate-of-rate limits on a stream sampled every `sampling_interval` s."""

    TYPE = 'control_filters/RateLimiterDouble'
    PARAMS = (
        ParamSpec('sampling_interval', 'double', check=gt(0.0)),
        ParamSpec('max_value', 'double', _NAN, _ge(0.0)),
        ParamSpec('min_value', 'double', _NAN, _le(0.0)),
        ParamSpec('max_first_derivative_pos', 'double', _NAN, _ge(0.0)),
        ParamSpec('min_first_derivative_pos', 'double', _NAN, _le(0.0)),
        ParamSpec('max_first_derivative_neg', 'double', _NAN, _ge(0.0)),
        ParamSpec('min_first_derivative_neg', 'double', _NAN, _le(0.0)),
        ParamSpec('max_second_derivative', 'double', _NAN, _ge(0.0)),
        ParamSpec('min_second_derivative', 'double', _NAN, _le(0.0)),
    )

    def configure(self, values: dict[str, Any]) -> None:
        try:
            self.limiter = RateLimiter(*(values[name] for name in _BOUNDS))
        except ValueError as exc:
            raise FilterConfigError(f"filter '{self.name}' ({self.TYPE}): {exc}") from exc
        self.dt_s = values['sampling_interval']
        self._v0 = _NAN  # the last output
        self._v1 = _NAN  # the one before

    def update(self, value: float) -> float | None:
        if not math.isfinite(value):
            return None
        if math.isnan(self._v0):
            self._v0 = self._v1 = value
        limited = self.limiter.limit(value, self._v0, self._v1, self.dt_s)
        self._v1, self._v0 = self._v0, limited
        return limited
