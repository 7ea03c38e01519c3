"""Reproduce the discovery race of kilted's Fast DDS (3.2) type lookup: a process that meets a
remote reader and writer of one type it has not registered yet may never see the writer.

    .venv/bin/python scripts/type_lookup_race.py [--starts 100] [--profile test/fastdds_profile.xml]
                                                 [--register-first]

Each start runs two fresh processes on a ROS domain of their own: an owner that creates, for
each message type below, a subscription and a publisher at once, and a watcher that, having
used none of these types, waits up to 10 s to see every one of them. Without a profile Fast DDS
runs on its defaults; the tests' profile switches type propagation off (its comment says why);
`--register-first` has the watcher register the types first, as the demo and dashboard do.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import time

PACKAGES = {
    'std_msgs': 'String Float64 Int32 Bool Float64MultiArray ColorRGBA Int64MultiArray',
    'geometry_msgs': 'Twist TwistStamped Pose PoseStamped Wrench WrenchStamped Point Vector3 '
    'Quaternion TransformStamped Accel PoseWithCovariance Polygon',
    'sensor_msgs': 'JointState Imu LaserScan Temperature BatteryState Range',
    'control_msgs': 'DynamicJointState DynamicInterfaceGroupValues '
    'JointTrajectoryControllerState InterfaceValue',
    'trajectory_msgs': 'JointTrajectory JointTrajectoryPoint',
    'nav_msgs': 'Odometry',
    'tf2_msgs': 'TFMessage',
}
TYPES = [f'{package}/{name}' for package, names in PACKAGES.items() for name in names.split()]
READY = '/type_lookup_race/ready'
WAIT_S = 10.0


def message_types() -> list:
    """The message classes of TYPES, in order."""
    found = []
    for name in TYPES:
        package, cls = name.split('/')
        found.append(getattr(importlib.import_module(f'{package}.msg'), cls))
    return found


def owner() -> None:
    """A publisher on READY; on a line from stdin, a reader and a writer of every type; then
    wait for stdin to close."""
    import rclpy

    rclpy.init()
    node = rclpy.create_node('type_lookup_owner')
    node.create_publisher(message_types()[0], READY, 10)
    sys.stdin.readline()
    for i, msg_type in enumerate(message_types()):
        node.create_subscription(msg_type, f'/t{i}/command', lambda _: None, 10)
        node.create_publisher(msg_type, f'/t{i}/state', 10)
    sys.stdin.read()


def watcher(register_first: bool) -> None:
    """Print `seen` once the owner's READY publisher is seen, then `ok` or what stayed unseen.
    `register_first`: the types registered before the node, as the demo and dashboard do."""
    import rclpy

    if register_first:
        from py_controllers.type_registration import register_message_types

        register_message_types(message_types())
    rclpy.init()
    node = rclpy.create_node('type_lookup_watcher')
    while not node.count_publishers(READY):
        time.sleep(0.01)
    print('seen', flush=True)

    def unseen() -> list[str]:
        return [
            f'{TYPES[i]} {kind}'
            for i in range(len(TYPES))
            for kind, count in (
                ('writer', node.count_publishers(f'/t{i}/state')),
                ('reader', node.count_subscribers(f'/t{i}/command')),
            )
            if not count
        ]

    deadline = time.monotonic() + WAIT_S
    while unseen() and time.monotonic() < deadline:
        time.sleep(0.01)
    missing = unseen()
    print('unseen: ' + ', '.join(missing) if missing else 'ok', flush=True)


def start(env: dict[str, str], register_first: bool) -> str:
    """One start of both processes; the watcher's last line."""
    me = [sys.executable, __file__, '--role']
    own = subprocess.Popen([*me, 'owner'], stdin=subprocess.PIPE, text=True, env=env)
    role = 'registering-watcher' if register_first else 'watcher'
    watch = subprocess.Popen([*me, role], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert watch.stdout is not None and own.stdin is not None
        if watch.stdout.readline().strip() != 'seen':
            return f'the watcher ended before it saw the owner (exit status {watch.wait()})'
        own.stdin.write('go\n')
        own.stdin.flush()
        return watch.stdout.readline().strip()
    finally:
        watch.kill()
        own.kill()
        watch.wait()
        own.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--starts', type=int, default=100)
    parser.add_argument('--profile', help='a Fast DDS XML profile (default: none)')
    parser.add_argument(
        '--register-first',
        action='store_true',
        help='the watcher registers the types first (py_controllers.type_registration)',
    )
    parser.add_argument('--domain', type=int, default=97)
    roles = ('owner', 'watcher', 'registering-watcher')
    parser.add_argument('--role', choices=roles, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role:
        owner() if args.role == 'owner' else watcher(args.role == 'registering-watcher')
        return 0
    env = {**os.environ, 'ROS_DOMAIN_ID': str(args.domain)}
    env['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    env.pop('FASTRTPS_DEFAULT_PROFILES_FILE', None)
    env.pop('FASTDDS_DEFAULT_PROFILES_FILE', None)
    if args.profile:  # kilted's variable: the race is Fast DDS 3's
        env['FASTDDS_DEFAULT_PROFILES_FILE'] = os.path.abspath(args.profile)
    lost = 0
    for n in range(1, args.starts + 1):
        line = start(env, args.register_first)
        if line != 'ok':
            lost += 1
            print(f'start {n}: {line}', flush=True)
    print(f'{lost} of {args.starts} starts left an endpoint unseen after {WAIT_S:.0f} s')
    return 0


if __name__ == '__main__':
    sys.exit(main())
