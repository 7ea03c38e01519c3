"""`send_trajectory`: example 7's reference generator. Reads the URDF from its
`robot_description` parameter, publishes the trajectory of r6bot_reference.py once on
`/r6bot_controller/joint_trajectory` when a subscriber is there (waits up to 10 s, exit 1
after), then spins as upstream's does until interrupted."""

from __future__ import annotations

import math
import sys
import time

import rclpy
from builtin_interfaces.msg import Duration
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.parameter import Parameter
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from ros2_control_demos_py.r6bot_reference import reference_points

TOPIC = '/r6bot_controller/joint_trajectory'
WAIT_S = 10.0


def build_message(node: Node, description: str) -> JointTrajectory:
    """The trajectory message, stamped now."""
    joints, points = reference_points(description)
    msg = JointTrajectory()
    msg.header.stamp = node.get_clock().now().to_msg()
    msg.joint_names = joints
    for point in points:
        whole = math.floor(point.time_s)
        msg.points.append(
            JointTrajectoryPoint(
                positions=point.positions,
                velocities=point.velocities,
                time_from_start=Duration(sec=int(whole), nanosec=int((point.time_s - whole) * 1e9)),
            )
        )
    return msg


def main(args: list[str] | None = None) -> int:
    rclpy.init(args=args)
    node = Node('send_trajectory')
    log = node.get_logger()
    try:
        node.declare_parameter('robot_description', Parameter.Type.STRING)
        description = node.get_parameter_or('robot_description', None)
        text = description.value if description is not None else None
        if not text:
            log.error("parameter 'robot_description' is not set: pass the r6bot URDF")
            return 1
        msg = build_message(node, text)
        pub = node.create_publisher(JointTrajectory, TOPIC, 10)
        started = time.monotonic()
        while pub.get_subscription_count() == 0:
            if time.monotonic() - started > WAIT_S:
                log.error('No subscribers connected after waiting for 10 seconds. Exiting.')
                return 1
            log.info(f'Waiting for subscribers to connect to topic {pub.topic_name}')
            time.sleep(0.5)
        log.info(f'Publishing trajectory with length {len(msg.points)}')
        pub.publish(msg)
        rclpy.spin(node)
        return 0
    except (KeyboardInterrupt, ExternalShutdownException):
        return 0
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == '__main__':
    sys.exit(main())
