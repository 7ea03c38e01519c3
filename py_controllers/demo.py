"""Placeholder main job: proves the environment with a real rclpy round trip.

Replaced by the full simulated demo (issue 7); it already exits non-zero on failure.
"""

import sys

import rclpy
from rclpy.executors import SingleThreadedExecutor
from std_msgs.msg import String


def main() -> int:
    """Publish one message and receive it on the same domain; exit 0 on success."""
    rclpy.init()
    node = rclpy.create_node('py_controllers_demo')
    received: list[str] = []
    node.create_subscription(String, 'demo_echo', lambda m: received.append(m.data), 10)
    pub = node.create_publisher(String, 'demo_echo', 10)
    timer = node.create_timer(0.05, lambda: pub.publish(String(data='hello from py_controllers')))
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    deadline = node.get_clock().now().nanoseconds + 10_000_000_000
    while not received and node.get_clock().now().nanoseconds < deadline:
        executor.spin_once(timeout_sec=0.1)
    timer.cancel()
    ok = bool(received)
    print(f'rclpy round trip: {"ok" if ok else "FAILED"} ({received[:1]})')
    node.destroy_node()
    rclpy.shutdown()
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
