"""Loop statistics: periods, lateness and execution times over a rolling window.

The loop records into preallocated arrays (no allocation per cycle); summaries are
computed on request outside the loop. Whatever computes them holds the interpreter while a
numpy call runs, and the loop may be waiting for it: the 1 Hz diagnostics use `brief()`,
which sorts nothing (a full `snapshot()` sorts every window).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass
class Summary:
    """Statistics of one quantity over the window, in microseconds."""

    count: int
    mean_us: float
    stddev_us: float
    min_us: float
    max_us: float
    p50_us: float
    p99_us: float
    p999_us: float

    def as_dict(self) -> dict[str, float]:
        """Plain dict for JSON."""
        return asdict(self)


def _quantile(ordered: np.ndarray, q: float) -> float:
    """Quantile `q` of sorted samples, interpolated linearly (numpy's default method)."""
    pos = q * (ordered.size - 1)
    lo = int(pos)
    hi = min(lo + 1, ordered.size - 1)
    return float(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))


def summarize(samples_ns: np.ndarray) -> Summary:
    """Summary of `samples_ns` (nanoseconds) in microseconds; zeros when empty.

    One sort gives min, max and the percentiles: this runs beside the loop, and every
    microsecond it holds the interpreter is one the loop may wait for.
    """
    if samples_ns.size == 0:
        return Summary(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    ordered = np.sort(samples_ns)
    return Summary(
        int(ordered.size),
        float(ordered.mean()) * 1e-3,
        float(ordered.std()) * 1e-3,
        float(ordered[0]) * 1e-3,
        float(ordered[-1]) * 1e-3,
        _quantile(ordered, 0.5) * 1e-3,
        _quantile(ordered, 0.99) * 1e-3,
        _quantile(ordered, 0.999) * 1e-3,
    )


def moments(samples_ns: np.ndarray) -> dict[str, float]:
    """Mean, standard deviation, min and max of `samples_ns` in microseconds (zeros when
    empty), in any order and without sorting."""
    if samples_ns.size == 0:
        return {'mean_us': 0.0, 'stddev_us': 0.0, 'min_us': 0.0, 'max_us': 0.0}
    return {
        'mean_us': float(samples_ns.mean()) * 1e-3,
        'stddev_us': float(samples_ns.std()) * 1e-3,
        'min_us': float(samples_ns.min()) * 1e-3,
        'max_us': float(samples_ns.max()) * 1e-3,
    }


def _rate_hz(periods_ns: np.ndarray) -> float:
    return 1e9 / float(periods_ns.mean()) if periods_ns.size else 0.0


class RingRecorder:
    """A fixed-size ring of int64 samples."""

    __slots__ = ('_buf', '_i', '_size', '_slots', 'total')

    def __init__(self, size: int) -> None:
        self._buf = np.zeros(size, dtype=np.int64)
        self._slots = memoryview(self._buf)  # the same memory: a cheaper element write
        self._size = size
        self._i = 0
        self.total = 0

    def record(self, value_ns: int) -> None:
        """Store one sample (loop-safe: no allocation)."""
        i = self._i
        self._slots[i] = value_ns
        i += 1
        self._i = 0 if i == self._size else i
        self.total += 1

    def samples(self) -> np.ndarray:
        """A copy of the samples in the window, oldest first."""
        n = min(self.total, self._buf.size)
        if n < self._buf.size:
            return self._buf[:n].copy()
        return np.roll(self._buf, -self._i).copy()

    def window(self) -> np.ndarray:
        """The samples in the window in storage order, as a view (for order-free figures)."""
        return self._buf[: min(self.total, self._buf.size)]

    def clear(self) -> None:
        """Forget every sample."""
        self._i = 0
        self.total = 0


class LoopStatistics:
    """What the loop measures each cycle, and the counters users ask about."""

    def __init__(self, update_rate_hz: float, window: int = 10_000) -> None:
        self.update_rate_hz = update_rate_hz
        self.period = RingRecorder(window)
        self.lateness = RingRecorder(window)
        self.execution = RingRecorder(window)
        self.read = RingRecorder(window)
        self.write = RingRecorder(window)
        self.cycles = 0
        self.overruns = 0
        self.missed_periods = 0

    def clear(self) -> None:
        """Forget every sample and counter: a new measurement window starts."""
        for recorder in (self.period, self.lateness, self.execution, self.read, self.write):
            recorder.clear()
        self.cycles = self.overruns = self.missed_periods = 0

    def snapshot(self, controllers: dict[str, RingRecorder] | None = None) -> dict:
        """Everything as plain data (for the statistics topic and service)."""
        periods = self.period.samples()
        out = {
            'update_rate_hz': self.update_rate_hz,
            'measured_rate_hz': _rate_hz(periods),
            'cycles': self.cycles,
            'overruns': self.overruns,
            'missed_periods': self.missed_periods,
            'period': summarize(periods).as_dict(),
            'lateness': summarize(self.lateness.samples()).as_dict(),
            'execution': summarize(self.execution.samples()).as_dict(),
            'read': summarize(self.read.samples()).as_dict(),
            'write': summarize(self.write.samples()).as_dict(),
        }
        if periods.size:
            counts, edges = np.histogram(periods.astype(np.float64) * 1e-3, bins=40)
            out['period_histogram'] = {'counts': counts.tolist(), 'edges_us': edges.tolist()}
        if controllers is not None:
            out['controllers'] = {
                name: summarize(rec.samples()).as_dict() for name, rec in controllers.items()
            }
        return out

    def brief(self) -> dict:
        """The figures /diagnostics reports (rate, period and execution moments, overruns),
        from the windows in place: no copy, no sort."""
        periods = self.period.window()
        return {
            'update_rate_hz': self.update_rate_hz,
            'measured_rate_hz': _rate_hz(periods),
            'overruns': self.overruns,
            'period': moments(periods),
            'execution': moments(self.execution.window()),
        }
