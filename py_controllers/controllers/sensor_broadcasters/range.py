"""`range_sensor_broadcaster/RangeSensorBroadcaster`: ``<sensor_name>/range`` to `~/range`.

Publishes sensor_msgs/Range every update: ``header.frame_id`` = ``frame_id``, the manager's
time, the range as read (even outside [min_range, max_range], as upstream) and
``radiation_type``, ``field_of_view``, ``min_range``, ``max_range`` and ``variance`` as
configured (read at configure). The message's float fields are 32-bit.

Difference from upstream (ros2_controllers master): ``radiation_type`` must be 0
(ultrasound) or 1 (infrared), the two values sensor_msgs/Range defines; upstream takes any
integer and casts it to uint8.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sensor_msgs.msg import Range

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
from py_controllers.semantic_components import RangeSensor
from py_controllers.semantic_components.range_sensor import to_float32


class RangeSensorBroadcaster(SensorBroadcasterMixin, ControllerInterface):
    """Publishes one range sensor as sensor_msgs/Range on ``~/range``."""

    SCHEMA = Path(__file__).parent / 'range_sensor_broadcaster_parameters.yaml'

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        if not params.sensor_name:
            log.error("'sensor_name' parameter has to be specified")
            return CallbackReturn.ERROR
        if not params.frame_id:
            log.error("'frame_id' parameter has to be provided")
            return CallbackReturn.ERROR
        self.params = params
        self.sensor = RangeSensor(params.sensor_name)
        msg = Range()
        msg.header.frame_id = params.frame_id
        msg.radiation_type = params.radiation_type
        msg.field_of_view = to_float32(params.field_of_view)
        msg.min_range = to_float32(params.min_range)
        msg.max_range = to_float32(params.max_range)
        msg.variance = to_float32(params.variance)
        self._out = SensorMessagePublisher(self.get_node(), Range, '~/range', msg, self.sensor)
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> ReturnType:
        self._out.publish_rt(time.nanoseconds)
        return RETURN_OK
