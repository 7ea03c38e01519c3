"""A stop request that a signal handler may set at any point of the main thread.

Python runs signal handlers in the main thread between two bytecodes, so a handler that
takes a lock the interrupted code holds waits for good: `threading.Event.set()` takes the
event's own (non re-entrant) lock. `StopFlag` is one attribute under the GIL: setting it
never blocks. Nothing waits on it; the loop and the executor poll it.
"""

from __future__ import annotations


class StopFlag:
    """`threading.Event`'s set / clear / is_set, without its lock (and without wait)."""

    __slots__ = ('_set',)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        """Request the stop; never blocks (safe in a signal handler)."""
        self._set = True

    def clear(self) -> None:
        self._set = False

    def is_set(self) -> bool:
        return self._set
