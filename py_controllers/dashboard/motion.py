"""Commands that move the robot: the steering pads' cmd_vel and trajectory goals.

Steering is a dead man's handle: a page renews a lease about ten times a second while
the pad is held; a timer on the ROS thread publishes the command while the lease holds,
one zero TwistStamped when it is released or runs out (page closed, connection lost,
browser frozen), then nothing, so the diff drive's own cmd_vel_timeout stays the last
line of defence.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from control_msgs.action import FollowJointTrajectory
from geometry_msgs.msg import TwistStamped
from trajectory_msgs.msg import JointTrajectoryPoint

from py_controllers.dashboard.model import SteeringLease, trajectory_result_text
from py_controllers.dashboard.ros_bridge import Goal, RosBridge
from py_controllers.ros_conversions import set_duration

PUBLISH_PERIOD_S = 0.05
"""cmd_vel every 50 ms while a pad is held (a tenth of the demo's cmd_vel_timeout)."""

LEASE_S = 0.3
"""A pad that has not been heard of for this long stops its robot."""


def cmd_vel_topic(controller: str) -> str:
    """The diff drive's velocity command topic."""
    return f'/{controller.strip("/")}/cmd_vel'


class Steering:
    """The steering leases of every diff drive, published from one ROS timer."""

    def __init__(self, bridge: RosBridge, *, lease_s: float = LEASE_S) -> None:
        self.bridge = bridge
        self.lease_s = lease_s
        self.leases: dict[str, SteeringLease] = {}
        self.sent = 0
        bridge.timer(PUBLISH_PERIOD_S, self._publish_all)

    def lease(self, topic: str) -> SteeringLease:
        """The lease of `topic` (made on first use; the publisher with it)."""
        if topic not in self.leases:
            self.leases[topic] = SteeringLease(self.lease_s)
            self.bridge.in_ros(self.bridge.publisher, TwistStamped, topic)
        return self.leases[topic]

    def command(self, topic: str, owner: str, linear: float, angular: float) -> None:
        """Steer on `topic` (renews the lease)."""
        self.lease(topic).command(owner, linear, angular, time.monotonic())

    def release(self, topic: str, owner: str | None = None) -> None:
        """Stop on `topic` now (a zero goes out at once)."""
        if self.lease(topic).release(owner):
            self.bridge.in_ros(self._publish, topic)

    def release_owner(self, owner: str) -> None:
        """Stop everything `owner` (a page) steers: it went away."""
        for topic in list(self.leases):
            self.release(topic, owner)

    async def stop_all(self) -> None:
        """Stop every pad and return once the zeros are published (shutdown)."""
        for lease in list(self.leases.values()):
            lease.release()
        await self.bridge.run(self._publish_all)

    def _publish_all(self) -> None:  # the ROS thread
        for topic in list(self.leases):
            self._publish(topic)

    def _publish(self, topic: str) -> None:  # the ROS thread
        command = self.leases[topic].tick(time.monotonic())
        if command is None:
            return
        msg = TwistStamped()
        msg.header.stamp = self.bridge.node.get_clock().now().to_msg()
        msg.twist.linear.x, msg.twist.angular.z = command
        self.bridge.publisher(TwistStamped, topic).publish(msg)
        self.sent += 1


def follow_joint_trajectory_action(controller: str) -> str:
    """The JTC's action name."""
    return f'/{controller.strip("/")}/follow_joint_trajectory'


def trajectory_goal(
    joints: Sequence[str], positions: Sequence[float], duration_s: float
) -> FollowJointTrajectory.Goal:
    """A one-point goal: reach `positions` at rest after `duration_s`."""
    goal = FollowJointTrajectory.Goal()
    goal.trajectory.joint_names = list(joints)
    point = JointTrajectoryPoint()
    point.positions = [float(p) for p in positions]
    point.velocities = [0.0] * len(joints)
    set_duration(point.time_from_start, duration_s)
    goal.trajectory.points = [point]
    return goal


async def send_trajectory(
    bridge: RosBridge,
    controller: str,
    joints: Sequence[str],
    positions: Sequence[float],
    duration_s: float,
) -> Goal:
    """Send a one-point goal to `controller`; returns the accepted goal (raises
    NotAvailableError or CallFailedError)."""
    goal = trajectory_goal(joints, positions, duration_s)
    return await bridge.send_goal(
        FollowJointTrajectory, follow_joint_trajectory_action(controller), goal
    )


async def result_text(goal: Goal) -> str:
    """Await the goal's end and describe it in one line."""
    status, result = await goal.result()
    return trajectory_result_text(status, int(result.error_code), str(result.error_string))
