"""Hardware lifecycle transitions, run off the control loop and outside the cycle lock.

A transition (configure, activate, on_error, ...) is user code that may do I/O or sleep: a
serial base waits seconds for its board to boot. Each one runs in a thread of its own while
the component is marked busy, so the loop skips it, nobody can claim its interfaces, and the
rest of the robot keeps its rate. The cycle lock is held only to mark the component busy and
to put it back, never while the transition runs. Starting one never blocks the caller (the
loop may start one): a dispatcher thread creates the transition threads.

An `is_async` component's thread may be inside a read()/write() when the transition starts
(it starts no new run once the component is busy): the transition waits for that run at
most `idle_wait_s` (2 s by default) and fails with TransitionBusyError if it has not ended,
so no lifecycle hook ever runs beside the component's read()/write().
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from py_controllers.controller_manager.bounded import bounded_lock
from py_controllers.hardware_interface.component_lifecycle import ManagedComponent
from py_controllers.hardware_interface.resource_manager import ResourceManager


class TransitionBusyError(RuntimeError):
    """The component is already inside a transition, or inside a read()/write()."""


IDLE_WAIT_S = 2.0  # the longest a transition waits for an async read()/write() to end


class HardwareTransitions:
    """Runs component transitions in threads; `on_done(name)` when each ends."""

    def __init__(
        self,
        get_rm: Callable[[], ResourceManager],
        cycle_lock: Any,
        *,
        on_done: Callable[[str], None] | None = None,
        log: Callable[[str, str], None] | None = None,
    ) -> None:
        self._get_rm = get_rm
        self.cycle_lock = cycle_lock
        self.on_done = on_done
        self.log = log or (lambda level, text: None)
        self._jobs: queue.SimpleQueue[tuple | None] = queue.SimpleQueue()
        self._running: dict[str, threading.Thread | None] = {}
        self._lock = threading.Lock()
        self._closed = False
        self.idle_wait_s = IDLE_WAIT_S
        self._dispatcher = threading.Thread(
            target=self._dispatch, name='hw_transitions', daemon=True
        )
        self._dispatcher.start()

    def start(self, name: str, work: Callable[[ManagedComponent], Any], what: str) -> Future:
        """Mark `name` busy and queue `work(component)` for a thread of its own; the future
        gets work's result or exception. Raises KeyError (unknown) or TransitionBusyError
        (in a transition already, or after `close`) or LoopBusyError (the cycle lock was not
        free within its bound)."""
        rm = self._get_rm()
        with bounded_lock(self.cycle_lock, f"hardware '{name}': {what}"):
            managed = rm.components[name]
            if managed.busy:
                raise TransitionBusyError(f"hardware '{name}' is already in a transition")
            rm.begin_transition(name)
        future: Future = Future()
        with self._lock:
            closed = self._closed
            if not closed:  # queued under the lock: close() cannot slip in between
                self._running[name] = None
                self._jobs.put((rm, managed, work, what, future))
        if closed:
            with self.cycle_lock:
                rm.end_transition(name)
            raise TransitionBusyError(f"hardware '{name}': the manager has shut down")
        return future

    def close(self) -> None:
        """End the dispatcher thread once what is queued has started (at shutdown); from
        then on `start` refuses. Transitions under way run to their end."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._jobs.put(None)

    def _dispatch(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:  # close()
                return
            thread = threading.Thread(
                target=self._run, args=job, name=f'hw:{job[1].name}', daemon=True
            )
            with self._lock:  # started under the lock: wait_idle never sees it unstarted
                self._running[job[1].name] = thread
                thread.start()

    def _run(
        self,
        rm: ResourceManager,
        managed: ManagedComponent,
        work: Callable[[ManagedComponent], Any],
        what: str,
        future: Future,
    ) -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            runner = managed.runner
            if runner is not None and not runner.prepare_transition(self.idle_wait_s):
                raise TransitionBusyError(
                    f"hardware '{managed.name}': its read()/write() is still under way after "
                    f'{self.idle_wait_s:.1f} s: {what} not started'
                )
            result = work(managed)
        except BaseException as exc:  # user code: reported through the future, never lost
            error = exc
            self.log('error', f"hardware '{managed.name}': {what} failed: {exc!r}")
        with self.cycle_lock:
            rm.end_transition(managed.name)
        with self._lock:
            self._running.pop(managed.name, None)
        if self.on_done is not None:
            try:
                self.on_done(managed.name)
            except Exception as exc:
                self.log('error', f"after {what} of hardware '{managed.name}': {exc!r}")
        if error is None:
            future.set_result(result)
        else:
            future.set_exception(error)

    def busy(self) -> list[str]:
        """Names of the components in a transition now."""
        with self._lock:
            return list(self._running)

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait for every transition under way; False if some still run after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while True:
            with self._lock:
                if not self._running:
                    return True
                threads = [t for t in self._running.values() if t is not None]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if threads:
                threads[0].join(min(remaining, 0.05))
            else:
                time.sleep(0.001)  # queued, its thread not created yet
