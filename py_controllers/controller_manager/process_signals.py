"""The signals that end ros2_control_node, and the wake-up that makes the first one act at once.

Python runs a signal's handler in the main thread, and only when that thread runs Python code
again. ros2_control_node's main thread spends its time inside rclpy's wait for the manager
node's callbacks, which lasts up to its idle bound (half a second) when nothing arrives: a
Ctrl-C waited that long before the safe stop began, the controllers driving the robot all
along. Python's C-level handler writes each signal's number to a wake-up file descriptor as
the signal arrives (`signal.set_wakeup_fd`); a thread reading it wakes the main thread's wait
(`wake_with`, a guard condition of the manager's node), and the handler runs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable
from typing import Any

from py_controllers.controller_manager.stop_flag import StopFlag


class ProcessSignals:
    """SIGINT, SIGTERM, SIGHUP and SIGQUIT: the first asks for the safe stop; another one
    while it runs makes one final-write attempt and exits at once. Any further signal while
    that emergency stop runs returns at once: the handler runs on top of the code it
    interrupts, that code may be the emergency stop itself, and waiting on it is waiting
    for good. The handler takes no lock of its own (`StopFlag`, `os.write`).

    Made in the main thread (Python's rule for handlers and the wake-up descriptor);
    `close()` gives both back as they were (for a process that goes on, as a test's)."""

    HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)

    def __init__(self) -> None:
        self.stop = StopFlag()
        self.runtime: Any = None
        """Set once the runtime exists: its `emergency_stop()` is the second signal's."""
        self.emergency = False  # set once, as the emergency stop starts
        self._wake: Callable[[], None] | None = None
        self._previous = {sig: signal.getsignal(sig) for sig in self.HANDLED}
        for sig in self.HANDLED:
            signal.signal(sig, self._handle)
        read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._write_fd, False)  # the C handler must never block on it
        self._previous_wakeup_fd = signal.set_wakeup_fd(self._write_fd, warn_on_full_buffer=False)
        self._relay = threading.Thread(
            target=self._relay_signals, args=(read_fd,), name='signal wake-up', daemon=True
        )
        self._relay.start()

    def wake_with(self, wake: Callable[[], None]) -> None:
        """Call `wake` (from another thread) each time a handled signal arrives."""
        self._wake = wake

    def close(self) -> None:
        """Give back the handlers and wake-up descriptor found; the relay thread ends."""
        signal.set_wakeup_fd(self._previous_wakeup_fd)
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        os.close(self._write_fd)  # the relay reads the end of the pipe and returns
        self._relay.join()

    def _relay_signals(self, read_fd: int) -> None:
        try:
            while os.read(read_fd, 64):
                wake = self._wake
                if wake is not None:
                    # best effort: after the node is gone the handler runs all the same, when
                    # the main thread next runs Python code
                    with contextlib.suppress(Exception):
                        wake()
        finally:
            os.close(read_fd)

    def _handle(self, signum: int, _frame: Any) -> None:
        if self.emergency:
            return
        if not self.stop.is_set():
            self.stop.set()
            return
        self.emergency = True
        runtime = self.runtime
        if runtime is not None:
            try:
                runtime.emergency_stop()
            except Exception as exc:
                say(f'final write failed: {exc!r}')
        say(f'{signal.Signals(signum).name} again: exiting now')
        os._exit(1)


def say(text: str) -> None:
    """To stderr without the stream's lock (print() raises when it interrupts a print)."""
    with contextlib.suppress(OSError):
        os.write(2, f'[ros2_control_node] {text}\n'.encode())
