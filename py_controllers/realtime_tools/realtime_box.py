"""RealtimeBox: hand the latest value from ROS callbacks to the control loop.

The writer replaces one reference (atomic under the GIL), so neither side ever waits:
the loop reads the newest value, older ones are simply dropped. Values put in a box
must not be mutated afterwards; build a new one per write.
"""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar('T')


class RealtimeBox(Generic[T]):
    """Latest-value-wins mailbox between a non-realtime writer and the loop."""

    __slots__ = ('_value',)

    def __init__(self, value: T) -> None:
        self._value = value

    def set(self, value: T) -> None:
        """Replace the value (safe from any thread; never blocks)."""
        self._value = value

    def get(self) -> T:
        """The newest value (safe from the loop; never blocks)."""
        return self._value
