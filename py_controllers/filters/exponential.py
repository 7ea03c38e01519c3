"""`control_filters/ExponentialFilterDouble`: exponential smoothing.

    y(n) = alpha * x(n) + (1 - alpha) * y(n-1)

The first input initialises y. Difference from upstream: a non-finite input after the
first returns None and leaves y alone (upstream folds it into y, which stays NaN).
ChainedFilter never feeds a non-finite value.
"""

from __future__ import annotations

import math
from typing import Any

from py_controllers.filters.base import Filter, ParamSpec, bounds


class ExponentialFilter(Filter):
    """Exponential smoothing with factor `alpha` in [0, 1] (1: no smoothing)."""

    TYPE = 'control_filters/ExponentialFilterDouble'
    PARAMS = (ParamSpec('alpha', 'double', check=bounds(0.0, 1.0)),)

    def configure(self, values: dict[str, Any]) -> None:
        self.alpha = values['alpha']
        self._smoothed = math.nan

    def update(self, value: float) -> float | None:
        if not math.isfinite(value):
            return None
        if math.isnan(self._smoothed):
            self._smoothed = value
        self._smoothed = self.alpha * value + (1 - self.alpha) * self._smoothed
        return self._smoothed
