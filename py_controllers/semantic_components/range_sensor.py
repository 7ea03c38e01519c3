"""RangeSensor: one distance, ``<name>/range``, as upstream's ``range_sensor.hpp``.

sensor_msgs/Range holds the range as a 32-bit float: ``get_range()`` rounds to it (beyond
the float32 range: +-inf), as upstream's ``static_cast<float>``.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from py_controllers.semantic_components.semantic_component import SemanticComponentInterface

_FLOAT32 = struct.Struct('f')


def to_float32(value: float) -> float:
    """``value`` rounded to the nearest 32-bit float: +-inf where that rounding overflows
    (as a C++ ``static_cast<float>``), NaN and infinities kept."""
    try:
        return _FLOAT32.unpack(_FLOAT32.pack(value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


class RangeSensor(SemanticComponentInterface):
    """The one state interface ``<name>/range`` (m)."""

    def __init__(self, name: str) -> None:
        super().__init__(name, [f'{name}/range'])

    def get_range(self) -> float:
        """The range in metres, as a float32 value."""
        return to_float32(self._assigned()[0].value)

    def get_values_as_message(self, message: Any) -> bool:
        """Set ``range`` of a sensor_msgs/Range in place (nothing else); True."""
        message.range = self.get_range()
        return True
