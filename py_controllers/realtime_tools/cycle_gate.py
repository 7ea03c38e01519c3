"""CycleGate: keeps the other Python threads off the interpreter while a cycle is due.

Only one thread runs Python at a time. A thread that holds the GIL when the control loop
wakes delays the cycle by up to the interpreter's switch interval, so the publishing
worker and the executor ask the gate before starting a piece of work: from `guard_ns`
before each deadline until that cycle ends they wait (bounded), and run in the gap. Work
that says how long it expects to take (a `WorkEstimate`) waits as well when it would still
be running once the window opens.
"""

from __future__ import annotations

import threading
import time

_monotonic_ns = time.monotonic_ns


class WorkEstimate:
    """How long a recurring piece of work holds the interpreter: the longest recent sample,
    forgotten by an eighth with each new one (measure thread CPU time, so that time spent
    blocked, e.g. waiting for the interpreter, does not count)."""

    __slots__ = ('ns',)

    def __init__(self) -> None:
        self.ns = 0

    def record(self, ns: int) -> None:
        """One more sample, in nanoseconds."""
        decayed = self.ns - (self.ns >> 3)
        self.ns = ns if ns > decayed else decayed


class CycleGate:
    """The loop announces when it next needs the interpreter; others wait that out."""

    def __init__(self, guard_ns: int = 300_000) -> None:
        self.guard_ns = guard_ns
        self._busy_from_ns: int | None = None  # None: no loop running, never wait
        self._cond = threading.Condition(threading.Lock())
        self.waits = 0

    # --- the loop thread ---------------------------------------------------------
    def next_deadline(self, deadline_ns: int) -> None:
        """The cycle just ended; the next one starts at `deadline_ns`."""
        with self._cond:
            self._busy_from_ns = deadline_ns - self.guard_ns
            self._cond.notify_all()

    def close(self) -> None:
        """The loop stopped: nobody waits any more."""
        with self._cond:
            self._busy_from_ns = None
            self._cond.notify_all()

    # --- every other thread --------------------------------------------------------
    def wait_clear(self, expected_ns: int = 0, max_wait_s: float = 0.005) -> None:
        """Return at once if work taking `expected_ns` ends before the window opens;
        otherwise once the cycle due has ended (work too long for any gap runs then)."""
        busy = self._busy_from_ns
        if busy is None or _monotonic_ns() + expected_ns < busy:
            return
        self.waits += 1
        with self._cond:
            self._cond.wait_for(lambda: self._busy_from_ns != busy, max_wait_s)
