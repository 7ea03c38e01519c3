"""LoopLog: log lines a controller's update() hands over, written by its node's executor.

The loop never logs through rcl: update() calls `log_rt`, which keeps the line in a deque
(no lock) and wakes the controller node's executor through a guard condition, as the goal
monitor does; the executor writes it. Each `key` (one per call site, as rcl's throttling)
is handed over at most once per `throttle_s` of loop time, so a problem that lasts costs
the loop one comparison per cycle.
"""

from __future__ import annotations

import collections
import contextlib
from typing import Any

from py_controllers.realtime_tools.deferred import log_at


class LoopLog:
    """Throttled, deferred logging for one controller's loop side."""

    def __init__(self, node: Any, throttle_s: float = 1.0, max_lines: int = 100) -> None:
        """`node`: the controller's node (its wrapper destroys the guard condition on
        cleanup); at most `max_lines` wait for the executor (the oldest go first)."""
        self._logger = node.get_logger()
        self._throttle_ns = round(throttle_s * 1e9)
        self._lines: collections.deque[tuple[str, str]] = collections.deque(maxlen=max_lines)
        self._last_ns: dict[str, int] = {}
        self._wake = node.create_guard_condition(self._drain)

    def log_rt(self, level: str, text: str, now_ns: int, key: str = '') -> None:
        """Hand `text` at `level` ('error', 'warning', 'info') over (loop-safe); dropped
        when `key` (default: the level) was handed over less than `throttle_s` ago."""
        key = key or level
        last = self._last_ns.get(key)
        if last is not None and 0 <= now_ns - last < self._throttle_ns:
            return
        self._last_ns[key] = now_ns
        self._lines.append((level, text))
        with contextlib.suppress(Exception):  # the node may be going away
            self._wake.trigger()

    def _drain(self) -> None:
        lines = self._lines
        while lines:
            level, text = lines.popleft()
            log_at(self._logger, level, text)
