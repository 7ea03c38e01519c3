"""`servo_teleop`: a leader arm as a command source (LeRobot's teleoperation pattern).

The leader (an SO-101 on a read_only FeetechSystem: torque off, moved by hand) publishes its
joint states; this node streams them to the follower: the arm joints as a one-point
JointTrajectory on the follower's joint trajectory controller (`~/joint_trajectory`, each
point `lead_s` ahead, so the controller interpolates from where the follower is), the gripper
as a GripperCommand goal whenever it moved by more than `gripper_deadband` and the last goal
has finished.

    servo_teleop --ros-args -p leader_states:=/leader/joint_states \\
        -p trajectory_topic:=/arm_controller/joint_trajectory \\
        -p gripper_action:=/gripper_controller/gripper_cmd

Parameters: `joints` (the arm joints, default the SO-101's five), `gripper_joint` ('' for
none), `rate` (Hz of the stream, default 30), `lead_s` (default 0.1).
"""

from __future__ import annotations

import sys

import rclpy
from control_msgs.action import GripperCommand
from rclpy.action import ActionClient
from rclpy.node import Node
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from py_controllers.ros_conversions import set_duration

SO101_ARM = ['shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'wrist_roll']


class Teleop(Node):
    """Leader joint states in, follower trajectory points and gripper goals out."""

    def __init__(self) -> None:
        super().__init__('servo_teleop')
        p = self.declare_parameter
        self.joints = list(p('joints', SO101_ARM).value)
        self.gripper_joint = str(p('gripper_joint', 'gripper').value)
        self.lead_s = float(p('lead_s', 0.1).value)
        self.deadband = float(p('gripper_deadband', 0.05).value)
        rate = float(p('rate', 30.0).value)
        if not self.joints or rate <= 0.0 or self.lead_s <= 0.0:
            raise ValueError("'joints' must not be empty, 'rate' and 'lead_s' must be > 0")
        topic = str(p('trajectory_topic', '/arm_controller/joint_trajectory').value)
        self.pub = self.create_publisher(JointTrajectory, topic, 10)
        self.gripper = None
        if self.gripper_joint:
            action = str(p('gripper_action', '/gripper_controller/gripper_cmd').value)
            self.gripper = ActionClient(self, GripperCommand, action)
        self.latest: JointState | None = None
        self.sent = 0
        self._gripper_sent: float | None = None
        self._gripper_busy = False
        leader = str(p('leader_states', '/leader/joint_states').value)
        self.create_subscription(JointState, leader, self._on_leader, 10)
        self.create_timer(1.0 / rate, self._tick)

    def _on_leader(self, msg: JointState) -> None:
        self.latest = msg

    def _tick(self) -> None:
        msg = self.latest
        if msg is None:
            return
        position = dict(zip(msg.name, msg.position))
        if not all(j in position for j in self.joints):
            return
        trajectory = JointTrajectory()
        trajectory.joint_names = self.joints
        point = JointTrajectoryPoint(positions=[position[j] for j in self.joints])
        set_duration(point.time_from_start, self.lead_s)
        trajectory.points.append(point)
        self.pub.publish(trajectory)
        self.sent += 1
        grip = position.get(self.gripper_joint)
        if self.gripper is None or grip is None or self._gripper_busy:
            return
        if self._gripper_sent is not None and abs(grip - self._gripper_sent) < self.deadband:
            return
        if not self.gripper.server_is_ready():
            return
        goal = GripperCommand.Goal()
        goal.command.position, goal.command.max_effort = grip, 1.0
        self._gripper_busy, self._gripper_sent = True, grip
        self.gripper.send_goal_async(goal).add_done_callback(self._on_goal)

    def _on_goal(self, future) -> None:  # type: ignore[no-untyped-def]
        handle = future.result()
        if handle is None or not handle.accepted:
            self._gripper_busy = False
            return
        handle.get_result_async().add_done_callback(lambda _: setattr(self, '_gripper_busy', False))


def main(argv: list[str] | None = None) -> int:
    rclpy.init(args=argv)
    try:
        node = Teleop()
    except ValueError as exc:
        print(f'servo_teleop: {exc}', file=sys.stderr)
        rclpy.shutdown()
        return 2
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, rclpy.executors.ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
