"""joint_trajectory_controller on the 6-joint arm: FollowJointTrajectory goals (success with
feedback on the real loop, preemption, cancel, rejection, path and goal tolerances,
deactivation, cleanup). Most tests stop the loop thread and step read -> update -> write
with the configured 10 ms period, so timing depends only on cycle counts (jtc_rig.py)."""

import math

import pytest
from action_msgs.msg import GoalStatus
from builtin_interfaces.msg import Duration as DurationMsg
from control_msgs.msg import JointTolerance
from jtc_rig import (
    JOINTS,
    JTC,
    R,
    Rig,
    arm_rig,
    frozen_arm_rig,
    goal_of,
    point,
)
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory

from py_controllers.testing import stamp_ns

arm = pytest.fixture(arm_rig, name='arm')
frozen_arm = pytest.fixture(frozen_arm_rig, name='frozen_arm')


# --- action goals --------------------------------------------------------------------


def test_six_joint_goal_succeeds_with_feedback_on_the_real_loop(tmp_path):
    rig = Rig(tmp_path, stepped=False)
    try:
        rig.start('joint_state_broadcaster', JTC)
        joint_states = rig.harness.subscribe(JointState, '/joint_states')
        target = [0.4, -0.3, 0.5, 2.5, -0.2, 0.1]
        feedback = []
        goal = goal_of(
            [point(1.0, [x / 2 for x in target]), point(2.0, target, [0.0] * 6)],
            # A real-time smoke test, so a generous path tolerance: the mock arm's state is
            # the last cycle's command, so a late cycle's lag at full speed is the error, and
            # a loaded host delayed one by 0.3 s (q18: joint4 0.41 rad off at 1.25 rad/s,
            # against the YAML's 0.1). Tolerances are asserted on stepped time elsewhere.
            path_tolerance=[JointTolerance(name=j, position=1.0) for j in JOINTS],
        )
        handle = rig.send_goal(goal, feedback=feedback.append)
        assert handle.accepted
        status, result = rig.result(handle)
        assert status == GoalStatus.STATUS_SUCCEEDED
        assert result.error_code == R.SUCCESSFUL
        assert result.error_string == 'Goal successfully reached!'
        assert feedback, 'no feedback while executing'
        first = feedback[0].feedback
        assert list(first.joint_names) == JOINTS
        assert len(first.desired.positions) == 6 and len(first.actual.positions) == 6
        for m in feedback:  # each message from one cycle: error = desired - actual
            fb = m.feedback
            for field in ('positions', 'velocities'):
                desired, actual = getattr(fb.desired, field), getattr(fb.actual, field)
                expected = [d - a for d, a in zip(desired, actual)]
                assert list(getattr(fb.error, field)) == pytest.approx(expected, abs=1e-12)
        # within the goal tolerance (0.02) of the final point, as a state stamped after the
        # result shows (CI, jazzy: a state from before it came after it, joint4 at 2.475)
        done_ns = rig.harness.node.get_clock().now().nanoseconds
        assert rig.harness.spin_until(lambda: stamp_ns(joint_states[-1]) > done_ns)
        final = joint_states[-1]
        by_name = dict(zip(final.name, final.position))
        for joint, expected in zip(JOINTS, target):
            assert by_name[joint] == pytest.approx(expected, abs=0.02)
    finally:
        rig.close()


def test_new_goal_preempts_the_active_one(arm):
    arm.start(JTC)
    first = arm.send_goal(goal_of([point(2.0, [1.0] * 6)]))
    arm.run_for(0.2)
    second = arm.send_goal(goal_of([point(0.5, [-0.5] * 6)]))
    assert first.accepted and second.accepted
    status, result = arm.result(first)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.error_code == R.INVALID_GOAL
    assert result.error_string == 'Current goal preempted by new incoming action.'
    status, result = arm.result(second)
    assert status == GoalStatus.STATUS_SUCCEEDED and result.error_code == R.SUCCESSFUL
    assert arm.positions() == pytest.approx([-0.5] * 6, abs=1e-9)


def test_cancel_stops_and_holds(arm):
    arm.start(JTC)
    handle = arm.send_goal(goal_of([point(1.0, [1.0] * 6)]))
    arm.run_for(0.4)
    cancel = handle.cancel_goal_async()
    assert arm.run_until(cancel.done)
    assert len(cancel.result().goals_canceling) == 1
    status, result = arm.result(handle)
    assert status == GoalStatus.STATUS_CANCELED
    assert result.error_code == R.SUCCESSFUL and result.error_string == ''
    stopped = arm.positions()
    assert 0.2 < stopped[0] < 0.9  # stopped on the way
    arm.run_for(0.5)
    assert arm.positions() == stopped  # and holds there


