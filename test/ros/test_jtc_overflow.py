"""Huge but finite trajectories are refused at the door of the joint trajectory controller:
a ~/joint_trajectory message is dropped with one log line, a FollowJointTrajectory goal is
rejected; sane trajectories still run (the stepped 6-joint mock arm, jtc_rig.py). The rule,
every value within +-1e150, is worked through in test/unit/test_jtc_overflow_math.py."""

import pytest
from action_msgs.msg import GoalStatus
from jtc_rig import JTC, arm_rig, goal_of, point, trajectory

arm = pytest.fixture(arm_rig, name='arm')
ZEROS = [0.0] * 6


def test_a_huge_topic_trajectory_is_dropped_with_one_log_line(arm):
    arm.start(JTC)
    arm.publish(trajectory([point(0.5, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])]))
    assert arm.run_until(lambda: arm.position('joint6') == pytest.approx(0.6, abs=1e-12))
    arm.run_for(0.05)
    still = arm.positions()
    # 1e308 on joint3 (reached from ~0.3 in 2 s: finite, but the spline overflows)
    arm.publish(trajectory([point(2.0, [0.1, 0.2, 1e308, 0.4, 0.5, 0.6])]))
    line = (
        'Trajectory rejected: Value 1e+308 in positions of joint joint3 at point #0 is beyond '
        '+-1e+150: the trajectory would overflow.'
    )
    arm.wait_logged(line)
    arm.run_for(0.5)
    assert arm.positions() == still
    assert arm.manager.state_of(JTC).label == 'active'
    assert sum(m.msg == line for m in arm.rosout) == 1
    # a sane trajectory runs as before
    arm.publish(trajectory([point(0.5, ZEROS)]))
    assert arm.run_until(lambda: arm.positions() == pytest.approx(ZEROS, abs=1e-12))


def test_huge_goals_are_rejected_and_a_sane_one_runs(arm):
    arm.start(JTC)
    arm.run_for(0.05)
    still = arm.positions()
    velocities = [0.0, 1e308, 0.0, 0.0, 0.0, 0.0]  # positions stay finite, velocities overflow
    cases = [
        (
            goal_of([point(1.0, [1e308, 0, 0, 0, 0, 0])]),
            'Value 1e+308 in positions of joint joint1 at point #0 is beyond +-1e+150',
        ),
        (
            goal_of([point(1.0, ZEROS, velocities=velocities), point(2.0, ZEROS)]),
            'Value 1e+308 in velocities of joint joint2 at point #0 is beyond +-1e+150',
        ),
        (
            goal_of([point(1.0, ZEROS), point(2.0, ZEROS, accelerations=[0, 0, 0, 0, 0, -2e150])]),
            'Value -2e+150 in accelerations of joint joint6 at point #1 is beyond +-1e+150',
        ),
    ]
    for goal, reason in cases:
        handle = arm.send_goal(goal)
        assert not handle.accepted, reason
        arm.wait_logged('Goal rejected: ', reason)
    arm.run_for(0.1)
    assert arm.manager.state_of(JTC).label == 'active'
    assert arm.positions() == still
    target = [0.2, -0.1, 0.3, 0.4, -0.2, 0.1]
    handle = arm.send_goal(goal_of([point(0.5, target)]))
    assert handle.accepted
    status, _ = arm.result(handle)
    assert status == GoalStatus.STATUS_SUCCEEDED
    assert arm.positions() == pytest.approx(target, abs=1e-9)
