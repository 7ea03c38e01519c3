"""Publishing /tf: a tf2_msgs/TFMessage publisher on /tf with tf2_ros's QoS.

tf2_ros's TransformBroadcaster sends the same message on the same topic with the same QoS,
but only takes message objects; the controllers publish /tf from bytes serialized once
(`realtime_tools.serialized_message`), so they use a plain publisher whether or not
tf2_ros is installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from geometry_msgs.msg import TransformStamped
from rclpy.qos import QoSProfile
from tf2_msgs.msg import TFMessage

from py_controllers.realtime_tools.serialized_message import SerializedMessage

TF_QOS = QoSProfile(depth=100)  # tf2_ros's default for /tf


def create_tf_publisher(node: Any, topic: str = '/tf') -> Any:
    """A publisher of TFMessage on /tf (or on `topic`, e.g. the steering controllers'
    ~/tf_odometry, which users remap to /tf), with /tf's QoS."""
    return node.create_publisher(TFMessage, topic, TF_QOS)


@dataclass(frozen=True)
class TransformMessage:
    """A TFMessage holding one transform, serialized once: what to publish, and where its
    stamp, translation (x, y, z) and rotation (x, y, z, w) lie in the bytes."""

    message: SerializedMessage
    stamp: Any
    translation: np.ndarray
    rotation: np.ndarray


def transform_message(parent_frame: str, child_frame: str) -> TransformMessage:
    """parent_frame -> child_frame, identity until the loop writes it."""
    transform = TransformStamped()
    transform.header.frame_id = parent_frame
    transform.child_frame_id = child_frame
    transform.transform.rotation.w = 1.0
    serialized = SerializedMessage(TFMessage(transforms=[transform]))
    t = transform.transform
    return TransformMessage(
        serialized,
        serialized.time(transform.header.stamp),
        serialized.scalars(t.translation, ('x', 'y', 'z')),
        serialized.scalars(t.rotation, ('x', 'y', 'z', 'w')),
    )