def test_invalid_goals_are_rejected_with_a_reason_and_the_arm_keeps_holding(arm):
    arm.start(JTC)
    arm.run_for(0.05)
    still = arm.positions()
    zeros = [0.0] * 6
    past = arm.harness.node.get_clock().now().nanoseconds - 10 * 10**9
    nan = [0.0, 0.0, math.nan, 0.0, 0.0, 0.0]
    cases = [
        (
            goal_of([point(1.0, zeros)], names=[*JOINTS[:5], 'jointX']),
            "Incoming joint jointX doesn't match the controller's joints.",
        ),
        (
            goal_of([point(1.0, zeros)], names=[*JOINTS[:5], 'joint1']),
            'Incoming trajectory names joint joint1 more than once.',
        ),
        (goal_of([]), 'Empty trajectory received.'),
        (
            goal_of([point(1.0, zeros[:5])]),
            'Mismatch between joint_names size (6) and positions (5) at point #0.',
        ),
        (
            goal_of([point(1.0, zeros), point(0.5, zeros)]),
            'Time between points 0 and 1 is not strictly increasing',
        ),
        (goal_of([point(1.0, nan)]), 'Non-finite value nan in positions of joint joint3'),
        (
            goal_of([point(1.0, zeros, effort=zeros)]),
            'Trajectories with effort fields are only supported',
        ),
        (
            goal_of([point(1.0, zeros, velocities=[0.5, 0, 0, 0, 0, 0])]),
            'Velocity of last trajectory point of joint joint1 is not zero',
        ),
        (
            goal_of([point(1.0, [0.3])], names=['joint1']),
            "Joints on incoming trajectory don't match the controller joints.",
        ),
    ]
    stale = goal_of([point(1.0, zeros)])
    stale.trajectory.header.stamp.sec, stale.trajectory.header.stamp.nanosec = divmod(past, 10**9)
    cases.append((stale, 'that ends in the past'))
    for goal, reason in cases:
        handle = arm.send_goal(goal)
        assert not handle.accepted, reason
        arm.wait_logged('Goal rejected: ', reason)
    arm.run_for(0.1)
    assert arm.manager.state_of(JTC).label == 'active'
    assert arm.positions() == still


def test_path_tolerance_violation_aborts_and_holds(frozen_arm):
    arm = frozen_arm
    arm.start(JTC)
    handle = arm.send_goal(goal_of([point(1.0, [1.0, 0, 0, 0, 0, 0])]))
    status, result = arm.result(handle)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.error_code == R.PATH_TOLERANCE_VIOLATED
    assert result.error_string == 'Aborted due to path tolerance violation'
    arm.wait_logged("joint 'joint1': position error")
    # holding where the arm is (it never moved), not where the trajectory was going
    arm.run_for(0.1)
    assert arm.command('joint1') == 0.0


def test_goal_time_violation_with_goal_tolerances(frozen_arm):
    arm = frozen_arm
    arm.start(JTC)
    goal = goal_of(
        [point(0.3, [0.5, 0, 0, 0, 0, 0])],
        # -1 erases the configured path tolerance, so only the goal is checked
        path_tolerance=[JointTolerance(name=j, position=-1.0) for j in JOINTS],
        goal_tolerance=[JointTolerance(name='joint1', position=0.01)],
        goal_time_tolerance=DurationMsg(sec=0, nanosec=200_000_000),
    )
    handle = arm.send_goal(goal)
    status, result = arm.result(handle)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.error_code == R.GOAL_TOLERANCE_VIOLATED
    assert result.error_string.startswith('Aborted due to goal_time_tolerance exceeding by 0.2')


def test_deactivation_aborts_the_goal(arm):
    arm.start(JTC)
    handle = arm.send_goal(goal_of([point(2.0, [1.0] * 6)]))
    arm.run_for(0.2)
    assert arm.manager.switch_controller([], [JTC], 2)[0]
    status, result = arm.result(handle)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.error_code == R.INVALID_GOAL
    assert result.error_string == 'Current goal cancelled during deactivate transition.'


def test_cancel_result_waits_until_the_loop_stops_following(arm):
    arm.start(JTC)
    handle = arm.send_goal(goal_of([point(2.0, [1.0] * 6)]))
    arm.run_for(0.2)
    result = handle.get_result_async()
    cancel = handle.cancel_goal_async()
    # serve callbacks without running a cycle: the loop still follows the goal
    assert arm.harness.spin_until(cancel.done)
    assert len(cancel.result().goals_canceling) == 1
    assert arm.harness.spin_until(lambda: handle.status == GoalStatus.STATUS_CANCELING)
    for _ in range(25):  # the monitor runs meanwhile (woken, and its timer at 20 Hz)
        arm.harness.executor.spin_once(timeout_sec=0.02)
    assert not result.done() and handle.status == GoalStatus.STATUS_CANCELING
    arm.step()  # the loop takes the stop: now the result goes out
    assert arm.harness.spin_until(result.done)
    assert result.result().status == GoalStatus.STATUS_CANCELED
    stopped = arm.positions()
    arm.run_for(0.2)
    assert arm.positions() == stopped


def test_empty_topic_trajectory_ends_the_active_goal(arm):
    arm.start(JTC)
    handle = arm.send_goal(goal_of([point(2.0, [1.0] * 6)]))
    assert arm.run_until(lambda: arm.position('joint1') > 0.2)
    arm.publish(JointTrajectory())
    status, result = arm.result(handle)
    # rclpy lets a goal end CANCELED only after a client's cancel request
    assert status == GoalStatus.STATUS_ABORTED
    assert result.error_code == R.INVALID_GOAL
    assert result.error_string == 'Goal stopped by an empty trajectory on the topic'
    arm.run_for(0.05)
    stopped = arm.positions()
    arm.run_for(0.3)
    assert arm.positions() == stopped and stopped[0] < 0.9


def test_cleanup_leaves_no_goal_without_a_terminal_state(arm):
    arm.start(JTC)
    handle = arm.send_goal(goal_of([point(2.0, [1.0] * 6)]))
    arm.run_for(0.1)
    # deactivate and clean up at once: the monitor gets no turn in between
    assert arm.manager.switch_controller([], [JTC], 2)[0]
    assert arm.manager.cleanup_controller(JTC)[0]
    assert arm.harness.spin_until(lambda: handle.status == GoalStatus.STATUS_ABORTED)
