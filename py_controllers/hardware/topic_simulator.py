"""A simulator over topics, standing in for Isaac Sim: JointState commands in, states out.

    python -m py_controllers.hardware.topic_simulator --joints joint1 joint2 \\
        [--commands-topic /robot_joint_commands] [--states-topic /robot_joint_states] \\
        [--rate 100] [--max-velocity 2.0] [--initial joint1=0.5] [--wrap]

At a fixed rate each joint moves the way its last command says: a position target is
approached at `--max-velocity` (and reached exactly), a velocity is integrated, an effort
accelerates a unit inertia. A NaN entry (or a missing array) means "no command of that
kind": the joint keeps its mode. The states go out as a JointState (position, velocity,
effort); with `--wrap` positions are wrapped into [-pi, pi), as Isaac Sim wraps revolute
joints. No physics beyond that: the component's tests need known numbers.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
from collections.abc import Sequence

import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState

_KINDS = ('position', 'velocity', 'effort')


class JointModel:
    """One joint: its mode, its target and its motion (no rclpy)."""

    def __init__(self, position: float = 0.0, max_velocity: float = 2.0) -> None:
        self.position = position
        self.velocity = 0.0
        self.effort = 0.0
        self.mode = 'position'
        self.target = position
        self.max_velocity = max_velocity

    def command(self, kind: str, value: float) -> None:
        """Take a command of `kind`; NaN is no command."""
        if value != value:
            return
        self.mode = kind
        self.target = value

    def step(self, dt: float) -> None:
        """Advance by `dt` seconds in the current mode."""
        if self.mode == 'position':
            limit = self.max_velocity * dt
            move = max(-limit, min(limit, self.target - self.position))
            arrived = abs(self.target - self.position) <= limit
            self.position = self.target if arrived else self.position + move
            self.velocity = move / dt
            self.effort = 0.0
        elif self.mode == 'velocity':
            self.velocity = self.target
            self.position += self.velocity * dt
            self.effort = 0.0
        else:
            self.effort = self.target
            self.velocity += self.effort * dt
            self.position += self.velocity * dt


def wrap(angle: float) -> float:
    """`angle` in [-pi, pi)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


class TopicSimulator(Node):
    """The stand-in simulator node."""

    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__('topic_simulator')
        initial = dict(_pair(text) for text in args.initial)
        self.names = list(args.joints)
        self.joints = {n: JointModel(initial.get(n, 0.0), args.max_velocity) for n in self.names}
        self.wrap = args.wrap
        self.dt = 1.0 / args.rate
        self.received = 0
        self.pub = self.create_publisher(JointState, args.states_topic, 10)
        self.create_subscription(JointState, args.commands_topic, self._on_command, 10)
        self.create_timer(self.dt, self._tick)

    def _on_command(self, msg: JointState) -> None:
        self.received += 1
        for kind in _KINDS:
            values = getattr(msg, kind)
            if len(values) != len(msg.name):
                continue
            for name, value in zip(msg.name, values, strict=True):
                joint = self.joints.get(name)
                if joint is not None:
                    joint.command(kind, value)

    def _tick(self) -> None:
        msg = JointState()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.name = self.names
        for joint in self.joints.values():
            joint.step(self.dt)
        msg.position = [wrap(j.position) if self.wrap else j.position for j in self.joints.values()]
        msg.velocity = [j.velocity for j in self.joints.values()]
        msg.effort = [j.effort for j in self.joints.values()]
        self.pub.publish(msg)


def _pair(text: str) -> tuple[str, float]:
    name, _, value = text.partition('=')
    return name, float(value)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command line (ROS arguments removed)."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--joints', nargs='+', required=True)
    parser.add_argument('--commands-topic', default='/robot_joint_commands')
    parser.add_argument('--states-topic', default='/robot_joint_states')
    parser.add_argument('--rate', type=float, default=100.0, help='Hz')
    parser.add_argument('--max-velocity', type=float, default=2.0, help='position mode, per s')
    parser.add_argument('--initial', nargs='*', default=[], metavar='JOINT=VALUE')
    parser.add_argument('--wrap', action='store_true', help='publish positions in [-pi, pi)')
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run until SIGINT/SIGTERM."""
    raw = list(sys.argv[1:] if argv is None else argv)
    rclpy.init(args=['topic_simulator', *raw], signal_handler_options=rclpy.SignalHandlerOptions.NO)
    args = parse_args(rclpy.utilities.remove_ros_args(['topic_simulator', *raw])[1:])
    node = TopicSimulator(args)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    stop = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.append(True))
    try:
        while not stop and rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
    except ExternalShutdownException:
        pass
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
