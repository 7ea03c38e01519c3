"""The ROS side of a topic-based hardware component: its own node, spun in a thread of its own.

The control loop never calls rclpy here: incoming JointState messages are turned into one
tuple of per-joint values in the subscription callback (executor thread) and put in a
RealtimeBox; outgoing commands go through a RealtimePublisher (try-lock, published by the
shared publishing thread). `joins` counts subscribers matching the commands publisher, so the
component can send its commands again to a simulator that came late. The node lives in
rclpy's default context, the one `ros2_control_node` initializes.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import rclpy
from rclpy.event_handler import PublisherEventCallbacks, QoSPublisherMatchedInfo
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import QoSProfile, qos_profile_sensor_data
from sensor_msgs.msg import JointState

from py_controllers.realtime_tools.realtime_box import RealtimeBox
from py_controllers.realtime_tools.realtime_publisher import RealtimePublisher

_NAN = math.nan


@dataclass(frozen=True)
class StateSample:
    """One JointState message mapped onto the component's joints (NaN: not in the message)."""

    position: tuple[float, ...]
    velocity: tuple[float, ...]
    effort: tuple[float, ...]
    received_ns: int  # time.monotonic_ns() at arrival


class TopicBridge:
    """A node with the command publisher and the state subscription of one component."""

    def __init__(
        self,
        node_name: str,
        joints: Sequence[str],
        commands_topic: str,
        states_topic: str,
    ) -> None:
        if not rclpy.ok():
            raise RuntimeError('rclpy is not initialized (the default context is not ok)')
        self._index = {name: i for i, name in enumerate(joints)}
        self._count = len(joints)
        self.states: RealtimeBox[StateSample | None] = RealtimeBox(None)
        self.malformed = 0
        self.node = Node(node_name)
        self.joins = 0
        publisher = self.node.create_publisher(
            JointState,
            commands_topic,
            QoSProfile(depth=1),
            event_callbacks=PublisherEventCallbacks(matched=self._on_matched),
        )
        self.commands = RealtimePublisher(publisher, JointState())
        self.node.create_subscription(
            JointState, states_topic, self._on_state, qos_profile_sensor_data
        )
        self._executor = SingleThreadedExecutor()
        self._executor.add_node(self.node)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, name=node_name, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        try:
            while not self._stop.is_set() and rclpy.ok():
                self._executor.spin_once(timeout_sec=0.05)
        except ExternalShutdownException:
            pass

    def _on_matched(self, info: QoSPublisherMatchedInfo) -> None:
        """Count subscribers joining the commands (a simulator started or restarted later)."""
        if info.current_count_change > 0:
            self.joins += 1

    def _on_state(self, msg: JointState) -> None:
        names, pos, vel, eff = msg.name, msg.position, msg.velocity, msg.effort
        n = len(names)
        if len(pos) != n or len(vel) not in (0, n) or len(eff) not in (0, n):
            self.malformed += 1
            if self.malformed == 1:
                self.node.get_logger().error(
                    f'JointState with {n} names but {len(pos)} positions, {len(vel)} '
                    f'velocities, {len(eff)} efforts: ignored (and any like it from now on)'
                )
            return
        p, v, e = [_NAN] * self._count, [_NAN] * self._count, [_NAN] * self._count
        matched = False
        for k, name in enumerate(names):
            i = self._index.get(name)
            if i is None:
                continue
            matched = True
            p[i] = pos[k]
            if vel:
                v[i] = vel[k]
            if eff:
                e[i] = eff[k]
        if not matched:  # another robot's states on the same topic: not a sign of life
            return
        self.states.set(StateSample(tuple(p), tuple(v), tuple(e), time.monotonic_ns()))

    def close(self) -> None:
        """Stop the spinning thread and destroy the node (not from the loop thread)."""
        self._stop.set()
        self._thread.join(timeout=2.0)
        self.commands.wait_idle(1.0)
        self._executor.remove_node(self.node)
        self._executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
