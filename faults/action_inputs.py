"""Malformed goals on the JTC's FollowJointTrajectory action, and cancel / result requests
for goals that do not exist. A bad goal must be rejected; a goal that is accepted must get
a result; every request must be answered."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from action_msgs.msg import GoalStatus
from action_msgs.srv import CancelGoal
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTolerance
from rclpy.action import ActionClient

from faults.common import CALL_TIMEOUT_S, Robot, Row, cycle
from faults.messages import ARM, INT32_MAX, bad_trajectories, duration, point, shifted, trajectory
from faults.topics import close, settled

ACTION = '/arm_controller/follow_joint_trajectory'
RESULT_TIMEOUT_S = 15.0
GIVE_UP_AFTER = 3  # clients without an answer in one row: the rest of the row is skipped
ALL_ACTIVE = {
    'joint_state_broadcaster': 'active',
    'arm_controller': 'active',
    'diff_drive_controller': 'active',
    'gripper_controller': 'active',
}


def send(robot: Robot, client: ActionClient, goal: Any, row: Row, expect_error: bool) -> None:
    """One goal: rejected (an error back), or accepted and then given a result (cancelled
    after a moment when `expect_error` is False: a far-future start never ends by itself)."""
    row.sent += 1
    if expect_error:
        row.expected_errors += 1
    sent = client.send_goal_async(goal)
    if not robot.wait(sent.done, CALL_TIMEOUT_S):
        row.unanswered += 1
        row.note('no goal response')
        return
    handle = sent.result()
    if not handle.accepted:
        row.errors += 1 if expect_error else 0
        return
    result = handle.get_result_async()
    if not expect_error:
        robot.spin(0.2)
        handle.cancel_goal_async()
    if not robot.wait(result.done, RESULT_TIMEOUT_S):
        row.unanswered += 1
        row.note('accepted goal without a result')
        handle.cancel_goal_async()


def goal_of(traj: Any, **fields: Any) -> Any:
    return FollowJointTrajectory.Goal(trajectory=traj, **fields)


def valid_goal_succeeds(robot: Robot, client: ActionClient, hold: Sequence[float]) -> bool:
    target = [hold[0] + 0.05, *hold[1:]]
    sent = client.send_goal_async(goal_of(trajectory([point(0.5, target)])))
    if not robot.wait(sent.done, CALL_TIMEOUT_S) or not sent.result().accepted:
        return False
    result = sent.result().get_result_async()
    return robot.wait(result.done, RESULT_TIMEOUT_S) and (
        result.result().status == GoalStatus.STATUS_SUCCEEDED
    )


def goal_rows(robot: Robot, arm: Any, client: ActionClient, n: int, rows: list[Row]) -> None:
    hold = arm.reference() or [0.0] * 6
    now_s = robot.node.get_clock().now().nanoseconds * 1e-9
    kinds: dict[str, tuple[list[Any], bool]] = {
        kind: ([goal_of(t) for t in trajs], True)
        for kind, trajs in bad_trajectories(hold, now_s).items()
    }
    kinds['empty trajectory (no points)'] = ([goal_of(trajectory([]))], True)
    to = shifted(hold, 0.02)
    kinds['huge stamps (start in 68 years), cancelled'] = (
        [goal_of(trajectory([point(0.5, to)], stamp=(INT32_MAX, 0)))],
        False,
    )
    kinds['bad tolerances (defaults used, as upstream)'] = (
        [
            goal_of(trajectory([point(0.3, to)]), goal_time_tolerance=duration(-5.0)),
            goal_of(
                trajectory([point(0.3, hold)]),
                path_tolerance=[JointTolerance(name='no_such_joint', position=0.1)],
            ),
            goal_of(
                trajectory([point(0.3, to)]),
                goal_tolerance=[JointTolerance(name=ARM[0], position=float('nan'))],
            ),
        ],
        False,
    )
    for kind, (goals, expect_error) in kinds.items():
        row = Row(ACTION, kind)
        before = settled(robot, arm.reference, close, 0.2)
        mark = robot.mark()
        with robot.batch(row):
            for goal in cycle(goals, n):
                send(robot, client, goal, row, expect_error)
                if row.unanswered >= GIVE_UP_AFTER:
                    row.fail(f'row cut short after {row.unanswered} clients without an answer')
                    break
        row.logs = len(robot.log_lines(mark, ['arm_controller']))
        if expect_error and not close(arm.reference(), before):
            row.fail(f'the reference moved: {before} -> {arm.reference()}')
        if not valid_goal_succeeds(robot, client, arm.reference() or hold):
            row.fail('a valid goal afterwards did not succeed')
        robot.expect_states(row, ALL_ACTIVE)
        rows.append(row)


def unknown_goal_rows(robot: Robot, n: int, rows: list[Row]) -> None:
    """Cancel and get_result for goal ids nobody sent: answered, with an error code."""
    impl = FollowJointTrajectory.Impl
    cases = [
        ('cancel unknown goal ids', CancelGoal, f'{ACTION}/_action/cancel_goal'),
        ('get_result of unknown goal ids', impl.GetResultService, f'{ACTION}/_action/get_result'),
    ]
    for kind, srv, service in cases:
        row = Row(f'{ACTION} (_action services)', kind)
        with robot.batch(row):
            for _ in range(n):
                req = srv.Request()
                uuid = list(os.urandom(16))
                if srv is CancelGoal:
                    req.goal_info.goal_id.uuid = uuid
                else:
                    req.goal_id.uuid = uuid
                res = robot.call(srv, service, req)
                if res is None:
                    row.answered(None, True)
                elif srv is CancelGoal:
                    row.answered(res.return_code == CancelGoal.Response.ERROR_NONE, True)
                else:
                    row.answered(res.status != GoalStatus.STATUS_UNKNOWN, True)
        robot.expect_states(row, ALL_ACTIVE)
        rows.append(row)


def run(robot: Robot, arm: Any, n: int, rows: list[Row]) -> None:
    client = ActionClient(robot.node, FollowJointTrajectory, ACTION)
    if not client.wait_for_server(timeout_sec=10.0):
        row = Row(ACTION, 'action server')
        row.fail('the action server did not appear')
        rows.append(row)
        return
    goal_rows(robot, arm, client, n, rows)
    unknown_goal_rows(robot, n, rows)
