"""Publishing /tf: through tf2_ros's TransformBroadcaster when it is importable,
otherwise a plain tf2_msgs/TFMessage publisher on /tf with the same QoS (the same
message on the wire either way).
"""

from __future__ import annotations

from typing import Any

from rclpy.qos import QoSProfile
from tf2_msgs.msg import TFMessage

TF_QOS = QoSProfile(depth=100)


class _BroadcasterAdapter:
    """Gives a TransformBroadcaster the `publish(TFMessage)` shape of a publisher."""

    def __init__(self, broadcaster: Any) -> None:
        self._broadcaster = broadcaster

    def publish(self, msg: TFMessage) -> None:
        self._broadcaster.sendTransform(list(msg.transforms))


def create_tf_publisher(node: Any) -> Any:
    """An object with `publish(TFMessage)` that sends to /tf."""
    try:
        from tf2_ros import TransformBroadcaster
    except ImportError:
        return node.create_publisher(TFMessage, '/tf', TF_QOS)
    return _BroadcasterAdapter(TransformBroadcaster(node, qos=TF_QOS))
