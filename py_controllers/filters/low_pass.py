"""`control_filters/LowPassFilterDouble`: control_toolbox's first-order IIR low pass.

    y(n) = b * x(n-1) + a * y(n-1),   a = exp(-2 pi df / (sf * 10^(di / -10))),   b = 1 - a

with sf the sampling frequency, df the damping frequency and di the damping intensity. The
first input initialises the filter (output = input, no impulse); the output lags the input
by one sample, as upstream's does.

Difference from upstream: a non-finite input after the first returns None and leaves the
state alone; upstream stores it, outputs NaN on the next call and restarts from the input
after that. ChainedFilter never feeds a non-finite value, so it sees no difference.
"""

from __future__ import annotations

import math
from typing import Any

from py_controllers.filters.base import Filter, ParamSpec, gt


def low_pass_coefficient(
    sampling_frequency: float, damping_frequency: float, damping_intensity: float
) -> float:
    """The feedback coefficient `a` (the feedforward one is 1 - a)."""
    return math.exp(
        -1.0
        / sampling_frequency
        * (2.0 * math.pi * damping_frequency)
        / (10.0 ** (damping_intensity / -10.0))
    )


class LowPassFilter(Filter):
    """First-order low pass with one sample of delay."""

    TYPE = 'control_filters/LowPassFilterDouble'
    PARAMS = (
        ParamSpec('sampling_frequency', 'double', check=gt(0.0)),
        ParamSpec('damping_frequency', 'double', check=gt(0.0)),
        ParamSpec('damping_intensity', 'double'),
    )

    def configure(self, values: dict[str, Any]) -> None:
        self.a1 = low_pass_coefficient(
            values['sampling_frequency'], values['damping_frequency'], values['damping_intensity']
        )
        self.b1 = 1.0 - self.a1
        self._filtered = math.nan  # y(n-1)
        self._old_input = math.nan  # x(n-1)

    def update(self, value: float) -> float | None:
        if not math.isfinite(value):
            return None
        if math.isnan(self._filtered):
            self._filtered = value
            self._old_input = value
        self._filtered = self._old_input * self.b1 + self._filtered * self.a1
        self._old_input = value
        return self._filtered
