"""IMUSensor: orientation, angular velocity and linear acceleration of an IMU.

Interfaces, in this order (upstream's ``semantic_components/imu_sensor.hpp``):
``<name>/orientation.x .y .z .w``, ``<name>/angular_velocity.x .y .z``,
``<name>/linear_acceleration.x .y .z``.
"""

from __future__ import annotations

from typing import Any

from py_controllers.semantic_components.semantic_component import SemanticComponentInterface

IMU_INTERFACES = (
    'orientation.x',
    'orientation.y',
    'orientation.z',
    'orientation.w',
    'angular_velocity.x',
    'angular_velocity.y',
    'angular_velocity.z',
    'linear_acceleration.x',
    'linear_acceleration.y',
    'linear_acceleration.z',
)


class IMUSensor(SemanticComponentInterface):
    """The ten state interfaces of IMU ``name``."""

    def __init__(self, name: str) -> None:
        super().__init__(name, [f'{name}/{itf}' for itf in IMU_INTERFACES])

    def get_orientation(self) -> tuple[float, float, float, float]:
        """The orientation quaternion (x, y, z, w)."""
        h = self._assigned()
        return (h[0].value, h[1].value, h[2].value, h[3].value)

    def get_angular_velocity(self) -> tuple[float, float, float]:
        """Angular velocity (x, y, z), rad/s."""
        h = self._assigned()
        return (h[4].value, h[5].value, h[6].value)

    def get_linear_acceleration(self) -> tuple[float, float, float]:
        """Linear acceleration (x, y, z), m/s^2."""
        h = self._assigned()
        return (h[7].value, h[8].value, h[9].value)

    def get_values_as_message(self, message: Any) -> bool:
        """Fill ``orientation``, ``angular_velocity`` and ``linear_acceleration`` of a
        sensor_msgs/Imu in place (header and covariances untouched); True, as upstream."""
        fill_imu_message(message, self.get_values())
        return True


def fill_imu_message(message: Any, values: Any) -> None:
    """Copy ten values in IMU_INTERFACES order into a sensor_msgs/Imu (loop-safe)."""
    o, w, a = message.orientation, message.angular_velocity, message.linear_acceleration
    o.x, o.y, o.z, o.w = values[0], values[1], values[2], values[3]
    w.x, w.y, w.z = values[4], values[5], values[6]
    a.x, a.y, a.z = values[7], values[8], values[9]
