"""ForceTorqueSensor: forces and torques of a 6D (or fewer-axis) force-torque sensor.

As upstream's ``semantic_components/force_torque_sensor.hpp``: ``ForceTorqueSensor(name)``
uses ``<name>/force.x .y .z`` and ``<name>/torque.x .y .z``; ``from_interface_names()``
takes one full interface name per axis, and an axis left empty ('') has no interface
(a 1D or 3D load cell). An axis without interface always reads NaN.
"""

from __future__ import annotations

import math
from typing import Any

from py_controllers.semantic_components.semantic_component import SemanticComponentInterface

FORCE_TORQUE_INTERFACES = ('force.x', 'force.y', 'force.z', 'torque.x', 'torque.y', 'torque.z')

_NAN = math.nan


class ForceTorqueSensor(SemanticComponentInterface):
    """Six axes (force x, y, z, torque x, y, z); those without interface read NaN."""

    def __init__(self, name: str) -> None:
        super().__init__(name, [f'{name}/{itf}' for itf in FORCE_TORQUE_INTERFACES])
        self.existing_axes: tuple[bool, ...] = (True,) * 6
        self._slots: list[int] = [0, 1, 2, 3, 4, 5]

    @classmethod
    def from_interface_names(
        cls,
        force_x: str = '',
        force_y: str = '',
        force_z: str = '',
        torque_x: str = '',
        torque_y: str = '',
        torque_z: str = '',
    ) -> ForceTorqueSensor:
        """A sensor on custom interface names; '' for an axis the sensor does not have."""
        axes = (force_x, force_y, force_z, torque_x, torque_y, torque_z)
        sensor = cls.__new__(cls)
        SemanticComponentInterface.__init__(sensor, '', [a for a in axes if a])
        sensor.existing_axes = tuple(bool(a) for a in axes)
        sensor._slots = [i for i, a in enumerate(axes) if a]
        return sensor

    def get_wrench(self, out: list[float] | None = None) -> list[float]:
        """(force x, y, z, torque x, y, z), NaN on missing axes; into ``out`` (six
        floats) when given, which allocates nothing (loop-safe)."""
        handles = self._assigned()
        if out is None:
            out = [_NAN] * 6
        for slot, h in zip(self._slots, handles):
            out[slot] = h.value
        return out

    def get_forces(self) -> tuple[float, float, float]:
        """Forces (x, y, z), N; NaN on missing axes."""
        w = self.get_wrench()
        return (w[0], w[1], w[2])

    def get_torques(self) -> tuple[float, float, float]:
        """Torques (x, y, z), N m; NaN on missing axes."""
        w = self.get_wrench()
        return (w[3], w[4], w[5])

    def get_values_as_message(self, message: Any) -> bool:
        """Fill ``force`` and ``torque`` of a geometry_msgs/Wrench in place; True."""
        fill_wrench_message(message, self.get_wrench())
        return True


def fill_wrench_message(message: Any, values: Any) -> None:
    """Copy six values (force x, y, z, torque x, y, z) into a geometry_msgs/Wrench."""
    f, t = message.force, message.torque
    f.x, f.y, f.z = values[0], values[1], values[2]
    t.x, t.y, t.z = values[3], values[4], values[5]
