"""The control loop thread: read -> update -> write on absolute deadlines.

Deadlines come from `time.monotonic_ns()`, so the schedule never drifts and a jump of
the system clock never disturbs it. The thread sleeps until shortly before each
deadline and spins the rest, so wake-ups are on time; whole missed periods are skipped
(counted as overruns) rather than run back to back.

User code inside a cycle is contained where the manager calls it. Anything that still
escapes ends the loop loudly: `failure` keeps the exception, `on_failure` is told (the
node logs it, reports ERROR in /diagnostics, stops the robot and exits non-zero).
"""

from __future__ import annotations

import threading
import time as _time
import traceback
from collections.abc import Callable
from typing import Any

from rclpy.clock import Clock, ClockType
from rclpy.duration import Duration
from rclpy.time import Time

from py_controllers.controller_manager.loop_time import LoopClock, LoopDuration, LoopTime
from py_controllers.controller_manager.statistics import LoopStatistics
from py_controllers.controller_manager.stop_flag import StopFlag
from py_controllers.controller_manager.wake_up import sleep_until, wake_up_policy
from py_controllers.realtime_tools import realtime_publisher
from py_controllers.realtime_tools.cycle_gate import CycleGate

_monotonic_ns = _time.monotonic_ns
MAX_GUARD_ROUNDS = 3  # guard passes in one cycle while fallbacks keep failing (then: held)


