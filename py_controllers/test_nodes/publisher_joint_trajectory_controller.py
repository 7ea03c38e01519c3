"""`publisher_joint_trajectory_controller`: cycles through trajectory points for a JTC.

Same node name (`publisher_position_trajectory_controller`) and parameters as upstream's
ros2_controllers_test_nodes: `controller_name`, `wait_sec_between_publish` (6), `goal_names`,
`joints`, `check_starting_point` with `starting_point_limits.<joint>` ([-2 pi, 2 pi]), and per
goal `<goal>.positions/velocities/accelerations/effort` (those with one value per joint are
used; a goal with none is skipped with a warning). Each point goes to
`/<controller_name>/joint_trajectory` with time_from_start 4 s. With check_starting_point,
nothing is published until the first /joint_states shows every joint within its limits.

Deviations: a non-finite goal value stops the node; only the configured joints of
/joint_states are checked (upstream fails on a joint it was not given).
"""

from __future__ import annotations

import math
import sys

from builtin_interfaces.msg import Duration
from rclpy.exceptions import ParameterUninitializedException
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from py_controllers.test_nodes.common import GoalError, finite_values, run

_FIELDS = ('positions', 'velocities', 'accelerations', 'effort')


class PublisherJointTrajectory(Node):
    """Publishes the next point every `wait_sec_between_publish` s once the start is fine."""

    def __init__(self) -> None:
        super().__init__('publisher_position_trajectory_controller')
        self.declare_parameter('controller_name', 'position_trajectory_controller')
        self.declare_parameter('wait_sec_between_publish', 6)
        self.declare_parameter('goal_names', ['pos1', 'pos2'])
        self.declare_parameter('joints', [''])
        self.declare_parameter('check_starting_point', False)
        controller = self.get_parameter('controller_name').value
        wait = self.get_parameter('wait_sec_between_publish').value
        goal_names = self.get_parameter('goal_names').value
        self.joints = [j for j in self.get_parameter('joints').value if j]
        self.check_starting_point = bool(self.get_parameter('check_starting_point').value)
        if not self.joints:
            raise GoalError('"joints" parameter is not set!')
        self.starting_point: dict[str, list[float]] = {}
        if self.check_starting_point:
            for joint in self.joints:
                name = f'starting_point_limits.{joint}'
                self.declare_parameter(name, [-2 * math.pi, 2 * math.pi])
                limits = list(self.get_parameter(name).value)
                if len(limits) != 2:
                    raise GoalError('"starting_point" parameter is not set correctly!')
                self.starting_point[joint] = limits
            self.joint_state_sub = self.create_subscription(
                JointState, 'joint_states', self.joint_state_callback, 10
            )
        self.starting_point_ok = not self.check_starting_point
        self.joint_state_msg_received = False
        self.goals = [p for p in (self._goal(name) for name in goal_names) if p is not None]
        if not self.goals:
            raise GoalError('No valid goal found. Exiting...')
        topic = f'/{controller}/joint_trajectory'
        self.get_logger().info(
            f"Publishing {len(goal_names)} goals on topic '{topic}' every {wait} s"
        )
        self.publisher_ = self.create_publisher(JointTrajectory, topic, 1)
        self.timer = self.create_timer(float(wait), self.timer_callback)
        self.i = 0

    def _goal(self, name: str) -> JointTrajectoryPoint | None:
        """The point of goal `name`, None (warned) if no field has one value per joint."""
        point = JointTrajectoryPoint(time_from_start=Duration(sec=4))
        found = False
        for field in _FIELDS:
            parameter = f'{name}.{field}'
            self.declare_parameter(parameter, Parameter.Type.DOUBLE_ARRAY)
            try:
                values = self.get_parameter(parameter).value
            except ParameterUninitializedException:  # not given for this goal
                continue
            if values is not None and len(values) == len(self.joints):
                setattr(point, field, finite_values(parameter, values))
                found = True
        if not found:
            self.get_logger().warning(
                f'Goal "{name}" definition is wrong. This goal will not be used. Use the '
                'following structure: \n<goal_name>:\n  positions: [joint1, joint2, ...]\n  '
                'velocities: [v_joint1, v_joint2, ...]\n  accelerations: [a_joint1, ...]\n  '
                'effort: [eff_joint1, eff_joint2, ...]'
            )
            return None
        self.get_logger().info(f'Goal "{name}" has definition {point}')
        return point

    def timer_callback(self) -> None:
        if self.starting_point_ok:
            point = self.goals[self.i]
            self.get_logger().info(f'Sending goal {point}.')
            self.publisher_.publish(JointTrajectory(joint_names=self.joints, points=[point]))
            self.i = (self.i + 1) % len(self.goals)
        elif not self.joint_state_msg_received:
            self.get_logger().warning(
                'Start configuration could not be checked! Check "joint_state" topic!'
            )
        else:
            self.get_logger().warning('Start configuration is not within configured limits!')

    def joint_state_callback(self, msg: JointState) -> None:
        """Judge the first joint state only, as upstream."""
        if self.joint_state_msg_received:
            return
        measured = dict(zip(msg.name, msg.position, strict=False))
        if any(joint not in measured for joint in self.joints):
            return  # not this robot's joints (yet): wait for a state that has them
        ok = True
        for joint in self.joints:
            low, high = self.starting_point[joint]
            if not low <= measured[joint] <= high:
                self.get_logger().warning(f'Starting point limits exceeded for joint {joint} !')
                ok = False
        self.starting_point_ok = ok
        self.joint_state_msg_received = True


def main(args: list[str] | None = None) -> int:
    return run(PublisherJointTrajectory, args)


if __name__ == '__main__':
    sys.exit(main())
