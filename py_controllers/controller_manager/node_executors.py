"""One executor thread per controller node, so a message wakes only its own node.

rclpy's executor rebuilds its wait set in Python on every wake-up, at a cost that grows
with every entity it serves (each controller node brings its parameter services and QoS
event handlers). With every node on the manager's executor, each cmd_vel message of the
loaded demo robot took ~3 ms of that thread's CPU, holding the interpreter while control
cycles were due; on the diff drive controller's own executor, ~1.3 ms. Each controller
node gets its own single-threaded executor and thread here; its Python work starts
outside the loop's window (the CycleGate, `BetweenCycles`), as on the manager's executor.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from rclpy.executors import (
    ExternalShutdownException,
    ShutdownException,
    SingleThreadedExecutor,
    TimeoutException,
)
from rclpy.node import Node

from py_controllers.realtime_tools.cycle_gate import CycleGate, WorkEstimate

_thread_ns = time.thread_time_ns

IDLE_WAKE_S = 5.0  # a removal or shutdown wakes the thread at once; this is a backstop


class BetweenCycles:
    """Runs an executor one callback at a time, its Python work kept out of the loop's
    window: the wait-set rebuild (with the processing after the wait, measured together)
    and each callback start only when expected to end before the window opens. The work
    after a wait returns runs when a message arrives; the rest waits for its gap."""

    def __init__(self, executor: SingleThreadedExecutor) -> None:
        self.executor = executor
        self.waiting = WorkEstimate()
        self.callback = WorkEstimate()

    def spin_once(self, gate: CycleGate, timeout_s: float) -> None:
        """executor.spin_once() between control cycles; a callback's exception is raised."""
        gate.wait_clear(self.waiting.ns)
        start = _thread_ns()
        try:
            handler, _, _ = self.executor.wait_for_ready_callbacks(timeout_sec=timeout_s)
        except (TimeoutException, ShutdownException, ExternalShutdownException):
            return
        self.waiting.record(_thread_ns() - start)
        gate.wait_clear(self.callback.ns)
        start = _thread_ns()
        handler()
        self.callback.record(_thread_ns() - start)
        exception = handler.exception()
        if exception is not None:
            raise exception


def serve(
    spinner: BetweenCycles,
    gate: Callable[[], CycleGate],
    keep_going: Callable[[], bool],
    log: Any,
    what: str,
    idle_s: float,
) -> None:
    """Run the spinner's callbacks between control cycles while `keep_going()`; a callback
    that raises is logged as `what` failing and never ends the serving."""
    while keep_going():
        try:
            spinner.spin_once(gate(), idle_s)
        except Exception as exc:
            log.error(f'{what} failed: {exc!r}')


class _NodeThread:
    """A node's executor and the thread spinning it until `stop()`."""

    def __init__(self, node: Node, gate: Callable[[], CycleGate], log: Any) -> None:
        self.node = node
        self.executor = SingleThreadedExecutor(context=node.context)
        self.executor.add_node(node)
        self._gate = gate
        self._log = log
        self._stop = threading.Event()
        # An executor woken by its own guard only rebuilds its wait set and waits again: a
        # guard condition of the node is a callback, so the wait returns and `_stop` is seen.
        self._wake = node.create_guard_condition(lambda: None)
        self.thread = threading.Thread(
            target=self._run, name=f'executor:{node.get_name()}', daemon=True
        )
        self.thread.start()

    def _run(self) -> None:
        serve(
            BetweenCycles(self.executor),
            self._gate,
            lambda: not self._stop.is_set() and self.node.context.ok(),
            self._log,
            f"callback of '{self.node.get_name()}'",
            IDLE_WAKE_S,
        )

    def stop(self) -> None:
        """End the thread (at once: its wait is woken), then release the node."""
        self._stop.set()
        self._wake.trigger()
        if threading.current_thread() is not self.thread:
            self.thread.join(timeout=5.0)
        self.executor.remove_node(self.node)
        self.node.destroy_guard_condition(self._wake)
        self.executor.shutdown(timeout_sec=0.0)


class NodeExecutors:
    """`add(node)` starts serving `node` in a thread of its own; `remove(node)` stops it."""

    def __init__(self, gate: Callable[[], CycleGate], log: Any) -> None:
        self._gate = gate
        self._log = log
        self._threads: dict[int, _NodeThread] = {}
        self._lock = threading.Lock()

    def add(self, node: Node) -> None:
        with self._lock:
            if id(node) not in self._threads:
                self._threads[id(node)] = _NodeThread(node, self._gate, self._log)

    def remove(self, node: Node) -> None:
        with self._lock:
            entry = self._threads.pop(id(node), None)
        if entry is not None:
            entry.stop()

    def stop_all(self) -> None:
        with self._lock:
            entries = list(self._threads.values())
            self._threads.clear()
        for entry in entries:
            entry.stop()

    def __len__(self) -> int:
        return len(self._threads)
