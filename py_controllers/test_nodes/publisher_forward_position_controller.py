"""`publisher_forward_position_controller`: cycles through position goals on a topic.

Same node name and parameters as upstream's ros2_controllers_test_nodes: `publish_topic`
('/position_commands'), `wait_sec_between_publish` (5), `goal_names` (['pos1', 'pos2']) and one
double array per goal name. A goal that is missing, empty or not finite stops the node.
"""

from __future__ import annotations

import sys

from rclpy.node import Node
from rclpy.parameter import Parameter
from std_msgs.msg import Float64MultiArray

from py_controllers.test_nodes.common import GoalError, finite_values, run


class PublisherForwardPosition(Node):
    """Publishes the next goal every `wait_sec_between_publish` seconds."""

    def __init__(self) -> None:
        super().__init__('publisher_forward_position_controller')
        self.declare_parameter('publish_topic', '/position_commands')
        self.declare_parameter('wait_sec_between_publish', 5)
        self.declare_parameter('goal_names', ['pos1', 'pos2'])
        wait = self.get_parameter('wait_sec_between_publish').value
        goal_names = self.get_parameter('goal_names').value
        topic = self.get_parameter('publish_topic').value
        self.goals: list[list[float]] = []
        for name in goal_names:
            self.declare_parameter(name, Parameter.Type.DOUBLE_ARRAY)
            goal = self.get_parameter(name).value
            if not goal:
                raise GoalError(f'Values for goal "{name}" not set!')
            self.goals.append(finite_values(name, goal))
        self.get_logger().info(
            f"Publishing {len(goal_names)} goals on topic '{topic}' every {wait} s"
        )
        self.publisher_ = self.create_publisher(Float64MultiArray, topic, 1)
        self.timer = self.create_timer(float(wait), self.timer_callback)
        self.i = 0

    def timer_callback(self) -> None:
        msg = Float64MultiArray(data=self.goals[self.i])
        self.get_logger().info(f'Publishing: "{list(msg.data)}"')
        self.publisher_.publish(msg)
        self.i = (self.i + 1) % len(self.goals)


def main(args: list[str] | None = None) -> int:
    return run(PublisherForwardPosition, args)


if __name__ == '__main__':
    sys.exit(main())
