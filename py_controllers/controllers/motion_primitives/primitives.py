"""Motion primitives as upstream's ``motion_primitives_controllers`` hands them to hardware.

No rclpy here: the interface names, the numbers the hardware and the controller exchange,
the checks a goal must pass and the row of 25 command values one primitive becomes.

Every interface is ``<tf_prefix>motion_primitive/<name>``. A row holds NaN for what the
primitive does not set (upstream's "not set"); hardware takes a row and clears it to NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: Command interfaces, in upstream's order (row index = position here).
COMMAND_NAMES: tuple[str, ...] = (
    'motion_type',
    'q1',
    'q2',
    'q3',
    'q4',
    'q5',
    'q6',
    'pos_x',
    'pos_y',
    'pos_z',
    'pos_qx',
    'pos_qy',
    'pos_qz',
    'pos_qw',
    'pos_via_x',
    'pos_via_y',
    'pos_via_z',
    'pos_via_qx',
    'pos_via_qy',
    'pos_via_qz',
    'pos_via_qw',
    'blend_radius',
    'velocity',
    'acceleration',
    'move_time',
)
STATE_NAMES: tuple[str, ...] = ('execution_status', 'ready_for_new_primitive')
PREFIX = 'motion_primitive'

# control_msgs/MotionPrimitive types
LINEAR_JOINT, LINEAR_CARTESIAN, CIRCULAR_CARTESIAN = 0, 50, 51
TYPE_NAMES = {
    LINEAR_JOINT: 'LINEAR_JOINT (PTP)',
    LINEAR_CARTESIAN: 'LINEAR_CARTESIAN (LIN)',
    CIRCULAR_CARTESIAN: 'CIRCULAR_CARTESIAN (CIRC)',
}
# upstream's helper types, written to motion_type
STOP_MOTION, RESET_STOP = 66, 67
MOTION_SEQUENCE_START, MOTION_SEQUENCE_END = 100, 101
# execution_status
IDLE, EXECUTING, SUCCESS, ERROR, STOPPING, STOPPED = range(6)
# ready_for_new_primitive
NOT_READY, READY = 0, 1

MAX_JOINTS = 6  # q1..q6
QUEUE_CAPACITY = 1024  # upstream's lock-free queue
ARGUMENTS = {'velocity': 22, 'acceleration': 23, 'move_time': 24}
_GOAL, _VIA, _BLEND = 7, 14, 21

NAN = math.nan


def interface_names(tf_prefix: str, names: Sequence[str]) -> list[str]:
    """Full interface names ``<tf_prefix>motion_primitive/<name>``."""
    return [f'{tf_prefix}{PREFIX}/{name}' for name in names]


def _pose_values(pose: Any) -> tuple[float, ...]:
    p, q = pose.position, pose.orientation
    return (p.x, p.y, p.z, q.x, q.y, q.z, q.w)


def primitive_problem(index: int, primitive: Any) -> str:
    """Why ``primitive`` (a control_msgs/MotionPrimitive) cannot go to hardware, '' if it can."""
    kind = primitive.type
    where = f'Primitive {index} invalid'
    if kind not in TYPE_NAMES:
        return f'{where}: unknown motion type {kind}.'
    joints = list(primitive.joint_positions)
    poses = list(primitive.poses)
    if kind == LINEAR_JOINT and not joints:
        return f'{where}: LINEAR_JOINT requires joint_positions.'
    if kind == LINEAR_CARTESIAN and not poses:
        return f'{where}: LINEAR_CARTESIAN requires at least one pose.'
    if kind == CIRCULAR_CARTESIAN and len(poses) != 2:
        return f'{where}: CIRCULAR_CARTESIAN requires exactly two poses.'
    if len(joints) > MAX_JOINTS:
        return f'{where}: {len(joints)} joint_positions, the interfaces carry at most {MAX_JOINTS}.'
    values = [('joint_positions', v) for v in joints]
    values += [(f'poses[{i}]', v) for i, pose in enumerate(poses) for v in _pose_values(pose.pose)]
    values.append(('blend_radius', primitive.blend_radius))
    for argument in primitive.additional_arguments:
        if argument.name not in ARGUMENTS:
            known = ', '.join(ARGUMENTS)
            return f"{where}: unknown additional argument '{argument.name}' (known: {known})."
        values.append((argument.name, argument.value))
    for field, value in values:
        if not math.isfinite(value):
            return f'{where}: {field} holds {value}, not a finite number.'
    return ''


def goal_problem(motions: Sequence[Any], queued: int = 0) -> str:
    """Why a goal's ``motions`` are refused ('' if accepted); ``queued``: rows still waiting."""
    if not motions:
        return 'no motion primitives provided.'
    rows = len(motions) + (2 if len(motions) > 1 else 0)  # start and end markers
    free = QUEUE_CAPACITY - queued
    if rows > free:
        return (
            f'Remaining queue capacity ({free}) is not enough for the requested '
            f'{len(motions)} motion primitives (+ start and stop marker).'
        )
    for index, primitive in enumerate(motions):
        problem = primitive_problem(index, primitive)
        if problem:
            return problem
    return ''


def helper_row(kind: int) -> tuple[float, ...]:
    """The row of a helper command (stop, reset, sequence markers): only motion_type set."""
    return (float(kind),) + (NAN,) * (len(COMMAND_NAMES) - 1)


def primitive_row(primitive: Any) -> tuple[float, ...]:
    """The 25 command values of a checked primitive, NaN where it sets nothing."""
    row = [NAN] * len(COMMAND_NAMES)
    row[0] = float(primitive.type)
    for i, value in enumerate(primitive.joint_positions):
        row[1 + i] = float(value)
    poses = list(primitive.poses)
    if poses:
        row[_GOAL : _GOAL + 7] = _pose_values(poses[0].pose)
        if primitive.type == CIRCULAR_CARTESIAN:
            row[_VIA : _VIA + 7] = _pose_values(poses[1].pose)
    row[_BLEND] = float(primitive.blend_radius)
    for argument in primitive.additional_arguments:
        row[ARGUMENTS[argument.name]] = float(argument.value)
    return tuple(row)


def goal_rows(motions: Sequence[Any]) -> list[tuple[int, tuple[float, ...]]]:
    """(index in the goal, row) for each row a goal sends, in order; markers have index -1.
    More than one primitive goes as a sequence between start and end markers, as upstream."""
    rows = [(i, primitive_row(p)) for i, p in enumerate(motions)]
    if len(motions) > 1:
        rows = [(-1, helper_row(MOTION_SEQUENCE_START)), *rows]
        rows.append((-1, helper_row(MOTION_SEQUENCE_END)))
    return rows
