"""RequestHandoff: requests from a service callback to the control loop, each taken once.

A box the loop reads and then clears loses a request that arrives between the read and the
clear. Here the loop never clears: every `put()` wraps the request in a new holder and the
loop remembers the holder it took last, so a request put at any moment is either the one
the loop is taking now or one it takes on its next cycle. Requests put between two cycles
supersede each other (the newest wins), as for any realtime box.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from py_controllers.realtime_tools import RealtimeBox

T = TypeVar('T')


class RequestHandoff(Generic[T]):
    """Latest-wins hand-off of requests (e.g. set_odometry) that the loop takes once each.

    `box` is the underlying RealtimeBox (a new one by default; tests pass an instrumented
    one to interleave a writer with the loop).
    """

    __slots__ = ('_box', '_taken')

    def __init__(self, *, box: RealtimeBox[tuple[T] | None] | None = None) -> None:
        self._box: RealtimeBox[tuple[T] | None] = RealtimeBox(None) if box is None else box
        self._taken = self._box.get()

    def put(self, request: T) -> None:
        """Hand `request` to the loop (any thread; never blocks, never waits for the loop)."""
        self._box.set((request,))  # a new holder each time: equal requests stay distinct

    def take_rt(self) -> T | None:
        """Loop side: the newest request not taken yet, else None (one read, no clearing)."""
        held = self._box.get()
        if held is self._taken or held is None:
            return None
        self._taken = held
        return held[0]

    def discard_rt(self) -> None:
        """Loop side: treat whatever is pending as taken."""
        self._taken = self._box.get()
