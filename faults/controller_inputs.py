"""Malformed input on the demo controllers' topics and services: the JTC's
~/joint_trajectory and ~/query_state, the diff drive's ~/cmd_vel and ~/set_odometry (rows of
faults.base_inputs, shared with the other bases), and
goals the gripper's ~/gripper_cmd action cannot execute. A topic has no answer channel: the
controller must stay where it was and say why in a (throttled) log line; a service answers
with success false and a message; a bad goal is rejected. The JTC's action and the
parameters of the same controllers are in action_inputs / param_inputs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from builtin_interfaces.msg import Time
from control_msgs.action import GripperCommand
from control_msgs.msg import JointTrajectoryControllerState
from control_msgs.srv import QueryTrajectoryState
from rclpy.action import ActionClient
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory

from bench.common import DEMO_CONTROLLERS
from faults import action_inputs, base_inputs, gpio_inputs, param_inputs
from faults.common import CALL_TIMEOUT_S, Robot, Row, cycle, running
from faults.messages import (
    INF,
    INT32_MAX,
    NAN,
    Latest,
    bad_trajectories,
    point,
    trajectory,
)
from faults.robots import DIFF_DRIVE
from faults.topics import close, settled, topic_row
from py_controllers.testing import CONFIG

CONTROLLERS = [*DEMO_CONTROLLERS, 'gpio_command_controller']
ALL_ACTIVE = {name: 'active' for name in CONTROLLERS}
DEMO_HARDWARE = [
    'py_controllers/SimulatedSystem',
    'py_controllers/DiffBotSystem',
    'mock_components/GenericSystem',
]


def near_hold(a: Sequence[float] | None, b: Sequence[float] | None) -> bool:
    """Still about where it was (a hold at the measured position), not moved to the target."""
    return close(a, b, 0.01)


def finite_reference(_: Sequence[float] | None, b: Sequence[float] | None) -> bool:
    """Huge finite input may be taken (clamped, or as it is); the result must be finite."""
    return b is not None and all(map(math.isfinite, b))


# --- the joint trajectory controller --------------------------------------------------------
class Arm:
    """The arm_controller seen from outside: its reference, and a valid small move."""

    def __init__(self, robot: Robot) -> None:
        self.robot = robot
        self.state = Latest(
            robot.node, JointTrajectoryControllerState, '/arm_controller/controller_state'
        )
        self.pub = robot.node.create_publisher(
            JointTrajectory, '/arm_controller/joint_trajectory', 10
        )
        robot.wait(lambda: self.state.msg is not None, 10.0)

    def reference(self) -> list[float] | None:
        msg = self.state.msg
        return None if msg is None else [round(v, 6) for v in msg.reference.positions]

    def feedback(self) -> list[float] | None:
        msg = self.state.msg
        return None if msg is None else list(msg.feedback.positions)

    def healthy(self) -> bool:
        """Finite feedback, and a valid trajectory is still followed."""
        feedback = self.feedback()
        return feedback is not None and all(map(math.isfinite, feedback)) and self.move()

    def move(self, delta: float = 0.05) -> bool:
        """A valid trajectory moving joint1 by `delta`: the reference must get there."""
        start = self.reference()
        if start is None:
            return False
        target = [start[0] + delta, *start[1:]]
        self.pub.publish(trajectory([point(0.3, target)]))
        return self.robot.wait(lambda: close(self.reference(), target, 1e-3), 5.0)


def jtc_topic_rows(robot: Robot, arm: Arm, n: int, rows: list[Row]) -> None:
    hold = arm.reference() or [0.0] * 6
    now_s = robot.node.get_clock().now().nanoseconds * 1e-9
    kinds = bad_trajectories(hold, now_s)
    kinds['huge stamps (start in 68 years)'] = [
        trajectory([point(0.5, [v + 0.1 for v in hold])], stamp=(INT32_MAX, 0))
    ]
    for kind, msgs in kinds.items():
        row = Row('/arm_controller/joint_trajectory', kind)
        unchanged = {'huge stamps': near_hold, 'huge finite': finite_reference}
        topic_row(
            robot,
            row,
            arm.pub,
            cycle(msgs, n),
            loggers=['arm_controller'],
            observe=arm.reference,
            unchanged=next((f for k, f in unchanged.items() if kind.startswith(k)), close),
            expected=ALL_ACTIVE,
            expect_error=not kind.startswith('huge'),
        )
        if kind.startswith('huge finite'):
            row.note(f'reference afterwards {arm.reference()}')
        if not arm.move():
            row.fail('a valid trajectory afterwards was not followed')
        rows.append(row)


def query_state_row(robot: Robot, n: int) -> Row:
    row = Row('/arm_controller/query_state', 'negative, zero, huge times')
    times = [Time(sec=-100), Time(sec=0), Time(sec=INT32_MAX, nanosec=999_999_999), Time(sec=-1)]
    mark = robot.mark()
    with robot.batch(row):
        for t in cycle(times, n):
            res = robot.call(
                QueryTrajectoryState,
                '/arm_controller/query_state',
                QueryTrajectoryState.Request(time=t),
            )
            row.answered(None if res is None else not (not res.success and res.message), True)
    row.logs = len(robot.log_lines(mark, ['arm_controller']))
    robot.expect_states(row, ALL_ACTIVE)
    return row


# --- the gripper (GripperActionController) ---------------------------------------------------
GRIPPER_ACTION = '/gripper_controller/gripper_cmd'


def gripper_goal(position: float, max_effort: float = 10.0) -> Any:
    goal = GripperCommand.Goal()
    goal.command.position, goal.command.max_effort = position, max_effort
    return goal


def gripper_rows(robot: Robot, n: int, rows: list[Row]) -> None:
    """Goals the gripper cannot execute (a non-finite position, a NaN max_effort) are
    rejected with a log line, the finger stays put, and a valid goal afterwards moves it."""
    states = Latest(robot.node, JointState, '/joint_states')
    client = ActionClient(robot.node, GripperCommand, GRIPPER_ACTION)

    def position() -> float | None:
        msg = states.msg
        if msg is None or 'gripper_joint' not in msg.name:
            return None
        return msg.position[list(msg.name).index('gripper_joint')]

    def goto(target: float) -> bool:
        """A valid goal is accepted and brings the finger to `target` (1 mm)."""
        sent = client.send_goal_async(gripper_goal(target))
        if not robot.wait(sent.done, CALL_TIMEOUT_S) or not sent.result().accepted:
            return False
        return robot.wait(lambda: (p := position()) is not None and abs(p - target) < 1e-3, 10.0)

    if not client.wait_for_server(timeout_sec=10.0) or not goto(0.02):
        row = Row(GRIPPER_ACTION, 'action server')
        row.fail('no gripper action server, or a valid goal did not move the finger')
        rows.append(row)
        return
    same = lambda a, b: a is not None and b is not None and abs(a - b) < 1e-6  # noqa: E731
    kinds = {
        'non-finite positions': [gripper_goal(NAN), gripper_goal(INF), gripper_goal(-INF)],
        'NaN max_effort': [gripper_goal(0.01, NAN)],
    }
    for kind, goals in kinds.items():
        row = Row(GRIPPER_ACTION, kind)
        before = settled(robot, position, same, 0.2)
        mark = robot.mark()
        with robot.batch(row):
            for goal in cycle(goals, n):
                action_inputs.send(robot, client, goal, row, expect_error=True)
        row.logs = len(robot.log_lines(mark, ['gripper_controller']))
        if not same(before, position()):
            row.fail(f'the finger moved: {before} -> {position()}')
        if not goto(0.01 if kind == 'non-finite positions' else 0.02):
            row.fail('a valid goal afterwards did not move the finger')
        robot.expect_states(row, ALL_ACTIVE)
        rows.append(row)


def run(n: int, rows: list[Row]) -> None:
    """The demo robot's controllers: services first, then topics, the action, parameters."""
    with running(
        [CONFIG / 'demo_controllers.yaml'],
        CONFIG / 'demo_robot.urdf',
        CONTROLLERS,
        recorded=DEMO_HARDWARE,
    ) as robot:
        arm = Arm(robot)
        rows.append(query_state_row(robot, n))
        base_inputs.set_odometry_rows(robot, DIFF_DRIVE.controller, n, rows, ALL_ACTIVE)
        jtc_topic_rows(robot, arm, n, rows)
        action_inputs.run(robot, arm, n, rows)
        base_inputs.twist_rows(robot, DIFF_DRIVE, n, rows, ALL_ACTIVE)
        gpio_inputs.rows(robot, n, ALL_ACTIVE, rows)
        gripper_rows(robot, n, rows)
        first = len(rows)
        param_inputs.demo_rows(robot, n, rows)
        arm_rows = [r for r in rows[first:] if r.entry.startswith('/arm_controller')]
        if not arm.healthy():
            arm_rows[-1].fail(f'the arm is not healthy afterwards: {arm.feedback()}')
