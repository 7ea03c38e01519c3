"""Malformed input on the PID controllers (config/pid_controllers.yaml on
config/pid_joint_robot.urdf): the ROS 1 style ~/command and ~/command_with_velocity, and
pid_controller's ~/reference; then their parameters (param_inputs)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from control_msgs.msg import JointControllerState, MultiDOFCommand, MultiDOFStateStamped
from std_msgs.msg import Float64, Float64MultiArray

from faults import param_inputs
from faults.common import Robot, Row, cycle, running
from faults.messages import HUGE, INF, NAN, Latest
from faults.topics import topic_row
from py_controllers.testing import CONFIG

CONTROLLERS = [
    'joint_state_broadcaster',
    'arm_position_controller',
    'wheel_velocity_controller',
    'pid_controller',
]
ALL_ACTIVE = {name: 'active' for name in CONTROLLERS}


def near(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(a - b) < 1e-9


def finite_after(_: float | None, b: float | None) -> bool:
    return b is not None and math.isfinite(b)


class Setpoint:
    """A controller's setpoint as its state topic shows it, and a way to set it validly."""

    def __init__(
        self, robot: Robot, state: Latest, read: Callable[[Any], float], pub: Any, make: Callable
    ) -> None:
        self.robot, self.state, self.read, self.pub, self.make = robot, state, read, pub, make

    def value(self) -> float | None:
        return None if self.state.msg is None else self.read(self.state.msg)

    def set(self, value: float) -> bool:
        def there() -> bool:
            self.pub.publish(self.make(value))
            self.robot.spin(0.05)
            return near(self.value(), value)

        return self.robot.poll(there, 5.0, 0.0)


def joint_setpoint(robot: Robot, controller: str) -> Setpoint:
    state = Latest(robot.node, JointControllerState, f'/{controller}/state')
    pub = robot.node.create_publisher(Float64, f'/{controller}/command', 10)
    return Setpoint(robot, state, lambda m: m.set_point, pub, lambda v: Float64(data=v))


def pid_setpoint(robot: Robot) -> Setpoint:
    state = Latest(robot.node, MultiDOFStateStamped, '/pid_controller/controller_state')
    pub = robot.node.create_publisher(MultiDOFCommand, '/pid_controller/reference', 10)

    def read(msg: MultiDOFStateStamped) -> float:
        return msg.dof_states[0].reference if msg.dof_states else NAN

    def make(value: float) -> MultiDOFCommand:
        return MultiDOFCommand(dof_names=['tool_joint'], values=[value])

    return Setpoint(robot, state, read, pub, make)


def batch(
    robot: Robot, row: Row, setpoint: Setpoint, pub: Any, msgs: Sequence[Any], logger: str
) -> Row:
    """Bad messages while the setpoint is 0.3; it must stay there; 0.2 must work after.
    Huge finite values may be taken (clamped, or as they are): the setpoint must stay
    finite, and the controllers active."""
    huge = row.kind.startswith('huge')
    if not setpoint.set(0.3):
        row.note('the setpoint could not be set before the batch')
    topic_row(
        robot,
        row,
        pub,
        msgs,
        loggers=[logger],
        observe=setpoint.value,
        unchanged=finite_after if huge else near,
        expected=ALL_ACTIVE,
        expect_error=not huge,
    )
    if huge:
        row.note(f'setpoint afterwards {setpoint.value()}')
    if not setpoint.set(0.2):
        row.fail('a valid command afterwards was not taken')
    return row


def topic_rows(robot: Robot, n: int, rows: list[Row]) -> None:
    for controller in ('arm_position_controller', 'wheel_velocity_controller'):
        sp = joint_setpoint(robot, controller)
        for kind, values in [
            ('NaN / inf values', [NAN, INF, -INF]),
            ('huge finite values (+-1e308)', [HUGE, -HUGE]),
        ]:
            msgs = [Float64(data=v) for v in cycle(values, n)]
            row = Row(f'/{controller}/command', kind)
            rows.append(batch(robot, row, sp, sp.pub, msgs, controller))
    sp = joint_setpoint(robot, 'arm_position_controller')
    pub = robot.node.create_publisher(
        Float64MultiArray, '/arm_position_controller/command_with_velocity', 10
    )
    for kind, values in [
        ('wrong sizes', [[], [0.5], [0.5, 0.0, 1.0]]),
        ('NaN / inf values', [[NAN, 0.0], [0.5, INF], [-INF, NAN]]),
        ('huge finite values (+-1e308)', [[HUGE, 0.0], [0.5, -HUGE], [-HUGE, HUGE]]),
    ]:
        msgs = [Float64MultiArray(data=v) for v in cycle(values, n)]
        row = Row('/arm_position_controller/command_with_velocity', kind)
        rows.append(batch(robot, row, sp, pub, msgs, 'arm_position_controller'))
    sp = pid_setpoint(robot)
    kinds: dict[str, list[MultiDOFCommand]] = {
        'wrong sizes': [
            MultiDOFCommand(dof_names=['tool_joint'], values=[]),
            MultiDOFCommand(values=[0.5, 0.5]),
            MultiDOFCommand(dof_names=['tool_joint'], values=[0.5], values_dot=[0.0, 0.0]),
        ],
        'inf values': [
            MultiDOFCommand(dof_names=['tool_joint'], values=[INF]),
            MultiDOFCommand(dof_names=['tool_joint'], values=[0.5], values_dot=[-INF]),
        ],
        'huge finite values (+-1e308)': [
            MultiDOFCommand(dof_names=['tool_joint'], values=[HUGE]),
            MultiDOFCommand(dof_names=['tool_joint'], values=[-HUGE]),
            MultiDOFCommand(dof_names=['tool_joint'], values=[0.5], values_dot=[HUGE]),
        ],
        'unknown dof names': [
            MultiDOFCommand(dof_names=['no_such_joint'], values=[0.5]),
            MultiDOFCommand(dof_names=['arm_joint'], values=[0.5]),
        ],
    }
    for kind, msgs in kinds.items():
        row = Row('/pid_controller/reference', kind)
        rows.append(batch(robot, row, sp, sp.pub, cycle(msgs, n), 'pid_controller'))


def run(n: int, rows: list[Row]) -> None:
    with running(
        [CONFIG / 'pid_controllers.yaml'],
        CONFIG / 'pid_joint_robot.urdf',
        CONTROLLERS,
        recorded=['py_controllers/SimulatedSystem'],
    ) as robot:
        topic_rows(robot, n, rows)
        param_inputs.pid_rows(robot, n, rows, ALL_ACTIVE)
