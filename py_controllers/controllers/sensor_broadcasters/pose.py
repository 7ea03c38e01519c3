"""`pose_broadcaster/PoseBroadcaster`: a pose's state interfaces to `~/pose` and `/tf`.

Reads ``<pose_name>/position.x`` ... ``<pose_name>/orientation.w`` through the PoseSensor
semantic component and publishes geometry_msgs/PoseStamped on ``~/pose`` every update
(``header.frame_id`` = ``frame_id``, the manager's time). With ``tf.enable`` (the default)
the same pose goes to ``/tf`` as the transform ``frame_id`` -> ``tf.child_frame_id`` (empty:
``pose_name``), but only while the pose is valid, as upstream: every value finite and the
quaternion's squared norm within 0.01 of 1. An invalid pose is still published on ``~/pose``
and logged as an error at most once a second (the loop wakes the executor, which logs).
"""

from __future__ import annotations

import contextlib
import math
from pathlib import Path
from typing import Any

from geometry_msgs.msg import PoseStamped

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    ReturnType,
)
from py_controllers.controllers.sensor_broadcasters.common import SensorBroadcasterMixin
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.realtime_tools import RealtimePublisher
from py_controllers.realtime_tools.serialized_message import SerializedMessage
from py_controllers.ros_conversions import set_stamp
from py_controllers.semantic_components import PoseSensor
from py_controllers.tf_publisher import create_tf_publisher, transform_message

QUATERNION_NORM_TOLERANCE = 10e-3  # upstream's bound on | |q|^2 - 1 |
INVALID_LOG_PERIOD_NS = 1_000_000_000

_isfinite = math.isfinite


def is_pose_valid(values: list[float]) -> bool:
    """Seven values (position x, y, z, orientation x, y, z, w) form a usable pose: all
    finite, and the quaternion of (almost) unit length."""
    for v in values:
        if not _isfinite(v):
            return False
    x, y, z, w = values[3], values[4], values[5], values[6]
    return abs(x * x + y * y + z * z + w * w - 1.0) <= QUATERNION_NORM_TOLERANCE


class PoseBroadcaster(SensorBroadcasterMixin, ControllerInterface):
    """Publishes one pose on ``~/pose`` and, optionally, ``/tf``."""

    SCHEMA = Path(__file__).parent / 'pose_broadcaster_parameters.yaml'

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        self.params = params
        node = self.get_node()
        self.sensor = PoseSensor(params.pose_name)
        msg = PoseStamped()
        msg.header.frame_id = params.frame_id
        msg.pose.orientation.w = 1.0
        pose_msg = SerializedMessage(msg)
        self._pose_fields = (
            pose_msg.time(msg.header.stamp),
            pose_msg.scalars(msg.pose.position, ('x', 'y', 'z')),
            pose_msg.scalars(msg.pose.orientation, ('x', 'y', 'z', 'w')),
        )
        pose_pub = node.create_publisher(PoseStamped, '~/pose', 10)
        self._pose_rt = RealtimePublisher(pose_pub, pose_msg)
        self._tf_rt: RealtimePublisher | None = None
        if params.tf.enable:
            tf = transform_message(params.frame_id, params.tf.child_frame_id or params.pose_name)
            self._tf_fields = (tf.stamp, tf.translation, tf.rotation)
            self._tf_rt = RealtimePublisher(create_tf_publisher(node), tf.message)
        self._values = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
        self._invalid_pose: tuple[float, ...] = ()
        self._invalid_count = 0
        self._next_invalid_log_ns: int | None = None
        self._log_invalid = node.create_guard_condition(self._log_invalid_pose)
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> ReturnType:
        now_ns = time.nanoseconds
        values = self.sensor.get_values(self._values)
        rt = self._pose_rt
        if rt.trylock():
            _write_pose_rt(self._pose_fields, now_ns, values)
            rt.unlock_and_publish()
        if not is_pose_valid(values):
            self._report_invalid_rt(values, now_ns)
            return RETURN_OK
        tf_rt = self._tf_rt
        if tf_rt is not None and tf_rt.trylock():
            _write_pose_rt(self._tf_fields, now_ns, values)
            tf_rt.unlock_and_publish()
        return RETURN_OK

    def _report_invalid_rt(self, values: list[float], now_ns: int) -> None:
        """Count an invalid pose; wake the executor to log it at most once a second."""
        self._invalid_count += 1
        due = self._next_invalid_log_ns
        if due is not None and now_ns < due:
            return
        self._next_invalid_log_ns = now_ns + INVALID_LOG_PERIOD_NS
        self._invalid_pose = tuple(values)
        # destroyed by a cleanup meanwhile: nothing to log to
        with contextlib.suppress(Exception):
            self._log_invalid.trigger()

    def _log_invalid_pose(self) -> None:
        """Executor thread: log the invalid pose the loop saw."""
        p = self._invalid_pose
        if not p:
            return
        self.get_node().get_logger().error(
            f'Invalid pose [{p[0]}, {p[1]}, {p[2]}], [{p[3]}, {p[4]}, {p[5]}, {p[6]}] '
            f"('{self.params.pose_name}': {self._invalid_count} invalid so far): "
            'published on ~/pose, not on /tf'
        )


def _write_pose_rt(fields: tuple[Any, Any, Any], now_ns: int, values: list[float]) -> None:
    stamp, position, orientation = fields
    set_stamp(stamp, now_ns)
    position[:] = values[:3]
    orientation[:] = values[3:7]
