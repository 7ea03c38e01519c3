"""`filters/MeanFilterDouble`: the mean of the last `number_of_observations` inputs.

Until the window is full it averages what it has (filters' MeanFilter): 1.1 then 2.0 with
a window of 2 gives 1.1, then 1.55.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from py_controllers.filters.base import Filter, ParamSpec


def _at_least_one(value: float) -> str | None:
    return None if value >= 1 else 'must be >= 1'


class MeanFilter(Filter):
    """Moving average over a window of `number_of_observations` samples."""

    TYPE = 'filters/MeanFilterDouble'
    PARAMS = (ParamSpec('number_of_observations', 'int', check=_at_least_one),)

    def configure(self, values: dict[str, Any]) -> None:
        self._window: deque[float] = deque(maxlen=values['number_of_observations'])

    def update(self, value: float) -> float | None:
        window = self._window
        window.append(value)
        total = 0.0
        for sample in window:  # oldest first, as upstream sums its circular buffer
            total += sample
        return total / len(window)
