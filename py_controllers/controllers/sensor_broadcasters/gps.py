"""`gps_sensor_broadcaster/GPSSensorBroadcaster`: a GPS fix to `~/gps/fix`.

Reads ``<sensor_name>/status``, ``service``, ``latitude``, ``longitude``, ``altitude``
through the GPSSensor semantic component and publishes sensor_msgs/NavSatFix every update,
``header.frame_id`` = ``frame_id``. The position covariance, as upstream:

* ``read_covariance_from_interface`` false (default): ``static_position_covariance`` with
  ``position_covariance_type`` COVARIANCE_TYPE_KNOWN (3), also when it is all zeros;
* true: the diagonal from ``<sensor_name>/latitude_covariance``, ``longitude_covariance``,
  ``altitude_covariance`` (0 elsewhere), type COVARIANCE_TYPE_DIAGONAL_KNOWN (2).

Every parameter is read at configure, as upstream (a change applies at the next
configure). Difference from upstream (ros2_controllers master): the stamp is the manager's
time of the cycle, like every broadcaster here; upstream stamps with the controller node's
clock (``get_node()->now()``), which is the same clock read a moment later.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sensor_msgs.msg import NavSatFix

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
from py_controllers.semantic_components import GPSSensor


class GPSSensorBroadcaster(SensorBroadcasterMixin, ControllerInterface):
    """Publishes one GPS as sensor_msgs/NavSatFix on ``~/gps/fix``."""

    SCHEMA = Path(__file__).parent / 'gps_sensor_broadcaster_parameters.yaml'

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        self.params = params
        from_interface = params.read_covariance_from_interface
        self.sensor = GPSSensor(params.sensor_name, with_covariance=from_interface)
        msg = NavSatFix()
        msg.header.frame_id = params.frame_id
        if from_interface:
            msg.position_covariance_type = NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN
        else:
            msg.position_covariance[:] = params.static_position_covariance
            msg.position_covariance_type = NavSatFix.COVARIANCE_TYPE_KNOWN
        self._out = SensorMessagePublisher(
            self.get_node(), NavSatFix, '~/gps/fix', msg, self.sensor
        )
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> ReturnType:
        self._out.publish_rt(time.nanoseconds)
        return RETURN_OK
