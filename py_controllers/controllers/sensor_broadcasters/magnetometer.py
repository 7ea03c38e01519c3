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
from py_controllers.controllers.sensor_broadcasters.common import SensorBroadcasterMixin
from py_controllers.realtime_tools import RealtimePublisher
from py_controllers.ros_conversions import set_stamp
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
        publisher = self.get_node().create_publisher(MagneticField, '~/magnetic_field', 10)
        self._rt = RealtimePublisher(publisher, msg)
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> ReturnType:
        rt = self._rt
        if rt.trylock():
            msg = rt.msg
            set_stamp(msg.header.stamp, time.nanoseconds)
            self.sensor.get_values_as_message(msg)
            rt.unlock_and_publish()
        return ReturnType.OK
