"""DeferredCalls: work the control loop hands to the executor thread.

The loop must not log at normal levels, publish, or finish action goals itself. It queues
the call here without waiting (a deque append) and wakes the executor, which runs every
queued call on its own thread. A call that raises is logged and dropped: the queue keeps
going.
"""

from __future__ import annotations

import collections
import contextlib
import logging
from collections.abc import Callable
from typing import Any


class DeferredCalls:
    """A queue of calls from the loop thread, run by `run_pending()` in the executor."""

    def __init__(self, wake: Callable[[], None] | None = None, logger: Any = None) -> None:
        self._queue: collections.deque[tuple[Callable[..., Any], tuple]] = collections.deque()
        self.wake = wake  # e.g. a guard condition's trigger; None: somebody polls
        self.logger = logger or logging.getLogger('deferred_calls')

    def call_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue `fn(*args)` for the executor thread; never blocks (loop-safe)."""
        self._queue.append((fn, args))
        wake = self.wake
        if wake is not None:
            # the node may be gone (shutdown): the call then waits for a flush
            with contextlib.suppress(Exception):
                wake()

    def log(self, logger: Any, level: str, text: str) -> None:
        """Log `text` at `level` ('error', 'warning', 'info') from the executor thread."""
        self.call_soon(log_at, logger, level, text)

    def run_pending(self) -> int:
        """Run every queued call (executor thread); how many ran."""
        ran = 0
        while self._queue:
            fn, args = self._queue.popleft()
            ran += 1
            try:
                fn(*args)
            except Exception as exc:
                self.logger.error(f'deferred call {getattr(fn, "__name__", fn)} failed: {exc!r}')
        return ran

    def __len__(self) -> int:
        return len(self._queue)


def log_at(logger: Any, level: str, text: str) -> None:
    """`logger.<level>(text)` for rclpy and logging loggers alike."""
    # rclpy ties a severity to each call site: one call per severity
    if level == 'error':
        logger.error(text)
    elif level == 'warning':
        logger.warning(text)
    else:
        logger.info(text)
