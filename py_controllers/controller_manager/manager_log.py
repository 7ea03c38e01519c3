"""Why a manager call failed, read from /rosout: LoadController and ConfigureController
answer only `ok` (as upstream's), while the manager logs the reason. Listening keeps the
services as upstream's, so the spawner explains failures of upstream's manager too.

A line counts for a call when it arrives after the call started, is stamped no earlier
(the manager's system clock: on another machine a skewed clock can hide the reason, never
invent one), is an error, and comes from the manager naming the controller or from the
controller's own logger.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rcl_interfaces.msg import Log
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from py_controllers.ros_conversions import stamp_to_ns

REASON_WAIT_S = 1.0
"""How long a failed call waits for its reason: /rosout and the service answer are
separate topics, so the line may arrive just after the answer."""

# transient local as the publishers' (rcl's rosout QoS): a line logged before this
# subscription matched the manager still arrives
ROSOUT_QOS = QoSProfile(
    depth=1000, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
)


def logger_name(node_name: str) -> str:
    """rcl's logger name of the node with fully qualified name `node_name`
    ('/robot1/controller_manager' -> 'robot1.controller_manager')."""
    return node_name.strip('/').replace('/', '.')


class ManagerLog:
    """The error lines of one manager (and its controllers) on /rosout, per call."""

    def __init__(self, node: Node, manager: str) -> None:
        """`manager`: the manager node's fully qualified name."""
        self.manager = manager
        self._namespace = manager.rpartition('/')[0]
        self._lines: list[Log] = []
        self._since_ns = time.time_ns()
        self._sub = node.create_subscription(Log, '/rosout', self._on_line, ROSOUT_QOS)
        self._node = node

    def _on_line(self, msg: Log) -> None:
        if msg.level >= Log.ERROR and stamp_to_ns(msg.stamp) >= self._since_ns:
            self._lines.append(msg)

    def start(self) -> None:
        """A call starts now: forget earlier lines."""
        self._lines.clear()
        self._since_ns = time.time_ns()

    def reasons(self, controller: str) -> list[str]:
        """Error lines about `controller` since start(), oldest first."""
        manager = logger_name(self.manager)
        own = logger_name(f'{self._namespace}/{controller}')
        return [
            m.msg
            for m in self._lines
            if (m.name == manager and f"'{controller}'" in m.msg) or m.name == own
        ]

    def wait_for_reasons(
        self, controller: str, spin_until: Callable[[Callable[[], bool], float, str], bool]
    ) -> list[str]:
        """reasons(controller), waiting up to REASON_WAIT_S for the first one with
        `spin_until` (ControllerManagerClient.spin_until: serves this subscription)."""
        spin_until(
            lambda: bool(self.reasons(controller)),
            REASON_WAIT_S,
            f"while reading why '{controller}' failed from /rosout",
        )
        return self.reasons(controller)

    def close(self) -> None:
        """Stop listening (a spawner waiting for a signal has no use for /rosout)."""
        self._node.destroy_subscription(self._sub)
