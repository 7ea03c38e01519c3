"""SerializedMessage: a message of fixed shape, serialized once, its numbers written in place.

rclpy's `publish(msg)` converts the whole Python message to C and serializes it on every
call: 4-12 us for the state messages a controller sends each cycle, and several times that
when the publishing thread wakes with cold caches (a 100 Hz loop). A state message keeps its
shape (names, frame ids, array lengths) from activation on; only numbers change. So it is
serialized once, each number the loop writes is located in the bytes, and the loop writes
through numpy views straight into them; the publishing thread sends a copy of the bytes
with `publish(bytes)` (public rclpy API since Foxy), about 1 us.

Locating a field: it is set to sentinel values, the message serialized again and the
sentinels' bytes searched for (they must occur exactly once), then the field is restored.
Every search uses sentinels never used before in the process: the serializer leaves
alignment padding and a tail of its buffer unwritten, so old bytes (earlier sentinels
among them) can show up there.
This holds for the CDR every ROS 2 middleware uses (numbers stored whole, in the host's byte
order); where the serialized bytes are not little-endian CDR, the object works on the
message itself instead (`serialized` False) and `payload()` returns the message.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np
from rclpy.serialization import deserialize_message, serialize_message

__all__ = ['SerializedMessage', 'TimeField']

# The 4-byte encapsulation header of little-endian plain CDR (the only one handled here).
_CDR_LE = b'\x00\x01\x00\x00'
_TIME = struct.Struct('<iI')
# Unlikely bit patterns, new for every search: doubles far from any physical value, and
# a Time no clock gives (year 2004 + n seconds, a fixed odd nanosecond count).
_DOUBLE_SENTINEL = -7.0e299
_SEC_SENTINEL = 0x40000000
_NSEC_SENTINEL = 987_654_321
_searches = itertools.count(1)


def _double_sentinels(n: int) -> np.ndarray:
    first = next(_searches) << 16  # room for arrays of up to 65536 values
    if n > 1 << 16:
        raise ValueError(f'SerializedMessage: arrays of {n} values are not supported')
    return _DOUBLE_SENTINEL * (1.0 + (first + np.arange(n)) * 2.0**-48)


class TimeField:
    """A builtin_interfaces Time or Duration inside the serialized bytes; `sec` and
    `nanosec` write there, so `ros_conversions.set_stamp` / `set_duration` fill it (through
    `set`, both at once)."""

    __slots__ = ('_buffer', '_nanosec', '_offset', '_sec')

    def set(self, sec: int, nanosec: int) -> None:
        """Both numbers, written in one go."""
        self._sec = sec
        self._nanosec = nanosec
        _TIME.pack_into(self._buffer, self._offset, sec, nanosec)

    def __init__(self, buffer: bytearray, offset: int, sec: int, nanosec: int) -> None:
        self._buffer = buffer
        self._offset = offset
        self._sec = sec
        self._nanosec = nanosec

    @property
    def sec(self) -> int:
        return self._sec

    @sec.setter
    def sec(self, value: int) -> None:
        self._sec = value
        _TIME.pack_into(self._buffer, self._offset, value, self._nanosec)

    @property
    def nanosec(self) -> int:
        return self._nanosec

    @nanosec.setter
    def nanosec(self, value: int) -> None:
        self._nanosec = value
        _TIME.pack_into(self._buffer, self._offset, self._sec, value)


class SerializedMessage:
    """`msg`, shaped for good, serialized once; the views that write its numbers.

    Shape the message first (every array at its final length, every string set), then ask
    for the fields the loop writes: `doubles` for a float64 array bound with a numpy view,
    `scalars` for adjacent float64 attributes, `time` for a Time or Duration. Changing the
    message object afterwards changes nothing that is sent.
    """

    def __init__(self, msg: Any, *, serialized: bool = True) -> None:
        self.msg = msg
        data = serialize_message(msg)
        self.serialized = serialized and data[:4] == _CDR_LE
        self.buffer = bytearray(data)
        # message mode: (view, parent object, attribute names) copied into the message
        self._copies: list[tuple[np.ndarray, Any, Sequence[str]]] = []

    def payload(self) -> bytes | Any:
        """What to publish: a copy of the bytes (or the message, filled from the views)."""
        if self.serialized:
            return bytes(self.buffer)
        for view, parent, names in self._copies:
            for name, value in zip(names, view.tolist()):
                setattr(parent, name, value)
        return self.msg

    def check(self) -> str:
        """Whether the bytes as they are now deserialize to the message type: for failure
        reports."""
        if not self.serialized:
            return 'sent as a message'
        try:
            deserialize_message(bytes(self.buffer), type(self.msg))
        except Exception as exc:  # whatever the middleware's type support raises
            return f'the bytes do NOT deserialize: {exc!r}'
        return 'the bytes deserialize'

    def doubles(self, view: np.ndarray) -> np.ndarray:
        """The view writing the float64 array that `view` (a numpy view of one of the
        message's arrays, e.g. from `np.frombuffer`) writes; `view` itself in message mode."""
        if not self.serialized or view.shape[0] == 0:
            return view  # (an empty array: nothing to write, nothing to find)
        saved = view.copy()
        sentinels = _double_sentinels(view.shape[0])
        view[:] = sentinels
        try:
            offset = self._find(sentinels.astype('<f8').tobytes())
        finally:
            view[:] = saved
        return np.frombuffer(self.buffer, dtype='<f8', count=view.shape[0], offset=offset)

    def scalars(self, parent: Any, names: Sequence[str]) -> np.ndarray:
        """A view writing the adjacent float64 attributes `names` of `parent` (e.g. a
        Vector3's x, y, z), in that order."""
        names = tuple(names)
        saved = [getattr(parent, name) for name in names]
        view = np.array(saved, dtype=float)
        if not self.serialized:
            self._copies.append((view, parent, names))
            return view
        sentinels = _double_sentinels(len(names))
        try:
            for name, value in zip(names, sentinels.tolist()):
                setattr(parent, name, value)
            offset = self._find(sentinels.astype('<f8').tobytes())
        finally:
            for name, value in zip(names, saved):
                setattr(parent, name, value)
        return np.frombuffer(self.buffer, dtype='<f8', count=len(names), offset=offset)

    def time(self, stamp: Any) -> Any:
        """Where the Time/Duration `stamp` lies in the bytes; `stamp` itself in message mode."""
        if not self.serialized:
            return stamp
        sec, nanosec = stamp.sec, stamp.nanosec
        sentinel = (_SEC_SENTINEL + next(_searches) % _SEC_SENTINEL, _NSEC_SENTINEL)
        stamp.sec, stamp.nanosec = sentinel
        try:
            offset = self._find(_TIME.pack(*sentinel))
        finally:
            stamp.sec, stamp.nanosec = sec, nanosec
        return TimeField(self.buffer, offset, sec, nanosec)

    def _find(self, pattern: bytes) -> int:
        data = serialize_message(self.msg)
        if len(data) != len(self.buffer):
            raise ValueError('SerializedMessage: the message changed shape after it was built')
        offset = data.find(pattern)
        if offset < 0 or data.find(pattern, offset + 1) >= 0:
            found = 'not found' if offset < 0 else 'found more than once'
            raise ValueError(
                f'SerializedMessage: a field of {type(self.msg).__name__} was {found} '
                'in its serialized bytes'
            )
        return offset
