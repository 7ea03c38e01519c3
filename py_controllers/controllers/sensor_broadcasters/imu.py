"""`imu_sensor_broadcaster/IMUSensorBroadcaster`: an IMU's state interfaces to `~/imu`.

Reads ``<sensor_name>/orientation.x`` ... ``linear_acceleration.z`` through the IMUSensor
semantic component and publishes sensor_msgs/Imu every update: ``header.frame_id`` =
``frame_id``, the stamp the manager's time, the three static covariances as configured.
With a ``rotation_offset`` the readings are re-expressed in the rotated frame
(``imu_transform``) and the angular velocity and linear acceleration covariances rotated
with them. Like upstream, the broadcaster is chainable: it exports the published values as
state interfaces ``<controller>/<sensor_name>/orientation.x`` ... for other controllers.

Differences from upstream (ros2_controllers master):

* upstream transforms the covariances of the previous message again on every cycle, so
  with an anisotropic covariance and a rotation offset they change from message to
  message; here they are rotated once, at configure.
* upstream sets its exported state interfaces once, when they are exported after
  configure (its tests read them back after an update); here they follow every update,
  NaN until the first one.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from sensor_msgs.msg import Imu

from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ReturnType,
)
from py_controllers.controllers.sensor_broadcasters.common import SensorBroadcasterMixin
from py_controllers.controllers.sensor_broadcasters.imu_transform import ImuRotation
from py_controllers.hardware_interface.handle import StateInterface
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.realtime_tools import RealtimePublisher
from py_controllers.realtime_tools.serialized_message import SerializedMessage
from py_controllers.ros_conversions import set_stamp
from py_controllers.semantic_components import IMU_INTERFACES, IMUSensor


class IMUSensorBroadcaster(SensorBroadcasterMixin, ChainableControllerInterface):
    """Publishes one IMU as sensor_msgs/Imu on ``~/imu``."""

    SCHEMA = Path(__file__).parent / 'imu_sensor_broadcaster_parameters.yaml'

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        self.params = params
        offset = params.rotation_offset
        rotation = ImuRotation(offset.roll, offset.pitch, offset.yaw)
        self._rotation = None if rotation.is_identity else rotation
        self.sensor = IMUSensor(params.sensor_name)
        msg = Imu()
        msg.header.frame_id = params.frame_id
        msg.orientation_covariance[:] = params.static_covariance_orientation
        angular = list(params.static_covariance_angular_velocity)
        linear = list(params.static_covariance_linear_acceleration)
        if self._rotation is not None:
            angular = self._rotation.rotate_covariance(angular)
            linear = self._rotation.rotate_covariance(linear)
        msg.angular_velocity_covariance[:] = angular
        msg.linear_acceleration_covariance[:] = linear
        msg.orientation.w = 1.0
        serialized = SerializedMessage(msg)
        self._stamp = serialized.time(msg.header.stamp)
        self._views = (
            (serialized.scalars(msg.orientation, ('x', 'y', 'z', 'w')), 0),
            (serialized.scalars(msg.angular_velocity, ('x', 'y', 'z')), 4),
            (serialized.scalars(msg.linear_acceleration, ('x', 'y', 'z')), 7),
        )
        publisher = self.get_node().create_publisher(Imu, '~/imu', 10)
        self._rt = RealtimePublisher(publisher, serialized)
        self._values = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        return CallbackReturn.SUCCESS

    def on_export_state_interfaces(self) -> list[StateInterface]:
        prefix = f'{self.name}/{self.params.sensor_name}'
        return [StateInterface(prefix, itf, math.nan) for itf in IMU_INTERFACES]

    def update_and_write_commands(self, time: Any, period: Any) -> ReturnType:
        values = self.sensor.get_values(self._values)
        if self._rotation is not None:
            self._rotation.apply_rt(values)
        for handle, value in zip(self.exported_state_interfaces, values):
            handle.value = value
        rt = self._rt
        if rt.trylock():
            set_stamp(self._stamp, time.nanoseconds)
            for view, first in self._views:
                view[:] = values[first : first + view.shape[0]]
            rt.unlock_and_publish()
        return RETURN_OK
