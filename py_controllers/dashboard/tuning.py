"""Pure pieces of the tuning page's live plots: a bounded record of samples, the window of
the last N seconds, downsampling to what a chart can draw, and CSV export.

A sample is (time in seconds, {signal name: value}); samples of different topics carry
different signal names and are merged by time. No rclpy, no NiceGUI.
"""

from __future__ import annotations

import csv
import io
import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter

import numpy as np

Sample = tuple[float, Mapping[str, float]]
Point = tuple[float, float]


@dataclass
class Recorder:
    """The samples of the last `keep_s` seconds, appended by the ROS thread and read by the
    pages (`list()` of a deque is one C call: it never sees a half-made append)."""

    keep_s: float = 60.0
    samples: deque[Sample] = field(default_factory=deque)
    count: int = 0

    def add(self, t: float, values: Mapping[str, float]) -> None:
        """Append a sample and forget those older than `keep_s` before it."""
        self.samples.append((t, dict(values)))
        self.count += 1
        while self.samples and self.samples[0][0] < t - self.keep_s:
            self.samples.popleft()

    def snapshot(self) -> list[Sample]:
        """The samples held now, oldest first."""
        return list(self.samples)


def merged(*sources: Iterable[Sample]) -> list[Sample]:
    """The samples of several recorders in one list, by time (stable for equal times)."""
    return sorted((s for source in sources for s in source), key=lambda s: s[0])


def window(samples: Sequence[Sample], now: float, window_s: float) -> list[Sample]:
    """The samples with `now - window_s <= t <= now`."""
    start = now - window_s
    return [s for s in samples if start <= s[0] <= now]


def names_of(samples: Iterable[Sample]) -> list[str]:
    """Every signal name in `samples`, in the order first seen."""
    return list(dict.fromkeys(chain.from_iterable(values for _, values in samples)))


def series(samples: Iterable[Sample], name: str) -> list[Point]:
    """The finite (t, value) points of signal `name` (NaN and inf cannot be drawn)."""
    return [
        (t, float(values[name]))
        for t, values in samples
        if name in values and math.isfinite(values[name])
    ]


def downsample(points: Sequence[Point], max_points: int) -> list[Point]:
    """At most `max_points` of `points` that keep the shape and end on the newest point: all
    but the newest are cut into (max_points - 1) // 2 runs of (nearly) equal length and each
    run gives its lowest and highest point, in time order, so a one-sample spike survives;
    the newest point ends the line, so a live chart's last value is the latest one (not the
    extreme of the last run). Fewer points pass unchanged."""
    kept = downsampled_indices(np.array([v for _, v in points], dtype=float), max_points)
    return [points[i] for i in kept.tolist()]


def downsampled_indices(values: np.ndarray, max_points: int) -> np.ndarray:
    """The indices of `values` that `downsample` keeps, in order (each run's first lowest
    and first highest value, then the newest), found for every run at once."""
    if max_points < 3:
        raise ValueError('downsample needs max_points >= 3')
    n = len(values)
    if n <= max_points:
        return np.arange(n)
    runs, older = (max_points - 1) // 2, n - 1
    starts = np.arange(runs) * older // runs
    lengths = np.arange(1, runs + 1) * older // runs - starts
    offsets = np.arange(int(lengths.max()))
    # one row per run, a shorter run padded with its own first value (which cannot move
    # the first lowest or highest: it comes earlier in the row)
    rows = starts[:, None] + np.where(offsets < lengths[:, None], offsets, 0)
    table = values[rows]
    lows, highs = starts + table.argmin(axis=1), starts + table.argmax(axis=1)
    pairs = np.stack([np.minimum(lows, highs), np.maximum(lows, highs)], axis=1)
    distinct = np.stack([np.ones(runs, dtype=bool), lows != highs], axis=1)
    return np.append(pairs[distinct], n - 1)


def chart_data(
    samples: Sequence[Sample], names: Sequence[str], now: float, max_points: int
) -> dict[str, list[list[float]]]:
    """Each signal of `names` as chart points [[seconds before now, value], ...], its finite
    values only, downsampled to `max_points`. The values are taken into one table in a
    single pass (a 60 s window holds thousands of samples, redrawn several times a second)."""
    if not names:
        return {}
    n = len(samples)
    ago = np.fromiter((t for t, _ in samples), dtype=float, count=n) - now
    values = chain.from_iterable(_rows(samples, names))
    table = np.fromiter(values, dtype=float, count=n * len(names)).reshape(n, len(names))
    out = {}
    for column, name in zip(table.T, names):
        finite = np.isfinite(column)
        ts, vs = ago[finite], column[finite]
        kept = downsampled_indices(vs, max_points)
        out[name] = np.column_stack((np.round(ts[kept], 3), vs[kept])).tolist()
    return out


def _rows(samples: Sequence[Sample], names: Sequence[str]) -> list[Sequence[float]]:
    """Each sample's values of `names` (NaN for a name it does not have)."""
    if len(names) == 1:
        return [(values.get(names[0], math.nan),) for _, values in samples]
    if names:
        get = itemgetter(*names)
        try:  # the usual case: every sample of a chart's recorder has every name
            return [get(values) for _, values in samples]
        except KeyError:
            pass
    return [[values.get(name, math.nan) for name in names] for _, values in samples]


def band(points: Sequence[Sequence[float]], half_width: float) -> tuple[list[Point], list[Point]]:
    """The lines `half_width` above and below `points` (a tolerance around a reference)."""
    return (
        [(t, v + half_width) for t, v in points],
        [(t, v - half_width) for t, v in points],
    )


def csv_text(samples: Sequence[Sample], names: Sequence[str] | None = None) -> str:
    """`samples` as CSV: a column `t` (seconds since the first sample) and one per signal;
    a signal absent from a sample leaves its cell empty, NaN and inf are written as such."""
    names = list(names) if names is not None else names_of(samples)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow(['t', *names])
    t0 = samples[0][0] if samples else 0.0
    for t, values in samples:
        writer.writerow([_number(t - t0), *(_number(values.get(n)) for n in names)])
    return out.getvalue()


def _number(value: float | None) -> str:
    if value is None:
        return ''
    return repr(float(value))
