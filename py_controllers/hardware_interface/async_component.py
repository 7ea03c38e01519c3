"""`is_async` hardware: a component's read() and write() in a thread of its own.

As upstream's async components: each run is read() then, while the component is ACTIVE
(and not a sensor), write(). With `scheduling_policy="synchronized"` (the default) the
control loop starts a run every cycle the component is due, at its write step; a run still
under way when the next one is due is not started again (a warning if `print_warnings`).
With `"detached"` the thread runs at the component's `rw_rate` (the manager's rate if 0)
by itself. The loop never waits for a run, so a slow serial device costs the rest of the
robot nothing. `thread_priority` (SCHED_FIFO) and `affinity` apply to the thread where
permitted.

Who touches which handle, so that the loop and the thread never race on one:
- the resource manager registers copies of the component's handles (`loop_states`,
  `loop_commands`): controllers, command limits, the hold on release and the services see
  only those; the component's own handles belong to the run;
- at its write step (after update() and `enforce_command_limits`) the loop hands the
  copies' values over as one immutable tuple; a run starts by copying the newest tuple
  into the component's command handles, so write() sees the limited commands of one
  cycle, never a value a controller is still computing;
- after a successful read() the run hands the component's state values back as one
  tuple; at its read step the loop copies the newest one into its state copies;
- tuples are swapped by a single reference assignment (atomic), so neither side waits;
- the component's own handles are touched outside a run only while none is under way and
  none can start (the component busy, or the thread stopped): around a lifecycle
  transition, as if the handles were shared (`prepare_transition`: the loop's commands,
  hold values included, go to the component; `adopt_component_values`: what on_activate &
  co. set becomes the loop's), and in the final write (`write_now`).
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from typing import Any

from py_controllers.hardware_interface.types import LifecycleStateId, ReturnType
from py_controllers.realtime_tools import scheduling

POLICIES = ('synchronized', 'detached')
S = LifecycleStateId


class AsyncComponent:
    """The thread running one component's read()/write(), and the loop's handle copies."""

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
        self.loop_states = [copy.copy(h) for h in managed.state_interfaces]
        self.loop_commands = [copy.copy(h) for h in managed.command_interfaces]
        self._commands: tuple[float, ...] | None = None  # loop -> run (newest wins)
        self._states: tuple[float, ...] | None = None  # run -> loop (newest wins)
        self._states_taken: tuple[float, ...] | None = None
        self._wake = threading.Event()
        self._stop = False
        # _running: a run is under way. The thread sets it only under _idle after checking
        # _stop and the component's state (detached); the loop sets it only for a component
        # that is in the loop (not busy), so `wait_idle` after `busy`/`stop` is final.
        self._running = False
        self._idle = threading.Condition()
        self.read_result: Any = ReturnType.OK
        self.write_result: Any = ReturnType.OK
        self.skipped = 0
        self._args: tuple[Any, Any] = (None, None)
        self._thread = threading.Thread(target=self._run, name=f'async:{managed.name}', daemon=True)
        self._thread.start()

    # --- the control loop -------------------------------------------------------------
    def collect(self) -> Any:
        """Read step: the newest finished read()'s states into the loop's copies; the last
        read() result (each one is reported once)."""
        states = self._states
        if states is not None and states is not self._states_taken:
            self._states_taken = states
            for handle, value in zip(self.loop_states, states, strict=True):
                handle.value = value
        result, self.read_result = self.read_result, ReturnType.OK
        return result

    def trigger(self, time_: Any, period: Any) -> None:
        """Write step (after update and limits): hand the commands over; synchronized, start
        a run unless one is under way."""
        self._commands = tuple(h.value for h in self.loop_commands)
        if self.detached or self._stop:
            return
        if self._running:
            self.skipped += 1
            if self.managed.info.async_params.print_warnings and self.skipped == 1:
                self._log('warning', 'read/write still running: this cycle skipped')
            return
        self._args = (time_, period)
        self._running = True
        self._wake.set()

    def take_write_result(self) -> Any:
        """The last write() result (each one is reported once)."""
        result, self.write_result = self.write_result, ReturnType.OK
        return result

    # --- off the loop -------------------------------------------------------------------
    def wait_idle(self, timeout_s: float = 5.0) -> bool:
        """Wait at most `timeout_s` until no run is under way; False if one still is."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._running, max(0.0, timeout_s))

    def prepare_transition(self, timeout_s: float) -> bool:
        """Start of a lifecycle transition (component busy): wait at most `timeout_s` for a
        run under way, then give the component the loop's command values. False (nothing
        done) if the run has not ended."""
        with self._idle:
            if not self._idle.wait_for(lambda: not self._running, max(0.0, timeout_s)):
                return False
            for own, loop in zip(self.managed.command_interfaces, self.loop_commands, strict=True):
                own.value = loop.value
            return True

    def set_state(self, target: LifecycleStateId, timeout_s: float) -> bool:
        """Drive the component to `target` in the caller's thread (the resource manager's
        synchronous path, at start): busy meanwhile, after a run under way ended (at most
        `timeout_s`, else False and logged)."""
        managed = self.managed
        managed.busy = True  # a detached thread starts no run meanwhile
        try:
            if not self.prepare_transition(timeout_s):
                self._log(
                    'error',
                    f'read/write still under way after {timeout_s:.1f} s: '
                    f'not driven to {target.label}',
                )
                return False
            ok = managed.set_state(target)
            self.adopt_component_values()
            return ok
        finally:
            managed.busy = False

    def adopt_component_values(self) -> bool:
        """End of a lifecycle transition (component busy): the component's state and
        command values become the loop's, and what was handed over before is dropped.
        False (nothing done) while a run is still under way."""
        with self._idle:
            if self._running:
                return False
            for loop, own in zip(self.loop_states, self.managed.state_interfaces, strict=True):
                loop.value = own.value
            for loop, own in zip(self.loop_commands, self.managed.command_interfaces, strict=True):
                loop.value = own.value
            self._commands = self._states = self._states_taken = None
            self.read_result = self.write_result = ReturnType.OK
            return True

    def write_now(self, time_: Any, period: Any, timeout_s: float) -> Any:
        """The final write (the loop stopped): stop the thread, wait at most `timeout_s`
        for a run under way, then write() the loop's commands in the caller's thread.
        ReturnType.ERROR (logged) if the run did not end in time."""
        self.stop()
        if not self.wait_idle(timeout_s):
            self._log(
                'error',
                f'a read/write still under way after {timeout_s:.1f} s: '
                'the final write is not delivered',
            )
            return ReturnType.ERROR
        for own, loop in zip(self.managed.command_interfaces, self.loop_commands, strict=True):
            own.value = loop.value
        return self._call('write', time_, period)

    def stop(self) -> None:
        """End the thread after the run under way (no run starts after this)."""
        with self._idle:
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
        try:
            if self.detached:
                self._run_detached()
            else:
                self._run_synchronized()
        finally:
            self._set_idle()

    def _run_synchronized(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._stop:
                return
            self._cycle(*self._args)
            self._set_idle()

    def _run_detached(self) -> None:
        next_ns = time.monotonic_ns()
        while True:
            next_ns += self.period_ns
            delay = (next_ns - time.monotonic_ns()) * 1e-9
            if delay > 0:
                time.sleep(delay)
            else:
                next_ns = time.monotonic_ns()
            with self._idle:  # checked and claimed at once: a transition cannot slip in
                if self._stop:
                    return
                managed = self.managed
                if managed.busy or managed.state not in (S.INACTIVE, S.ACTIVE):
                    continue
                self._running = True
            self._cycle(*self._clock())
            self._set_idle()

    def _set_idle(self) -> None:
        with self._idle:
            self._running = False
            self._idle.notify_all()

    def _cycle(self, time_: Any, period: Any) -> None:
        commands = self._commands
        if commands is not None:
            for handle, value in zip(self.managed.command_interfaces, commands, strict=True):
                handle.value = value
        result = self._call('read', time_, period)
        if result is not None and result is not ReturnType.OK:
            self.read_result = result
            return
        self._states = tuple(h.value for h in self.managed.state_interfaces)
        writes = self.managed.type != 'sensor' and self.managed.state == S.ACTIVE
        if writes and not self.managed.busy:
            result = self._call('write', time_, period)
            if result is not None and result is not ReturnType.OK:
                self.write_result = result

    def _call(self, method: str, time_: Any, period: Any) -> Any:
        try:
            return getattr(self.managed.component, method)(time_, period)
        except Exception as exc:
            self._log('error', f'{method}() raised: {exc!r}')
            return ReturnType.ERROR
