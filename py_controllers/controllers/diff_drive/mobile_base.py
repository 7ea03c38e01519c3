"""ROS glue the mobile-base controllers share (diff drive, steering, tricycle, mecanum,
omni): the TF frame prefix, velocity reference interfaces, the ~/set_odometry answer, and
publishing odometry with its odom -> base transform from the loop."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from py_controllers.controllers.diff_drive.odometry_messages import OdometryMessages
from py_controllers.hardware_interface.handle import CommandInterface
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.realtime_tools import RealtimePublisher


def resolve_tf_prefix(prefix: str, namespace: str) -> str:
    """'' for no prefix; else '~' replaced by the namespace, slashes normalised, one '/' at
    the end (ros2_control's resolve_tf_prefix)."""
    if not prefix:
        return ''
    prefix = prefix.replace('~', namespace).strip('/')
    return f'{prefix}/' if prefix else ''


def frame_prefix(params: Any, namespace: str) -> str:
    """The TF prefix: tf_frame_prefix, or the node namespace when it is empty."""
    if not params.tf_frame_prefix_enable:
        return ''
    return resolve_tf_prefix(params.tf_frame_prefix or namespace, namespace)


def velocity_references(name: str, axes: Sequence[str]) -> list[CommandInterface]:
    """The reference interfaces `<name>/<axis>/velocity` of a chainable base, NaN (nothing
    written yet)."""
    return [CommandInterface(f'{name}/{axis}', 'velocity') for axis in axes]


def answer_set_odometry(
    controller: Any,
    request: Any,
    response: Any,
    *,
    inactive_message: str = 'Controller is not active',
    accepted_message: str = 'Odometry set request accepted',
) -> Any:
    """Answer a control_msgs/SetOdometry request to `controller`: refused when it is not
    active or the pose is not finite (logged), else handed to its loop through
    `controller.pose_requests` (a RequestHandoff of (x, y, yaw))."""
    values = (request.x, request.y, request.yaw)
    if controller.lifecycle_state() != LifecycleStateId.ACTIVE:
        response.success, response.message = False, inactive_message
    elif not all(math.isfinite(v) for v in values):
        response.success = False
        response.message = f'set_odometry refused: non-finite pose {values}'
        controller.get_node().get_logger().error(response.message, throttle_duration_sec=1.0)
    else:
        controller.pose_requests.put(values)
        response.success, response.message = True, accepted_message
    return response


class OdometryOutput:
    """The odometry message and its transform with their realtime publishers; the loop
    writes the pose and body twist into both and publishes them (`publish_rt`)."""

    def __init__(
        self, messages: OdometryMessages, odometry_publisher: Any, tf_publisher: Any = None
    ) -> None:
        """`tf_publisher` None: no transform is ever published."""
        self.messages = messages
        self._odom_rt = RealtimePublisher(odometry_publisher, messages.odometry)
        self._tf_rt = (
            None if tf_publisher is None else RealtimePublisher(tf_publisher, messages.transform)
        )

    def publish_rt(
        self,
        now_ns: int,
        odom: Any,
        twist: tuple[float, float, float],
        *,
        with_tf: bool = True,
        twist_only: bool = False,
    ) -> None:
        """Publish `odom`'s pose (x, y, heading) with `twist` (forward, turning, sideways),
        and the transform when `with_tf`; `twist_only` leaves the message's pose at the
        origin (the transform still carries it). Skips a publisher still busy."""
        msgs = self.messages
        if self._odom_rt.trylock():
            if twist_only:
                msgs.write_odometry_rt(now_ns, 0.0, 0.0, 0.0, *twist)
            else:
                msgs.write_odometry_rt(now_ns, odom.x, odom.y, odom.heading, *twist)
            self._odom_rt.unlock_and_publish()
        tf_rt = self._tf_rt
        if with_tf and tf_rt is not None and tf_rt.trylock():
            msgs.write_transform_rt(now_ns, odom.x, odom.y, odom.heading)
            tf_rt.unlock_and_publish()
