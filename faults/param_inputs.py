"""`ros2 param set` on controller nodes (rcl_interfaces SetParameters) with wrong types,
unknown names, read-only parameters and absurd values: each must fail with a reason, the
value stay as it was, and the controller keep running."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from faults.common import Robot, Row, cycle, param_msg, same_values

NAN, INF = math.nan, math.inf
Case = tuple[str, Any]

DEMO_CASES: dict[str, dict[str, list[Case]]] = {
    'arm_controller': {
        'wrong types, unknown names': [
            ('gains.joint1.p', 'stiff'),
            ('constraints.goal_time', [1.0, 2.0]),
            ('allow_partial_joints_goal', 'yes'),
            ('action_monitor_rate', 'fast'),
            ('no_such_parameter', 1.0),
        ],
        'absurd values, read-only': [
            ('constraints.goal_time', -1.0),
            ('action_monitor_rate', 0.0),
            ('interpolation_method', 'warp'),
            ('joints', ['no_such_joint']),
            ('state_publish_rate', -5.0),
            ('gains.joint1.p', NAN),
            ('gains.joint2.i', INF),
            ('update_rate', -100),
        ],
    },
    'diff_drive_controller': {
        'wrong types, unknown names': [
            ('wheel_separation', 'wide'),
            ('publish_rate', 'fast'),
            ('enable_odom_tf', 'sometimes'),
            ('no_such_parameter', 2),
        ],
        'absurd values, read-only': [
            ('wheel_radius', -1.0),
            ('cmd_vel_timeout', -1.0),
            ('publish_rate', -10.0),
            ('wheel_separation_multiplier', NAN),
            ('linear.x.max_velocity', -1.0),
            ('linear.x.min_velocity', 5.0),
        ],
    },
    'gripper_controller': {
        'wrong types, unknown names': [
            ('interface_name', 5),
            ('joints', 'gripper_joint'),
            ('no_such_parameter', 'x'),
        ],
        'absurd values, read-only': [
            ('joints', ['no_such_joint']),
            ('interface_name', 'warp'),
            ('update_rate', -100),
        ],
    },
    'joint_state_broadcaster': {
        'wrong types, unknown names': [
            ('joints', 5),
            ('use_local_topics', 'maybe'),
            ('no_such_parameter', 1.5),
        ],
        'absurd values, read-only': [('interfaces', ['warp']), ('update_rate', -100)],
    },
}

PID_CASES: dict[str, dict[str, list[Case]]] = {
    'arm_position_controller': {
        'wrong types, unknown names': [
            ('pid.p', 'stiff'),
            ('pid.antiwindup', 'often'),
            ('no_such_parameter', 1.0),
        ],
        'absurd values, read-only': [
            ('pid.p', NAN),
            ('pid.i_clamp_max', -5.0),
            ('pid.tracking_time_constant', -1.0),
            ('pid.antiwindup_strategy', 'sometimes'),
            ('joint', 'no_such_joint'),
        ],
    },
    'pid_controller': {
        'wrong types, unknown names': [
            ('gains.tool_joint.p', 'stiff'),
            ('dof_names', 7),
            ('no_such_parameter', True),
        ],
        'absurd values, read-only': [
            ('gains.tool_joint.p', NAN),
            ('gains.tool_joint.i_clamp_max', -1.0),
            ('dof_names', ['no_such_joint']),
            ('command_interface', 'warp'),
        ],
    },
}


def param_row(
    robot: Robot, node: str, kind: str, cases: Sequence[Case], n: int, expected: dict[str, str]
) -> Row:
    """N SetParameters requests on `node`; each must come back failed with a reason."""
    row = Row(f'/{node} set_parameters', kind)
    names = sorted({name for name, _ in cases})
    before = robot.get_params(f'/{node}', names)
    mark = robot.mark()
    accepted: list[str] = []
    with robot.batch(row):
        for name, value in cycle(cases, n):
            results = robot.set_params(f'/{node}', [param_msg(name, value)])
            if not results:
                row.answered(None, True)
                continue
            refused = not results[0].successful and bool(results[0].reason)
            row.answered(not refused, True)
            if results[0].successful and f'{name}={value!r}' not in accepted:
                accepted.append(f'{name}={value!r}')
    row.logs = len(robot.log_lines(mark, [node]))
    if accepted:
        row.note(f'accepted: {", ".join(accepted)}')
    after = robot.get_params(f'/{node}', names)
    if before is not None and after is not None:
        restore = [
            param_msg(k, b)
            for k, b, a in zip(names, before, after)
            if b is not None and not same_values(a, b)
        ]
        if restore:
            robot.set_params(f'/{node}', restore)
    robot.expect_states(row, expected)
    return row


def rows_for(
    robot: Robot, cases: dict[str, dict[str, list[Case]]], n: int, expected: dict[str, str]
) -> list[Row]:
    return [
        param_row(robot, node, kind, kind_cases, n, expected)
        for node, kinds in cases.items()
        for kind, kind_cases in kinds.items()
    ]


def demo_rows(robot: Robot, n: int, rows: list[Row]) -> None:
    expected = {name: 'active' for name in DEMO_CASES}
    rows.extend(rows_for(robot, DEMO_CASES, n, expected))


def pid_rows(robot: Robot, n: int, rows: list[Row], expected: dict[str, str]) -> None:
    rows.extend(rows_for(robot, PID_CASES, n, expected))
