"""`is_async` hardware: a component's read() and write() in a thread of its own.

As upstream's async components: each run is read() then, while the component is ACTIVE
(and not a sensor), write(). With `scheduling_policy="synchronized"` (the default) the
control loop starts a run every cycle the component is due; a run still under way when the
next one is due is not started again (a warning if `print_warnings`). With `"detached"`
the thread runs at the component's `rw_rate` (the manager's rate if 0) by itself. The loop
never waits for a run: it sees the results of the last finished read() and write(), so a
slow serial device costs the rest of the robot nothing. `thread_priority` (SCHED_FIFO) and
`affinity` apply to the thread where permitted.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from py_controllers.hardware_interface.types import LifecycleStateId, ReturnType
from py_controllers.realtime_tools import scheduling

POLICIES = ('synchronized', 'detached')


class AsyncComponent:
    """The thread running one component's read()/write(); results picked up by the loop."""

    def __init__(
        self,
        managed: Any,
        *,
        period_ns: int,
        clock: Callable[[], Any],
        log: Callable[[str, str], None],
    ) -> None:
        params = managed.info.async_params
        if params.scheduling_policy not in POLICIES:
            raise ValueError(
                f"hardware '{managed.name}': scheduling_policy '{params.scheduling_policy}' is "
                f'not one of {POLICIES}'
            )
        self.managed = managed
        self.detached = params.scheduling_policy == 'detached'
        self.period_ns = period_ns
        self._clock = clock  # () -> (rclpy Time, Duration) for a detached run
        self._log = log
        self._wake = threading.Event()
        self._stop = False
        self._running = False  # a run is under way
        self._idle = threading.Condition()
        self.read_result: Any = ReturnType.OK
        self.write_result: Any = ReturnType.OK
        self.skipped = 0
        self._args: tuple[Any, Any] = (None, None)
        self._thread = threading.Thread(target=self._run, name=f'async:{managed.name}', daemon=True)
        self._thread.start()

    # --- the control loop -------------------------------------------------------------
    def trigger(self, time_: Any, period: Any) -> Any:
        """Start a run unless one is under way (synchronized); the last read() result."""
        if not self.detached:
            if self._running:
                self.skipped += 1
                if self.managed.info.async_params.print_warnings and self.skipped == 1:
                    self._log('warning', 'read/write still running: this cycle skipped')
            else:
                self._args = (time_, period)
                self._running = True
                self._wake.set()
        result, self.read_result = self.read_result, ReturnType.OK
        return result

    def take_write_result(self) -> Any:
        """The last write() result (each one is reported once)."""
        result, self.write_result = self.write_result, ReturnType.OK
        return result

    # --- lifecycle ----------------------------------------------------------------------
    def wait_idle(self, timeout_s: float = 5.0) -> bool:
        """Wait until no run is under way (off the loop: before a transition)."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._running, timeout_s)

    def stop(self) -> None:
        """End the thread after the run under way."""
        self._stop = True
        self._wake.set()

    # --- the thread ----------------------------------------------------------------------
    def _run(self) -> None:
        params = self.managed.info.async_params
        if params.thread_priority > 0:
            error = scheduling.set_fifo_priority(params.thread_priority)
            if error is not None and params.print_warnings:
                self._log('warning', f'no SCHED_FIFO {params.thread_priority}: {error}')
        if params.cpu_affinity_cores:
            error = scheduling.set_cpu_affinity(params.cpu_affinity_cores)
            if error is not None:
                self._log('warning', f'cpu affinity {params.cpu_affinity_cores}: {error}')
        next_ns = time.monotonic_ns()
        while not self._stop:
            if self.detached:
                next_ns += self.period_ns
                delay = (next_ns - time.monotonic_ns()) * 1e-9
                if delay > 0:
                    time.sleep(delay)
                else:
                    next_ns = time.monotonic_ns()
                if self._stop:
                    break
                if self.managed.busy or self.managed.state not in (
                    LifecycleStateId.INACTIVE,
                    LifecycleStateId.ACTIVE,
                ):
                    continue
                self._running = True
                self._cycle(*self._clock())
            else:
                self._wake.wait()
                self._wake.clear()
                if self._stop:
                    break
                self._cycle(*self._args)
            with self._idle:
                self._running = False
                self._idle.notify_all()

    def _cycle(self, time_: Any, period: Any) -> None:
        result = self._call('read', time_, period)
        if result not in (None, ReturnType.OK):
            self.read_result = result
            return
        writes = self.managed.type != 'sensor' and self.managed.state == LifecycleStateId.ACTIVE
        if writes and not self.managed.busy:
            result = self._call('write', time_, period)
            if result not in (None, ReturnType.OK):
                self.write_result = result

    def _call(self, method: str, time_: Any, period: Any) -> Any:
        try:
            return getattr(self.managed.component, method)(time_, period)
        except Exception as exc:
            self._log('error', f'{method}() raised: {exc!r}')
            return ReturnType.ERROR
