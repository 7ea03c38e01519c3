"""The topics the manager hears its robot description on, while it has none.

`robot_description`, a relative name (`/robot_description`, or `/<ns>/robot_description`
in a namespace), is upstream's since Jazzy: robot_state_publisher publishes there and
launch files written for Jazzy or later remap nothing. `~/robot_description`
(`/controller_manager/robot_description`) is the Humble convention, which Humble launch
files remap to robot_state_publisher's topic. Both are transient local and reliable, as
robot_state_publisher publishes. The first description that loads wins, from either topic;
one arriving later, on either, is logged and ignored (no reload, as upstream). A description
that is refused does not count: the manager keeps waiting on both. When both names resolve
to one topic (`-r ~/robot_description:=/robot_description` in the root namespace), one
subscription serves it.
"""

from __future__ import annotations

from collections.abc import Callable

from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

TOPIC_NAMES = ('robot_description', '~/robot_description')
WAITING_PERIOD_S = 1.0


class DescriptionTopics:
    """Subscriptions to both description topics and the once-a-second waiting line."""

    def __init__(self, node: Node, on_description: Callable[[String, str], None]) -> None:
        """`on_description(msg, source)` gets every message, `source` naming its topic
        ("topic '/robot_description'")."""
        latched = QoSProfile(
            depth=1,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        )
        self.topics: list[str] = []
        self._subscriptions = []
        for name in TOPIC_NAMES:
            topic = node.resolve_topic_name(name)
            if topic in self.topics:
                continue
            self.topics.append(topic)
            self._subscriptions.append(
                node.create_subscription(
                    String, topic, lambda msg, t=topic: on_description(msg, f"topic '{t}'"), latched
                )
            )
        log = node.get_logger()
        named = ' or '.join(f"'{t}'" for t in self.topics)
        log.info(f'Subscribing to {named} for the robot description')
        waiting = f'Waiting for data on {named} topic to finish initialization'
        self._timer = node.create_timer(WAITING_PERIOD_S, lambda: log.warning(waiting))

    def loaded(self) -> None:
        """A description has loaded: stop the waiting line (the subscriptions stay, so that
        a later description is logged as ignored)."""
        self._timer.cancel()
