"""The loop watchdog: a thread outside the loop that notices a loop stuck inside a cycle.

A read() blocked on a dead serial line or an update() that never returns keeps the loop
from ending its cycle; nothing inside the loop can see that. The watchdog looks at the
loop's heartbeat (the monotonic time its last cycle ended) a few times per stall
threshold; once the loop has gone `periods` periods (and at least `min_stall_s`) without a
cycle it reports the stall once: the loop thread's stack in the log (and every thread's on
stderr, through faulthandler), then `on_stall`. When cycles come back it says so.

The watchdog also notices when it was paused itself (a look due long ago): then the whole
process lost the processor (a busy host, a debugger), the loop is not to blame, and the
count starts again. `min_stall_s` keeps a Python process's ordinary pauses (a garbage
collection, another thread holding the interpreter) at fast rates from counting as a
stall: those are overruns, counted by the loop's statistics.
"""

from __future__ import annotations

import contextlib
import faulthandler
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

DEFAULT_PERIODS = 10
DEFAULT_MIN_STALL_S = 0.25


class LoopWatchdog:
    """Watches `loop` (a ControlLoop) from a daemon thread of its own."""

    def __init__(
        self,
        loop: Any,
        *,
        periods: int = DEFAULT_PERIODS,
        min_stall_s: float = DEFAULT_MIN_STALL_S,
        on_stall: Callable[[float, str], None],
        on_recover: Callable[[float], None] | None = None,
    ) -> None:
        if periods < 1:
            raise ValueError(f"parameter 'watchdog.periods' must be >= 1, got {periods}")
        self.loop = loop
        self.threshold_ns = max(periods * loop.period_ns, round(min_stall_s * 1e9))
        self.on_stall = on_stall
        self.on_recover = on_recover
        self.stalled_since_ns: int | None = None  # heartbeat of the stall being reported
        self.stalls = 0
        self._next_check_ns: int | None = None  # when the next look is due
        self._counted_from_ns = 0  # silence before this (a pause of the process) is not counted
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def stalled(self) -> bool:
        """True while a stall is being reported and the loop has not cycled since."""
        return self.stalled_since_ns is not None

    def start(self) -> None:
        """Start watching (idempotent)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name='loop_watchdog', daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop watching (the loop is being stopped on purpose)."""
        self._stop.set()

    def _run(self) -> None:
        check_ns = self.threshold_ns // 4
        while not self._stop.wait(check_ns * 1e-9):
            self.check(time.monotonic_ns(), check_ns)

    def check(self, now_ns: int, check_ns: int) -> None:
        """One look at the heartbeat at monotonic `now_ns`, `check_ns` after the last look
        was due. A look that comes late by more than a whole check interval means this
        thread did not run either: the process or the host paused, not the loop, so the
        silence before now does not count (a paused process would otherwise stop itself)."""
        expected = self._next_check_ns
        self._next_check_ns = now_ns + check_ns
        if expected is not None and now_ns - expected > check_ns:
            self._counted_from_ns = now_ns
        loop = self.loop
        if not loop.running:
            return
        beat = loop.last_cycle_ns
        if self.stalled_since_ns is not None:
            if beat != self.stalled_since_ns:
                stalled_s = (beat - self.stalled_since_ns) * 1e-9
                self.stalled_since_ns = None
                if self.on_recover is not None:
                    self.on_recover(stalled_s)
            return
        silent_ns = now_ns - max(beat, self._counted_from_ns)
        if silent_ns > self.threshold_ns:
            self.stalled_since_ns = beat
            self.stalls += 1
            self.on_stall((now_ns - beat) * 1e-9, self._loop_stack())

    def _loop_stack(self) -> str:
        """The loop thread's Python stack (all threads also go to stderr via faulthandler)."""
        with contextlib.suppress(OSError, ValueError, RuntimeError):  # no usable stderr
            faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        frame = sys._current_frames().get(self.loop.thread_ident)
        if frame is None:
            return '(the loop thread has no Python frame)'
        return ''.join(traceback.format_stack(frame))
