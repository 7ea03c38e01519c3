"""GPSSensor: a fix (status, service, latitude, longitude, altitude) and optionally the
diagonal of its position covariance, as upstream's ``semantic_components/gps_sensor.hpp``.

Interfaces, in this order: ``<name>/status``, ``<name>/service``, ``<name>/latitude``,
``<name>/longitude``, ``<name>/altitude``; with covariance also ``<name>/latitude_covariance``,
``<name>/longitude_covariance``, ``<name>/altitude_covariance`` (upstream's
``GPSSensorOption::WithCovariance``).

status (int8) and service (uint16) are read as doubles and cut toward zero, as upstream's
``static_cast``. A reading that is no number in the field's range (NaN, or 300 for the
int8 status) has no C++ meaning; it is sent as upstream's value for "no reading": 127 for
the status, 65535 for the service.
"""

from __future__ import annotations

from typing import Any

from py_controllers.semantic_components.casts import to_integer
from py_controllers.semantic_components.semantic_component import SemanticComponentInterface

GPS_INTERFACES = ('status', 'service', 'latitude', 'longitude', 'altitude')
GPS_COVARIANCE_INTERFACES = ('latitude_covariance', 'longitude_covariance', 'altitude_covariance')

STATUS_NO_READING = 127  # int8 max, upstream's value when the status cannot be read
SERVICE_NO_READING = 65535  # uint16 max, likewise for the service


class GPSSensor(SemanticComponentInterface):
    """The state interfaces of GPS ``name``; ``with_covariance`` adds the three variances."""

    def __init__(self, name: str, *, with_covariance: bool = False) -> None:
        interfaces = GPS_INTERFACES + (GPS_COVARIANCE_INTERFACES if with_covariance else ())
        super().__init__(name, [f'{name}/{itf}' for itf in interfaces])
        self.with_covariance = with_covariance
        self._covariance = [0.0] * 9

    def get_status(self) -> int:
        """The fix status (sensor_msgs/NavSatStatus STATUS_*)."""
        return to_integer(self._assigned()[0].value, -128, 127, STATUS_NO_READING)

    def get_service(self) -> int:
        """The satellite systems used (sensor_msgs/NavSatStatus SERVICE_* bits)."""
        return to_integer(self._assigned()[1].value, 0, 65535, SERVICE_NO_READING)

    def get_latitude(self) -> float:
        """Latitude, degrees."""
        return self._assigned()[2].value

    def get_longitude(self) -> float:
        """Longitude, degrees."""
        return self._assigned()[3].value

    def get_altitude(self) -> float:
        """Altitude, m."""
        return self._assigned()[4].value

    def get_covariance(self) -> list[float]:
        """The 3x3 position covariance, row major: the three variances on the diagonal, 0
        elsewhere. The same list every call (no allocation); only with covariance."""
        if not self.with_covariance:
            raise TypeError(f"GPSSensor '{self.name}' has no covariance interfaces")
        h = self._assigned()
        c = self._covariance
        c[0], c[4], c[8] = h[5].value, h[6].value, h[7].value
        return c

    def get_values_as_message(self, message: Any) -> bool:
        """Fill status, latitude, longitude, altitude (and with covariance the position
        covariance) of a sensor_msgs/NavSatFix in place; True, as upstream."""
        message.status.status = self.get_status()
        message.status.service = self.get_service()
        message.latitude = self.get_latitude()
        message.longitude = self.get_longitude()
        message.altitude = self.get_altitude()
        if self.with_covariance:
            message.position_covariance[:] = self.get_covariance()
        return True
