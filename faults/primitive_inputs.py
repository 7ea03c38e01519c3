"""Goals motion_primitives_controllers/MotionPrimitivesForwardController cannot forward, on
its ~/motion_sequence action (config/motion_primitives.yaml on the acknowledging mock of
config/motion_primitives_robot.urdf): non-finite values, unknown motion types, more joints
than the interfaces carry, primitives missing their data. Each must be rejected with a log
line and nothing may reach the hardware (the recorder counts the writes that hand it a
primitive); a valid goal afterwards must succeed, and reach it."""

from __future__ import annotations

from typing import Any

from action_msgs.msg import GoalStatus
from control_msgs.action import ExecuteMotionPrimitiveSequence
from control_msgs.msg import MotionArgument, MotionPrimitive
from geometry_msgs.msg import PoseStamped
from rclpy.action import ActionClient

from faults import action_inputs
from faults.common import CALL_TIMEOUT_S, Robot, Row, cycle, running
from faults.messages import INF, NAN
from faults.robots import MOTION_PRIMITIVES
from faults.topics import count_nonfinite

CONTROLLER = 'motion_primitive_controller'
ACTION = f'/{CONTROLLER}/motion_sequence'
EXPECTED = {CONTROLLER: 'active'}
PTP, LIN, CIRC = (
    MotionPrimitive.LINEAR_JOINT,
    MotionPrimitive.LINEAR_CARTESIAN,
    MotionPrimitive.CIRCULAR_CARTESIAN,
)


def pose(x: float = 0.4, y: float = 0.0, z: float = 0.3, w: float = 1.0) -> PoseStamped:
    msg = PoseStamped()
    msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = x, y, z
    msg.pose.orientation.w = w
    return msg


def primitive(
    kind: int,
    joints: tuple[float, ...] = (),
    poses: tuple[PoseStamped, ...] = (),
    blend: float = 0.0,
    **arguments: float,
) -> MotionPrimitive:
    msg = MotionPrimitive(type=kind, blend_radius=blend)
    msg.joint_positions = [float(q) for q in joints]
    msg.poses = list(poses)
    msg.additional_arguments = [MotionArgument(name=k, value=v) for k, v in arguments.items()]
    return msg


def goal(*motions: MotionPrimitive) -> Any:
    request = ExecuteMotionPrimitiveSequence.Goal()
    request.trajectory.motions = list(motions)
    return request


Q = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)


def bad_goals() -> dict[str, list[Any]]:
    """Goals by kind; each would hand the robot something if it were accepted (a valid
    primitive goes first where the kind allows, so a half-checked sequence would show)."""
    ok = primitive(PTP, Q, velocity=0.5)
    return {
        'non-finite values': [
            goal(primitive(PTP, (NAN, *Q[1:]))),
            goal(ok, primitive(PTP, (*Q[:5], INF))),
            goal(primitive(LIN, poses=(pose(x=-INF),))),
            goal(primitive(LIN, poses=(pose(w=NAN),))),
            goal(ok, primitive(PTP, Q, blend=NAN)),
            goal(primitive(PTP, Q, velocity=INF)),
            goal(primitive(CIRC, poses=(pose(), pose(z=NAN)), move_time=1.0)),
        ],
        'unknown motion types': [
            goal(primitive(99, Q)),
            goal(ok, primitive(-1, Q)),
            goal(primitive(MotionPrimitive.LINEAR_JOINT + 1, Q)),
            goal(primitive(66, Q)),  # the STOP_MOTION helper is no primitive of a goal
            goal(primitive(101)),  # nor is MOTION_SEQUENCE_END
        ],
        'too many joints': [
            goal(primitive(PTP, (*Q, 0.7))),
            goal(ok, primitive(PTP, Q * 2)),
            goal(primitive(PTP, tuple(0.01 * i for i in range(100)))),
        ],
        'primitives missing their data': [
            goal(),
            goal(primitive(PTP)),
            goal(primitive(LIN)),
            goal(ok, primitive(CIRC, poses=(pose(),))),
        ],
    }


def valid_goal_reaches_the_robot(robot: Robot, client: ActionClient) -> bool:
    """A valid PTP goal is accepted, succeeds, and at least one write hands it over."""
    before = robot.commands_written() or 0
    sent = client.send_goal_async(goal(primitive(PTP, Q, velocity=0.5)))
    if not robot.wait(sent.done, CALL_TIMEOUT_S) or not sent.result().accepted:
        return False
    result = sent.result().get_result_async()
    return (
        robot.wait(result.done, action_inputs.RESULT_TIMEOUT_S)
        and result.result().status == GoalStatus.STATUS_SUCCEEDED
        and (robot.commands_written() or 0) > before
    )


def goal_rows(robot: Robot, client: ActionClient, n: int, rows: list[Row]) -> None:
    for kind, goals in bad_goals().items():
        row = Row(ACTION, kind)
        mark = robot.mark()
        written = robot.commands_written() or 0
        bad_writes = robot.nonfinite_writes() or 0
        with robot.batch(row):
            for request in cycle(goals, n):
                action_inputs.send(robot, client, request, row, expect_error=True)
        row.logs = len(robot.log_lines(mark, [CONTROLLER]))
        reached = (robot.commands_written() or 0) - written
        row.note(f'{reached} primitives reached the hardware')
        if reached:
            row.fail('a rejected goal reached the hardware')
        count_nonfinite(robot, row, bad_writes)
        if not valid_goal_reaches_the_robot(robot, client):
            row.fail('a valid goal afterwards did not succeed')
        robot.expect_states(row, EXPECTED)
        rows.append(row)


def run(n: int, rows: list[Row]) -> None:
    params, urdf = MOTION_PRIMITIVES
    with running(
        [params], urdf, [CONTROLLER], recorded=['py_controllers/MotionPrimitivesMockSystem']
    ) as robot:
        client = ActionClient(robot.node, ExecuteMotionPrimitiveSequence, ACTION)
        if not client.wait_for_server(timeout_sec=10.0) or not valid_goal_reaches_the_robot(
            robot, client
        ):
            row = Row(ACTION, 'action server')
            row.fail('no action server, or a valid goal did not succeed and reach the robot')
            rows.append(row)
            return
        goal_rows(robot, client, n, rows)
