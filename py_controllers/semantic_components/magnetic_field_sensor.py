"""MagneticFieldSensor: the three components of a magnetic field, as upstream's
``semantic_components/magnetic_field_sensor.hpp``.

Interfaces, in this order: ``<name>/magnetic_field.x``, ``.y``, ``.z`` (tesla, as
sensor_msgs/MagneticField). Values pass as read, NaN included.
"""

from __future__ import annotations

from typing import Any

from py_controllers.semantic_components.semantic_component import SemanticComponentInterface

MAGNETIC_FIELD_INTERFACES = ('magnetic_field.x', 'magnetic_field.y', 'magnetic_field.z')


class MagneticFieldSensor(SemanticComponentInterface):
    """The three state interfaces of magnetometer ``name``."""

    def __init__(self, name: str) -> None:
        super().__init__(name, [f'{name}/{itf}' for itf in MAGNETIC_FIELD_INTERFACES])

    def get_magnetic_field(self) -> tuple[float, float, float]:
        """The field (x, y, z), T."""
        h = self._assigned()
        return (h[0].value, h[1].value, h[2].value)

    def get_values_as_message(self, message: Any) -> bool:
        """Fill ``magnetic_field`` of a sensor_msgs/MagneticField in place (header and
        covariance untouched); True, as upstream."""
        h = self._assigned()
        field = message.magnetic_field
        field.x, field.y, field.z = h[0].value, h[1].value, h[2].value
        return True
