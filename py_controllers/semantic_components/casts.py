"""A double state value into a narrower message field, the way a C++ ``static_cast`` does
(where C++ defines one): float32 fields, and integer enum fields read from doubles."""

from __future__ import annotations

import math
import struct

_FLOAT32 = struct.Struct('f')


def to_float32(value: float) -> float:
    """``value`` rounded to the nearest 32-bit float: +-inf where that rounding overflows
    (as a C++ ``static_cast<float>``), NaN and infinities kept."""
    try:
        return _FLOAT32.unpack(_FLOAT32.pack(value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def to_integer(value: float, low: int, high: int, no_reading: int) -> int:
    """``value`` cut toward zero (a C++ ``static_cast``) when that lies in [low, high];
    else (NaN, infinite, out of the field's range: undefined in C++) ``no_reading``."""
    if not math.isfinite(value):
        return no_reading
    cut = int(value)
    return cut if low <= cut <= high else no_reading
