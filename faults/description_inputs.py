"""Bad robot descriptions given to fresh ros2_control_node processes: over the
`robot_description` topic (where robot_state_publisher publishes), in the
`robot_description` / `robot_description_file` parameters, and with bad `joint_limits.*`
parameters. The node must not exit: it says why and waits for a new description, and comes
up when a valid one arrives."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any

from std_msgs.msg import String

from faults.common import Robot, Row, cycle
from faults.robots import BAD_DESCRIPTIONS, MINIMAL_URDF
from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, latched_qos

TOPIC = '/robot_description'
REFUSED = 'invalid robot description'
CONTROLLERS = CONFIG / 'minimal_controllers.yaml'


@contextmanager
def fresh_node(params: dict[str, Any] | None = None):
    """A ros2_control_node without a robot description (unless `params` give one)."""
    with ManagerProcess([CONTROLLERS], params=params) as proc, RosHarness('faults_urdf') as ros:
        robot = Robot(proc, ros)
        pub = ros.node.create_publisher(String, TOPIC, latched_qos())
        yield robot, pub


def refusals(robot: Robot, mark: int) -> int:
    return sum(REFUSED in line for line in robot.log_lines(mark, ['controller_manager']))


def publish_and_wait(robot: Robot, pub: Any, text: str, timeout_s: float = 5.0) -> bool:
    """Publish a description; True when the node said it refused it."""
    mark = robot.mark()
    pub.publish(String(data=text))
    return robot.wait(lambda: refusals(robot, mark) > 0 or not robot.proc.alive, timeout_s) and (
        refusals(robot, mark) > 0
    )


def comes_up(robot: Robot, pub: Any, timeout_s: float = 5.0) -> bool:
    """Publish the valid description: the manager's services and hardware must come up."""
    pub.publish(String(data=MINIMAL_URDF))
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and robot.proc.alive:
        hardware = robot.hardware_states() if robot.client_ready() else None
        if hardware:
            return hardware.get('MinimalSystem') == 'active'
        robot.spin(0.1)
    return False


def topic_rows(n: int, rows: list[Row]) -> None:
    """N bad descriptions of each kind on the topic of one fresh node, then a valid one."""
    with fresh_node() as (robot, pub):
        robot.wait(lambda: pub.get_subscription_count() > 0, 20.0)
        kind_rows = []
        for kind, variants in BAD_DESCRIPTIONS.items():
            row = Row('robot_description topic (fresh node)', kind, measured=False)
            mark = robot.mark()
            for text in cycle(variants, n):
                refused = publish_and_wait(robot, pub, text)
                row.answered(not refused, True)
                if not robot.proc.alive:
                    row.crashes += 1
                    row.fail(f'exited with {robot.proc.process.returncode}')
                    break
            row.logs = len(robot.log_lines(mark, ['controller_manager'], ('ERROR', 'FATAL')))
            kind_rows.append(row)
            rows.append(row)
            if not robot.proc.alive:
                return
        if not comes_up(robot, pub):
            for row in kind_rows:
                row.fail('a valid description afterwards did not bring the node up')


PARAM_CASES: list[tuple[str, str, list[dict[str, Any]], bool]] = [
    (
        'robot_description parameter',
        'malformed XML, wrong type',
        [{'robot_description': '"<robot name=x><bad"'}, {'robot_description': 42}],
        True,
    ),
    (
        'robot_description_file parameter',
        'missing file, a directory',
        [{'robot_description_file': '/nonexistent/robot.urdf'}, {'robot_description_file': '/tmp'}],
        True,
    ),
    (
        'joint_limits.* parameters',
        'unknown joint',
        [{'joint_limits.no_such_joint.max_velocity': 1.0}],
        False,
    ),
    (
        'joint_limits.* parameters',
        'wrong types',
        [
            {'joint_limits.joint1.max_velocity': 'fast'},
            {'joint_limits.joint1.has_velocity_limits': 'maybe'},
        ],
        False,
    ),
    (
        'joint_limits.* parameters',
        'absurd values',
        [
            {
                'joint_limits.joint1.has_velocity_limits': True,
                'joint_limits.joint1.max_velocity': -1.0,
            },
            {
                'joint_limits.joint1.has_position_limits': True,
                'joint_limits.joint1.min_position': 5.0,
                'joint_limits.joint1.max_position': -5.0,
            },
        ],
        False,
    ),
]
"""(entry, kind, parameter sets, whether a valid description on the topic must then bring
the node up: not while the bad joint_limits parameters are still set)."""


def param_case(row: Row, params: dict[str, Any], recovers: bool) -> None:
    """One fresh node started with `params`: refused with an error, alive, waiting."""
    with fresh_node(params) as (robot, pub):
        mark = 0
        if not any(k.startswith('robot_description') for k in params):
            robot.wait(lambda: pub.get_subscription_count() > 0 or not robot.proc.alive, 20.0)
            pub.publish(String(data=MINIMAL_URDF))
        said = robot.wait(lambda: refusals(robot, mark) > 0 or not robot.proc.alive, 10.0)
        robot.spin(0.5)
        alive = robot.proc.alive
        row.answered(not (said and refusals(robot, mark) > 0), True)
        row.logs = (row.logs or 0) + len(robot.log_lines(mark, ['controller_manager']))
        if not alive:
            row.crashes += 1
            lines = robot.proc.output().strip().splitlines()
            row.fail(f'exited with {robot.proc.process.returncode}: {lines[-1] if lines else ""}')
            return
        if recovers and not comes_up(robot, pub):
            row.fail('ignores a valid description on robot_description afterwards')
        if not recovers and robot.client_ready():
            row.fail('came up despite the bad parameters')


def param_rows(rows: list[Row], per_kind: int | None) -> None:
    for entry, kind, variants, recovers in PARAM_CASES:
        row = Row(f'{entry} (fresh node)', kind, measured=False)
        for params in variants[:per_kind]:
            param_case(row, params, recovers)
        rows.append(row)


def run(n: int, rows: list[Row], *, quick: bool = False) -> None:
    """N descriptions of each kind on the topic; each bad parameter on a fresh node (only
    the first of each kind with `quick`: every one costs a process start)."""
    topic_rows(n, rows)
    param_rows(rows, 1 if quick else None)
