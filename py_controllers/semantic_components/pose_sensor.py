"""PoseSensor: a position and an orientation quaternion, as upstream's ``pose_sensor.hpp``.

Interfaces, in this order: ``<name>/position.x .y .z``, ``<name>/orientation.x .y .z .w``.
"""

from __future__ import annotations

from typing import Any

from py_controllers.semantic_components.semantic_component import SemanticComponentInterface

POSE_INTERFACES = (
    'position.x',
    'position.y',
    'position.z',
    'orientation.x',
    'orientation.y',
    'orientation.z',
    'orientation.w',
)


class PoseSensor(SemanticComponentInterface):
    """The seven state interfaces of pose ``name``."""

    def __init__(self, name: str) -> None:
        super().__init__(name, [f'{name}/{itf}' for itf in POSE_INTERFACES])

    def get_position(self) -> tuple[float, float, float]:
        """Position (x, y, z), m."""
        h = self._assigned()
        return (h[0].value, h[1].value, h[2].value)

    def get_orientation(self) -> tuple[float, float, float, float]:
        """Orientation quaternion (x, y, z, w)."""
        h = self._assigned()
        return (h[3].value, h[4].value, h[5].value, h[6].value)

    def get_values_as_message(self, message: Any) -> bool:
        """Fill a geometry_msgs/Pose in place; True, as upstream."""
        fill_pose_message(message, self.get_values())
        return True


def fill_pose_message(message: Any, values: Any) -> None:
    """Copy seven values in POSE_INTERFACES order into a geometry_msgs/Pose (loop-safe)."""
    p, o = message.position, message.orientation
    p.x, p.y, p.z = values[0], values[1], values[2]
    o.x, o.y, o.z, o.w = values[3], values[4], values[5], values[6]
