"""How the control loop wakes up on time: it sleeps until shortly before each deadline and
spins the rest, because a sleep returns late by the host's timer latency (tens of
microseconds on a VM, a few on a PREEMPT_RT kernel).

Spinning costs a core's time for nothing, so the automatic spin (`AdaptiveSpin`) is only as
long as this host's late sleeps need: it measures how late each sleep returns and spins
the recent 90th percentile of that, less a tolerance of 2 % of the period. A host with a
quick timer spins almost nothing; a slow or loaded one spins up to the cap. Nine wake-ups
in ten are on time; the tail beyond is the host's, and covering it would cost a spin as
long as the tail (on a VM whose sleeps return 30 us late at the median and 80 us at p99,
a 1 kHz loop spins ~25 us a cycle, 2.5 % of a core, instead of ~60 us for the p99).
"""

from __future__ import annotations

import time as _time

_monotonic_ns = _time.monotonic_ns

CAP_NS = 200_000
"""The longest automatic spin, and the spin until enough sleeps have been measured."""

FASTEST_SLEEPING_PERIOD_NS = 2_000_000
"""Loops slower than 500 Hz only sleep: a late wake-up is a small part of their period."""

PERCENTILE = 90
"""The share of sleeps (%) the spin makes up for."""

BUCKET_NS = 2_000
WINDOW = 1_000  # sleeps the percentile is taken over
EVERY = 100  # sleeps between two updates of the spin


def sleep_until(deadline_ns: int, spin_ns: int) -> int:
    """Sleep until `deadline_ns` (monotonic), the last `spin_ns` spinning; how late the
    sleep returned against its own end (ns), or -1 when there was no time to sleep."""
    wake_at = deadline_ns - spin_ns
    late = -1
    remaining = wake_at - _monotonic_ns()
    if remaining > 0:
        _time.sleep(remaining * 1e-9)
        late = _monotonic_ns() - wake_at
    while _monotonic_ns() < deadline_ns:
        pass
    return late


class FixedSpin:
    """A spin the user set (`loop.spin_us` >= 0): always the same."""

    def __init__(self, spin_ns: int) -> None:
        self.spin_ns = spin_ns

    def record(self, late_ns: int) -> None:
        """Nothing to learn."""


class AdaptiveSpin:
    """The automatic spin: the recent `PERCENTILE` of how late a sleep returns, less a
    tolerance (2 % of the period), between 0 and `cap_ns`. Loop-safe: a histogram of the
    last `WINDOW` sleeps in fixed arrays, the percentile taken every `EVERY` sleeps."""

    __slots__ = (
        '_buckets',
        '_counts',
        '_filled',
        '_i',
        '_since',
        'cap_ns',
        'spin_ns',
        'tolerance_ns',
    )

    def __init__(self, period_ns: int, cap_ns: int = CAP_NS) -> None:
        self.cap_ns = min(cap_ns, period_ns // 2)
        self.tolerance_ns = period_ns // 50
        self.spin_ns = self.cap_ns
        self._counts = [0] * (self.cap_ns // BUCKET_NS + 2)  # the last bucket: beyond the cap
        self._buckets = [0] * WINDOW  # each recent sleep's bucket, a ring
        self._filled = 0
        self._i = 0
        self._since = 0

    def record(self, late_ns: int) -> None:
        """Learn how late one sleep returned (-1: it did not sleep; ignored)."""
        if late_ns < 0:
            return
        bucket = min(late_ns // BUCKET_NS, len(self._counts) - 1)
        i = self._i
        if self._filled == WINDOW:
            self._counts[self._buckets[i]] -= 1
        else:
            self._filled += 1
        self._buckets[i] = bucket
        self._counts[bucket] += 1
        self._i = (i + 1) % WINDOW
        self._since += 1
        if self._since >= EVERY and self._filled == WINDOW:
            self._since = 0
            self.spin_ns = self._spin_for(self._percentile())

    def _percentile(self) -> int:
        """The upper edge of the bucket holding the `PERCENTILE` of the window (ns)."""
        beyond = WINDOW * (100 - PERCENTILE) // 100  # sleeps allowed later than it
        last = len(self._counts) - 1
        seen = 0
        for bucket in range(last, -1, -1):
            seen += self._counts[bucket]
            if seen > beyond:
                return (
                    (bucket + 1) * BUCKET_NS if bucket < last else self.cap_ns + self.tolerance_ns
                )
        return 0

    def _spin_for(self, late_ns: int) -> int:
        return max(0, min(self.cap_ns, late_ns - self.tolerance_ns))


def wake_up_policy(period_ns: int, spin_ns: int | None) -> FixedSpin | AdaptiveSpin:
    """The spin for a loop of `period_ns`: `spin_ns` when set (>= 0, at most half the
    period); otherwise automatic at 500 Hz and faster, none below."""
    if spin_ns is not None and spin_ns >= 0:
        return FixedSpin(min(spin_ns, period_ns // 2))
    if period_ns > FASTEST_SLEEPING_PERIOD_NS:
        return FixedSpin(0)
    return AdaptiveSpin(period_ns)
