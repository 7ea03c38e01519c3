"""RangeSensor: one distance, ``<name>/range``, as upstream's ``range_sensor.hpp``.

sensor_msgs/Range holds the range as a 32-bit float: ``get_range()`` rounds to it (beyond
the float32 range: +-inf), as upstream's ``static_cast<float>``.
"""

from __future__ import annotations

from typing import Any

from py_controllers.semantic_components.casts import to_float32
from py_controllers.semantic_components.semantic_component import SemanticComponentInterface

__all__ = ['RangeSensor', 'to_float32']


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