class ControlLoop:
    """Runs `manager`'s cycle at `update_rate_hz` in a dedicated thread."""

    def __init__(
        self,
        manager: Any,
        clock: Clock,
        update_rate_hz: int,
        *,
        spin_ns: int | None = None,
        guard_ns: int = 300_000,
        statistics: LoopStatistics | None = None,
        thread_setup: Callable[[], None] | None = None,
        on_failure: Callable[[BaseException], None] | None = None,
        use_sim_time: bool = False,
        publish_clock: Callable[[int], None] | None = None,
    ) -> None:
        self.manager = manager
        self.clock = clock
        self.loop_clock = LoopClock(clock)  # the clock's time without rclpy's cost per cycle
        self.update_rate_hz = update_rate_hz
        self.period_ns = round(1e9 / update_rate_hz)
        #: how long the loop spins before each deadline: `loop.spin_us`, or automatic
        self.wake_up = wake_up_policy(self.period_ns, spin_ns)
        self.stats = statistics or LoopStatistics(update_rate_hz)
        self.thread_setup = thread_setup  # run first in the loop thread (scheduling, affinity)
        self.gate = CycleGate(min(guard_ns, self.period_ns // 2))
        self.on_failure = on_failure
        # with use_sim_time and a simulator among the hardware, the cycles run on its time
        # (`simulated_cycle`): `now` is the simulation time after read(), `period` the
        # nominal period, and the time goes to `publish_clock` (/clock) before update()
        self.use_sim_time = use_sim_time
        self.publish_clock = publish_clock
        self.failure: BaseException | None = None  # what ended the loop, if anything did
        self.failure_traceback = ''
        self.stall: str | None = None  # the watchdog's report while stalled (set by the node)
        #: monotonic time the last cycle ended (the watchdog's heartbeat; 0 until the loop
        #: thread has set itself up and starts cycling)
        self.last_cycle_ns = 0
        #: True while the loop waits for the cycle lock (held by a service's switch)
        self.waiting_for_lock = False
        self._stop = StopFlag()  # set by a signal handler too (the emergency stop)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the loop thread (idempotent)."""
        if self._thread is None:
            self._stop.clear()
            self.failure = None
            self._thread = threading.Thread(target=self._run, name='control_loop', daemon=True)
            self._thread.start()

    def request_stop(self) -> None:
        """Ask the loop to stop: it runs no cycle that has not started yet."""
        self._stop.set()

    def stop(self, timeout_s: float = 2.0) -> bool:
        """Ask the loop to stop and wait for it at most `timeout_s` (not from the loop
        thread itself); False if it is still running (stuck inside a cycle)."""
        self._stop.set()
        thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout_s)
        if thread.is_alive():
            return False
        self._thread = None
        return True

    @property
    def running(self) -> bool:
        """True while the loop thread runs and has not been asked to stop."""
        thread = self._thread
        return thread is not None and thread.is_alive() and not self._stop.is_set()

    @property
    def thread_ident(self) -> int | None:
        """The loop thread's identifier (for the watchdog's stack dump), None if none."""
        thread = self._thread
        return thread.ident if thread is not None else None

    @property
    def drives_simulation(self) -> bool:
        """True when the cycles advance a simulator's time (use_sim_time and a simulator
        among the hardware): nothing moves while the loop is silent."""
        return self.use_sim_time and self.manager.rm.simulation_clock is not None

    @property
    def thread_native_id(self) -> int | None:
        """The loop thread's id in the kernel (for its scheduler statistics), None if none."""
        thread = self._thread
        return thread.native_id if thread is not None else None

    def _run(self) -> None:
        realtime_publisher.defer_in_thread(threading.get_ident(), self.gate)
        try:
            if self.thread_setup is not None:
                self.thread_setup()  # may take long (lock_memory): not counted as a stall
            self.last_cycle_ns = _monotonic_ns()
            self._cycle_forever()
        except BaseException as exc:  # the loop must never end silently
            self.failure = exc
            self.failure_traceback = traceback.format_exc()
        finally:
            self.gate.close()
            realtime_publisher.defer_in_thread(None)
            realtime_publisher.flush_deferred()
        if self.failure is not None and self.on_failure is not None:
            self.on_failure(self.failure)

    def cycle(self, now: Time, period: Duration, now_ns: int) -> tuple[int, int]:
        """One read -> update -> write, failures handled as the manager rules (caller holds
        the cycle lock); the monotonic times read and update ended, for the statistics."""
        manager = self.manager
        for name in manager.rm.read(now, period):
            manager.supervisor.handle_hardware_error(name, 'read')
        t_read = _monotonic_ns()
        return t_read, self._update_and_write(now, period, now_ns)

    def simulated_cycle(self, simulation: Callable[[], int], period: Duration) -> tuple[int, int]:
        """One cycle on a simulator's time (caller holds the cycle lock): read() steps the
        physics from the time before it, then update() and write() run at the simulation
        time after the step, the time of the state the controllers read; that time goes
        to `publish_clock` before update(), so /clock is handed over ahead of every message
        stamped with it. The monotonic times read and update ended."""
        manager = self.manager
        for name in manager.rm.read(LoopTime(simulation(), ClockType.ROS_TIME), period):
            manager.supervisor.handle_hardware_error(name, 'read')
        now_ns = simulation()
        t_read = _monotonic_ns()
        if self.publish_clock is not None:
            self.publish_clock(now_ns)
        return t_read, self._update_and_write(LoopTime(now_ns, ClockType.ROS_TIME), period, now_ns)

    def _update_and_write(self, now: Time, period: Duration, now_ns: int) -> int:
        """update() and write() of one cycle; the monotonic time update ended."""
        manager = self.manager
        rm = manager.rm
        manager.update(now, period, now_ns)
        dt_s = period.nanoseconds * 1e-9
        bad = rm.enforce_command_limits(dt_s)
        for _ in range(MAX_GUARD_ROUNDS):
            if not bad:
                break
            # wrote inf or a non-number: held, and the controllers go; fallbacks that start
            # now may write in on_activate, so the guard and limits run again before write()
            manager.supervisor.deactivate_after_error(bad, rm.command_guard.why)
            bad = rm.enforce_command_limits(dt_s)
        t_update = _monotonic_ns()
        rm.retry_owed_stops()
        failed, deactivated = rm.write(now, period)
        for name in failed:
            manager.supervisor.handle_hardware_error(name, 'write')
        for name in deactivated:
            manager.supervisor.handle_hardware_self_deactivate(name)
        return t_update

    def _cycle_forever(self) -> None:
        period = self.period_ns
        stats = self.stats
        cycle = self.cycle
        lock = self.manager.cycle_lock
        clock_now_ns = self.loop_clock.now_ns
        clock_type = self.clock.clock_type
        rm = self.manager.rm
        use_sim_time = self.use_sim_time
        simulated_cycle = self.simulated_cycle
        nominal = LoopDuration(period)
        gate = self.gate
        last = _monotonic_ns()
        deadline = last + period
        gate.next_deadline(deadline)
        wake_up = self.wake_up
        while not self._stop.is_set():
            wake_up.record(sleep_until(deadline, wake_up.spin_ns))
            wake = _monotonic_ns()
            self.waiting_for_lock = True
            with lock:
                self.waiting_for_lock = False
                if self._stop.is_set():  # asked to stop while waiting: no further cycle
                    break
                start = _monotonic_ns()
                simulation = rm.simulation_clock if use_sim_time else None
                if simulation is None:
                    now_ns = clock_now_ns()
                    t_read, t_update = cycle(
                        LoopTime(now_ns, clock_type), LoopDuration(start - last), now_ns
                    )
                else:
                    t_read, t_update = simulated_cycle(simulation, nominal)
                end = _monotonic_ns()
            realtime_publisher.flush_deferred()
            stats.period.record(start - last)
            stats.lateness.record(wake - deadline)
            stats.read.record(t_read - start)
            stats.write.record(end - t_update)
            stats.execution.record(end - start)
            stats.cycles += 1
            self.last_cycle_ns = end
            last = start
            deadline += period
            behind = end - deadline
            if behind > 0:
                missed = behind // period + 1
                stats.overruns += 1
                stats.missed_periods += missed
                deadline += missed * period
            gate.next_deadline(deadline)
