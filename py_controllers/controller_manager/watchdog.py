"""The loop watchdog: a thread outside the loop that notices a loop stuck inside a cycle,
and a backstop that needs no GIL for the stalls that silence that thread.

A read() blocked on a dead serial line or an update() that never returns keeps the loop
from ending its cycle; nothing inside the loop can see that. The watchdog looks at the
loop's heartbeat (the monotonic time its last cycle ended) a few times per stall
threshold; once the loop has gone `periods` periods (and at least `min_stall_s`: 2 s while
the loop drives a simulator's time, 250 ms otherwise, unless given) without a cycle it
reports the stall once: what the loop thread did meanwhile (ran, waited for a processor),
its stack in the log (and every thread's on stderr, through faulthandler), then `on_stall`.
When cycles come back it says so.

Not every silence is a stall:
- a loop waiting for the cycle lock while a service's switch holds it (a slow
  on_activate) is held off, not stuck: `on_held` reports it with what holds it, and only a
  hold longer than `max_switch_s` counts as a stall;
- a look that comes late means this thread did not run either. If the loop thread used
  the processor meanwhile (its CPU clock advanced), the loop held the interpreter (a
  catastrophic regex, a C call that keeps the GIL): that silence counts. Otherwise the
  whole process lost the processor (a busy host, a debugger): the count starts again.

The backstop (`Backstop`): faulthandler's timer runs in a C thread that needs no GIL. The
watchdog re-arms it at every look; a stall that keeps every Python thread from running
(the GIL held for good) lets it expire, and it ends the process with status 1 and every
thread's stack on stderr. The hardware gets no final write then (see docs/safety.md).
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

from py_controllers.controller_manager import thread_times

DEFAULT_PERIODS = 10
DEFAULT_MIN_STALL_S = 0.25
# the floor while the loop drives a simulator's time: the physics waits for the loop, so a
# silence lets nothing move uncontrolled and only a hung loop is worth stopping the run for
LOCKSTEP_MIN_STALL_S = 2.0
DEFAULT_MAX_SWITCH_S = 5.0
# the backstop's bound: at least this, and 4 stall thresholds. It cannot tell a stuck GIL
# from a host that stopped the whole process for a while: seconds of that are not rare on a
# loaded machine, and ending the process then would be the failure
BACKSTOP_MIN_S = 10.0
BUSY_SHARE = 0.5  # a late look counts when the loop thread ran this share of the gap


class Backstop:
    """faulthandler's `dump_traceback_later(exit=True)`: ends the process unless re-armed
    within its bound. One per process (faulthandler has one timer): only the process entry
    point (`ros2_control_node`) makes one."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.armed = False

    def arm(self, timeout_s: float | None = None) -> None:
        """(Re)start the countdown: `timeout_s` (default the bound) from now."""
        with contextlib.suppress(OSError, ValueError, RuntimeError):  # no usable stderr
            faulthandler.dump_traceback_later(timeout_s or self.timeout_s, exit=True)
            self.armed = True

    def disarm(self) -> None:
        """Stop the countdown (the process is ending on its own)."""
        faulthandler.cancel_dump_traceback_later()
        self.armed = False


