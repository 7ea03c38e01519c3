"""`magnetometer_broadcaster/MagnetometerBroadcaster`: a magnetometer to `~/magnetic_field`.

Reads ``<sensor_name>/magnetic_field.x``, ``.y``, ``.z`` through the MagneticFieldSensor
semantic component and publishes sensor_msgs/MagneticField every update:
``header.frame_id`` = ``frame_id``, the manager's time, the values as read (NaN included)
and ``static_covariance`` as configured.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sensor_msgs.msg import MagneticField

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    ReturnType,
)
from py_controllers.controllers.sensor_broadcasters.common import (
    SensorBroadcasterMixin,
    SensorMessagePublisher,
)
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.semantic_components import MagneticFieldSensor


class MagnetometerBroadcaster(SensorBroadcasterMixin, ControllerInterface):
    """Publishes one magnetometer as sensor_msgs/MagneticField on ``~/magnetic_field``."""

    SCHEMA = Path(__file__).parent / 'magnetometer_broadcaster_parameters.yaml'

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        self.params = params
        self.sensor = MagneticFieldSensor(params.sensor_name)
        msg = MagneticField()
        msg.header.frame_id = params.frame_id
        msg.magnetic_field_covariance[:] = params.static_covariance
        self._out = SensorMessagePublisher(
            self.get_node(), MagneticField, '~/magnetic_field', msg, self.sensor
        )
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> ReturnType:
        self._out.publish_rt(time.nanoseconds)
        return RETURN_OK
