"""Commands that move the robot: the steering pads' TwistStamped, trajectory goals and
gripper goals.

Steering is a dead man's handle: a page renews a lease about ten times a second while
the pad is held; a timer on the ROS thread publishes the command while the lease holds,
one zero TwistStamped when it is released or runs out (page closed, connection lost,
browser frozen), then nothing, so the controller's own timeout (a diff drive's
cmd_vel_timeout, a steering controller's reference_timeout) stays the last line of defence.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from control_msgs.action import FollowJointTrajectory, GripperCommand, ParallelGripperCommand
from geometry_msgs.msg import TwistStamped
from trajectory_msgs.msg import JointTrajectoryPoint

from py_controllers.dashboard.bases import Base
from py_controllers.dashboard.model import (
    DEFAULT_RANGE,
    JointRange,
    SteeringLease,
    Velocity,
    clamp_positions,
    gripper_result_text,
    limit_twist,
    trajectory_result_text,
)
from py_controllers.dashboard.names import controller_topic
from py_controllers.dashboard.ros_bridge import Goal, RosBridge
from py_controllers.ros_conversions import set_duration

PUBLISH_PERIOD_S = 0.05
"""cmd_vel every 50 ms while a pad is held (a tenth of the demo's cmd_vel_timeout)."""

LEASE_S = 0.3
"""A pad that has not been heard of for this long stops its robot."""


PAD_MAX_LINEAR = 2.0
"""m/s: the most a pad's speed slider offers (and the server accepts)."""
PAD_MAX_ANGULAR = 4.0
"""rad/s: likewise for turning."""


def twist_topic(manager: str, controller: str, base: Base) -> str:
    """Where `controller` (a base of kind `base`) reads its TwistStamped:
    `/<ns>/<controller>/cmd_vel` or `/<ns>/<controller>/reference`."""
    return controller_topic(manager, controller, base.topic)


PAD_RANGE = Velocity(PAD_MAX_LINEAR, 0.0, PAD_MAX_ANGULAR)
"""What a topic accepts before its pad says more: no sideways speed."""


class Steering:
    """The steering leases of every base, published from one ROS timer."""

    def __init__(self, bridge: RosBridge, *, lease_s: float = LEASE_S) -> None:
        self.bridge = bridge
        self.lease_s = lease_s
        self.leases: dict[str, SteeringLease] = {}
        self.limits: dict[str, Velocity] = {}
        """topic -> the largest speeds: the pad's range, narrowed to the controller's own
        limits once they are read; a sideways one only for a holonomic base."""
        self.sent = 0
        bridge.timer(PUBLISH_PERIOD_S, self._publish_all)

    def lease(self, topic: str) -> SteeringLease:
        """The lease of `topic` (made on first use; the publisher with it)."""
        if topic not in self.leases:
            self.leases[topic] = SteeringLease(self.lease_s)
            self.bridge.in_ros(self.bridge.publisher, TwistStamped, topic)
        return self.leases[topic]

    def set_limits(self, topic: str, limits: Velocity) -> None:
        """The largest speeds accepted for `topic` (linear x and y m/s, angular z rad/s)."""
        self.limits[topic] = Velocity(*limits)

    def command(
        self, topic: str, owner: str, linear: float, angular: float, lateral: float = 0.0
    ) -> None:
        """Steer on `topic` (renews the lease); speeds beyond its limits are clamped to
        them here, whatever the page asked for; a non-finite one stops."""
        maxima = self.limits.get(topic, PAD_RANGE)
        twist = limit_twist(Velocity(linear, lateral, angular), maxima)
        self.lease(topic).command(owner, twist, time.monotonic())

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
        # the node follows the manager's use_sim_time (ManagerWatch): /clock time then
        msg.header.stamp = self.bridge.node.get_clock().now().to_msg()
        msg.twist.linear.x, msg.twist.linear.y, msg.twist.angular.z = command
        self.bridge.publisher(TwistStamped, topic).publish(msg)
        self.sent += 1


def follow_joint_trajectory_action(manager: str, controller: str) -> str:
    """The JTC's action name (`/<ns>/<controller>/follow_joint_trajectory`)."""
    return controller_topic(manager, controller, 'follow_joint_trajectory')


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
    action: str,
    joints: Sequence[str],
    positions: Sequence[float],
    duration_s: float,
    ranges: dict[str, JointRange],
) -> Goal:
    """Send a one-point goal to the action server `action`, each position clamped to its
    joint's range (the URDF limits; +-pi without them) whatever the page sent; returns the
    accepted goal (raises ValueError for a non-finite position, NotAvailableError or
    CallFailedError)."""
    limited = clamp_positions(positions, [ranges.get(j, DEFAULT_RANGE) for j in joints])
    goal = trajectory_goal(joints, limited, duration_s)
    return await bridge.send_goal(FollowJointTrajectory, action, goal)


async def result_text(goal: Goal) -> str:
    """Await the goal's end and describe it in one line."""
    status, result = await goal.result()
    return trajectory_result_text(status, int(result.error_code), str(result.error_string))


GRIPPER_ACTIONS = {
    'GripperCommand': GripperCommand,
    'ParallelGripperCommand': ParallelGripperCommand,
}


def gripper_action(manager: str, controller: str) -> str:
    """A gripper action controller's action name (`/<ns>/<controller>/gripper_cmd`)."""
    return controller_topic(manager, controller, 'gripper_cmd')


def gripper_goal(kind: str, joint: str, position: float, max_effort: float | None) -> object:
    """A goal of action `kind` (a GRIPPER_ACTIONS key): go to `position` with at most
    `max_effort` (GripperCommand; a parallel gripper takes its own limits)."""
    if kind == 'ParallelGripperCommand':
        goal = ParallelGripperCommand.Goal()
        goal.command.name = [joint]
        goal.command.position = [float(position)]
        return goal
    if max_effort is None:
        raise ValueError('a GripperCommand goal needs a max_effort')
    goal = GripperCommand.Goal()
    goal.command.position = float(position)
    goal.command.max_effort = float(max_effort)
    return goal


async def send_gripper(
    bridge: RosBridge,
    action: str,
    kind: str,
    joint: str,
    position: float,
    max_effort: float | None,
    ranges: dict[str, JointRange],
) -> Goal:
    """Send a gripper goal to `action`, the position clamped to the joint's range whatever
    the page sent (raises ValueError for a non-finite one, NotAvailableError or
    CallFailedError)."""
    (limited,) = clamp_positions([position], [ranges.get(joint, DEFAULT_RANGE)])
    goal = gripper_goal(kind, joint, limited, max_effort)
    return await bridge.send_goal(GRIPPER_ACTIONS[kind], action, goal)


async def gripper_result(goal: Goal) -> str:
    """Await a gripper goal's end and describe it in one line."""
    status, result = await goal.result()
    if hasattr(result, 'state'):  # ParallelGripperCommand: a JointState
        position = result.state.position[0] if len(result.state.position) else float('nan')
    else:
        position = result.position
    return gripper_result_text(status, bool(result.reached_goal), bool(result.stalled), position)