class LoopWatchdog:
    """Watches `loop` (a ControlLoop) from a daemon thread of its own."""

    def __init__(
        self,
        loop: Any,
        *,
        periods: int = DEFAULT_PERIODS,
        min_stall_s: float | None = None,
        max_switch_s: float = DEFAULT_MAX_SWITCH_S,
        held_by: Callable[[], tuple[str, int] | None] = lambda: None,
        on_stall: Callable[[float, str], None],
        on_recover: Callable[[float], None] | None = None,
        on_held: Callable[[str, float, bool], None] | None = None,
        on_slow: Callable[[float, str], None] | None = None,
        backstop: Backstop | None = None,
    ) -> None:
        """`min_stall_s` None: DEFAULT_MIN_STALL_S, or LOCKSTEP_MIN_STALL_S while the loop
        drives a simulator's time (`loop.drives_simulation`). `held_by()` is (what, since
        monotonic ns) while a service holds the cycle lock; `on_held(what, held_s, ended)`
        reports a hold at its start and its end. `on_slow(silent_s, meanwhile)` reports,
        once cycles come back, a silence that was no stall only because the loop drives a
        simulator (longer than the wall clock's threshold, shorter than its own)."""
        if periods < 1:
            raise ValueError(f"parameter 'watchdog.periods' must be >= 1, got {periods}")
        self.loop = loop
        self._periods_ns = periods * loop.period_ns
        self.min_stall_s = min_stall_s
        self.max_switch_ns = round(max_switch_s * 1e9)
        self.held_by = held_by
        self.on_stall = on_stall
        self.on_recover = on_recover
        self.on_held = on_held
        self.on_slow = on_slow
        self.backstop = backstop
        if backstop is not None:
            backstop.timeout_s = self.backstop_bound_s()
        self.stalled_since_ns: int | None = None  # heartbeat of the stall being reported
        self.stalls = 0
        self.holds = 0  # holds by a service's switch reported
        self._hold: tuple[str, int] | None = None  # the hold being reported
        self._next_check_ns: int | None = None  # when the next look is due
        self._last_look: tuple[int, int | None] | None = None  # (monotonic, loop CPU) ns
        self._counted_from_ns = 0  # silence before this (a pause of the process) is not counted
        # the loop thread's times at the first look after its last cycle (for the report)
        self._times_at_beat: tuple[int, thread_times.ThreadTimes | None] = (0, None)
        self._slow: tuple[int, thread_times.ThreadTimes | None] | None = None  # the same
        self._keep_backstop = True  # re-arm the backstop at each look
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def stalled(self) -> bool:
        """True while a stall is being reported and the loop has not cycled since."""
        return self.stalled_since_ns is not None

    @property
    def threshold_ns(self) -> int:
        """The silence that is a stall: `periods` periods, at least the floor."""
        lockstep = self.min_stall_s is None and getattr(self.loop, 'drives_simulation', False)
        return self._silence_ns(LOCKSTEP_MIN_STALL_S if lockstep else DEFAULT_MIN_STALL_S)

    @property
    def wall_threshold_ns(self) -> int:
        """The threshold on the wall clock: a longer silence while the loop drives a
        simulator is reported as slow (`on_slow`), not as a stall."""
        return self._silence_ns(DEFAULT_MIN_STALL_S)

    def _silence_ns(self, automatic_floor_s: float) -> int:
        """`periods` periods, at least the floor given, else `automatic_floor_s`."""
        floor_s = automatic_floor_s if self.min_stall_s is None else self.min_stall_s
        return max(self._periods_ns, round(floor_s * 1e9))

    @property
    def check_ns(self) -> int:
        """How often the watchdog looks."""
        return min(self.threshold_ns, self.wall_threshold_ns) // 4

    def backstop_bound_s(self) -> float:
        """The backstop's bound for this watchdog: generous beside the largest stall
        threshold it may use."""
        floor_s = LOCKSTEP_MIN_STALL_S if self.min_stall_s is None else self.min_stall_s
        return max(BACKSTOP_MIN_S, 4 * max(self._periods_ns * 1e-9, floor_s))

    def start(self) -> None:
        """Start watching (idempotent); arms the backstop, if there is one."""
        if self._thread is None:
            if self.backstop is not None:
                self.backstop.arm()
            self._thread = threading.Thread(target=self._run, name='loop_watchdog', daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop watching (the loop is being stopped on purpose); the backstop is left to
        whoever stops the process."""
        self._stop.set()

    def hand_backstop_over(self, timeout_s: float) -> None:
        """The process is ending (a stall with exit_on_stall, the safe stop): the backstop
        gets one last bound and is no longer re-armed here."""
        self._keep_backstop = False
        if self.backstop is not None:
            self.backstop.arm(timeout_s)

    def _run(self) -> None:
        check_ns = self.check_ns
        while not self._stop.wait(check_ns * 1e-9):
            self.check(time.monotonic_ns(), check_ns)

    def _loop_cpu_ns(self) -> int | None:
        ident = self.loop.thread_ident
        if ident is None:
            return None
        try:
            return time.clock_gettime_ns(time.pthread_getcpuclockid(ident))
        except (OSError, AttributeError, OverflowError):  # gone, or not on this platform
            return None

    def _paused(self, now_ns: int, cpu_ns: int | None) -> bool:
        """A late look: True when the loop thread did not run either (a pause of the
        process or the host), False when it kept the processor (it held the interpreter)."""
        last = self._last_look
        if last is None or cpu_ns is None or last[1] is None:
            return True
        gap = now_ns - last[0]
        return cpu_ns - last[1] < BUSY_SHARE * gap

    def check(self, now_ns: int, check_ns: int) -> None:
        """One look at the heartbeat at monotonic `now_ns`, `check_ns` after the last look
        was due (see the module docstring for what counts)."""
        if self.backstop is not None and self._keep_backstop:
            self.backstop.arm()
        expected = self._next_check_ns
        self._next_check_ns = now_ns + check_ns
        cpu_ns = self._loop_cpu_ns()
        if expected is not None and now_ns - expected > check_ns and self._paused(now_ns, cpu_ns):
            self._counted_from_ns = now_ns
        self._last_look = (now_ns, cpu_ns)
        loop = self.loop
        beat = loop.last_cycle_ns
        if not loop.running or beat == 0:
            return
        if beat != self._times_at_beat[0]:
            times = self._loop_times()
            slow = self._slow
            if slow is not None:
                self._slow = None
                if self.on_slow is not None:
                    self.on_slow((beat - slow[0]) * 1e-9, thread_times.describe(slow[1], times))
            self._times_at_beat = (beat, times)
        if self.stalled_since_ns is not None:
            if beat != self.stalled_since_ns:
                stalled_s = (beat - self.stalled_since_ns) * 1e-9
                self.stalled_since_ns = None
                if self.on_recover is not None:
                    self.on_recover(stalled_s)
            return
        silent_ns = now_ns - max(beat, self._counted_from_ns)
        held = self.held_by() if loop.waiting_for_lock else None
        if self._hold is not None and (held is None or held[1] != self._hold[1]):
            self._report_hold(self._hold, now_ns, ended=True)
            self._hold = None
        if held is not None and silent_ns > self.threshold_ns:
            held_ns = now_ns - held[1]
            if held_ns <= self.max_switch_ns:
                if self._hold is None:
                    self._hold = held
                    self.holds += 1
                    self._report_hold(held, now_ns, ended=False)
                return
            what = f'held off by {held[0]} for more than {self.max_switch_ns * 1e-9:g} s'
            self._stall(now_ns, beat, what)
            return
        if silent_ns > self.threshold_ns:
            self._slow = None
            self._stall(now_ns, beat, '')
        elif silent_ns > self.wall_threshold_ns and self._slow is None:
            self._slow = self._times_at_beat

    def _report_hold(self, held: tuple[str, int], now_ns: int, *, ended: bool) -> None:
        if self.on_held is not None:
            self.on_held(held[0], (now_ns - held[1]) * 1e-9, ended)

    def _stall(self, now_ns: int, beat: int, why: str) -> None:
        self.stalled_since_ns = beat
        self.stalls += 1
        lines = [f'({why})'] if why else []
        meanwhile = thread_times.describe(self._times_at_beat[1], self._loop_times())
        if meanwhile:
            lines.append(f'{meanwhile} (since the first look after its last cycle)')
        lines.append(f'the loop thread is at:\n{self._loop_stack()}')
        self.on_stall((now_ns - beat) * 1e-9, '\n'.join(lines))

    def _loop_times(self) -> thread_times.ThreadTimes | None:
        native_id = getattr(self.loop, 'thread_native_id', None)
        return None if native_id is None else thread_times.sample(native_id)

    def _loop_stack(self) -> str:
        """The loop thread's Python stack (all threads also go to stderr via faulthandler)."""
        with contextlib.suppress(OSError, ValueError, RuntimeError):  # no usable stderr
            faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        frame = sys._current_frames().get(self.loop.thread_ident)
        if frame is None:
            return '(the loop thread has no Python frame)'
        return ''.join(traceback.format_stack(frame))
