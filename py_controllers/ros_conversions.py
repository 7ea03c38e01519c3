"""Conversions between ROS messages and plain values, shared by every controller."""

from __future__ import annotations

import array
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from py_controllers.realtime_tools.serialized_message import TimeField


def set_stamp(stamp: Any, nanoseconds: int) -> None:
    """Fill a builtin_interfaces/Time in place (no allocation in the loop); a serialized
    message's `TimeField` is written in one go."""
    if type(stamp) is TimeField:
        stamp.set(*divmod(nanoseconds, 1_000_000_000))
    else:
        stamp.sec, stamp.nanosec = divmod(nanoseconds, 1_000_000_000)


def stamp_to_ns(stamp: Any) -> int:
    """builtin_interfaces/Time (or Duration) to integer nanoseconds."""
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def duration_to_s(duration: Any) -> float:
    """builtin_interfaces/Duration (or Time) to float seconds."""
    return duration.sec + duration.nanosec * 1e-9


def set_duration(duration: Any, seconds: float) -> None:
    """Fill a builtin_interfaces/Duration in place from float seconds (a `TimeField` in
    one go)."""
    ns = round(seconds * 1e9)
    if type(duration) is TimeField:
        duration.set(*divmod(ns, 1_000_000_000))
    else:
        duration.sec, duration.nanosec = divmod(ns, 1_000_000_000)


def bind_array(msg: Any, field: str, n: int, fill: float = 0.0) -> np.ndarray:
    """Give a message's float64[] field an array of n doubles; a numpy view writing into it."""
    setattr(msg, field, array.array('d', [fill] * n))
    # Read it back: without ROS_PYTHON_CHECK_FIELDS the setter stores a copy.
    return np.frombuffer(getattr(msg, field), dtype=float)


def element_writer(view: np.ndarray) -> Any:
    """`view` as a memoryview of native doubles (a serialized message's views have an
    explicit byte order, which memoryview does not write: those are cast), or the numpy
    view itself where that is not possible (not contiguous, not float64)."""
    data = memoryview(view)
    if data.format == 'd':
        return data
    if view.dtype.kind == 'f' and view.itemsize == 8 and view.dtype.isnative and data.c_contiguous:
        return data.cast('B').cast('d')
    return view


class HandleCopies:
    """Handles whose values the loop copies into message arrays (numpy views), each
    `(view, handles)` pair element by element; a None handle leaves its element alone.
    The elements are written through a memoryview of each view: the same memory, at a
    fraction of numpy's cost per element write."""

    __slots__ = ('_targets',)

    def __init__(self, pairs: Iterable[tuple[np.ndarray, Sequence[Any]]]) -> None:
        self._targets = [
            (element_writer(view), [(i, h) for i, h in enumerate(handles) if h is not None])
            for view, handles in pairs
        ]

    def copy_rt(self) -> None:
        """Copy every handle's current value into its element (loop thread)."""
        for view, handles in self._targets:
            for i, h in handles:
                view[i] = h.value
