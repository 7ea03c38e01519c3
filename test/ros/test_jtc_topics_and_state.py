"""joint_trajectory_controller on the 6-joint arm, beyond actions: the trajectory topic,
controller_state, query_state, interface combinations, clock jumps, speed scaling, PIDs on
simulated dynamics, decelerate on cancel, command timeout, starting from the last command
(jtc_rig.py has the rig)."""

import math

import pytest
from action_msgs.msg import GoalStatus
from control_msgs.msg import JointTrajectoryControllerState, SpeedScalingFactor
from control_msgs.srv import QueryTrajectoryState
from jtc_rig import (
    ARM_URDF,
    FROZEN_URDF,
    JOINTS,
    JTC,
    MOCK,
    SIM_URDF,
    R,
    Rig,
    arm_rig,
    goal_of,
    point,
    position_jtc,
    trajectory,
)
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from trajectory_msgs.msg import JointTrajectory

from py_controllers.robot_description import swap_hardware

arm = pytest.fixture(arm_rig, name='arm')


# --- topic, partial goals, query_state ------------------------------------------------


def test_controller_state_holds_one_cycles_reference_feedback_and_error(arm):
    arm.start(JTC)
    states = arm.harness.subscribe(JointTrajectoryControllerState, f'/{JTC}/controller_state')
    arm.publish(trajectory([point(1.0, [0.6, 0.5, 0.4, 0.3, 0.2, 0.1])]))
    assert arm.run_until(lambda: any(m.reference.positions[0] > 0.3 for m in states))
    moving = [m for m in states if m.reference.positions[0] > 0.0]
    for m in moving:
        assert list(m.joint_names) == JOINTS
        for field in ('positions', 'velocities'):
            reference, measured = getattr(m.reference, field), getattr(m.feedback, field)
            expected = [r - f for r, f in zip(reference, measured)]
            assert list(getattr(m.error, field)) == pytest.approx(expected, abs=1e-12)
        # the mock arm commands positions; the output holds what was written
        assert len(m.output.positions) == 6 and all(math.isfinite(x) for x in m.output.positions)
    # along the linear segment the reference moves at 0.6 rad/s on joint1
    assert moving[-1].reference.velocities[0] == pytest.approx(0.6, abs=1e-9)


def test_a_continuous_joints_error_is_the_shortest_way_round(tmp_path):
    """joint4 is continuous: its error is the shortest rotation from the measured position to
    the reference, in (-pi, pi], not their difference (the hardware never moves here, so the
    reference runs past pi from a measured 0)."""
    no_checks = {'trajectory': 0.0, 'goal': 0.0}
    rig = Rig(
        tmp_path,
        urdf=FROZEN_URDF,
        variants={'jtc_wrap': position_jtc(constraints={j: no_checks for j in JOINTS})},
    )
    try:
        rig.start('jtc_wrap')
        states = rig.harness.subscribe(JointTrajectoryControllerState, '/jtc_wrap/controller_state')
        points = [point(t, [0.0, 0.0, 0.0, 2.0 * t, 0.0, 0.0]) for t in (1.0, 2.0, 3.0)]
        rig.publish(trajectory(points), controller='jtc_wrap')
        assert rig.run_until(lambda: any(m.reference.positions[3] > 5.0 for m in states))
        past_pi = [m for m in states if m.reference.positions[3] > math.pi + 0.1]
        assert len(past_pi) > 10
        for m in past_pi:
            reference, measured = m.reference.positions[3], m.feedback.positions[3]
            assert measured == 0.0
            assert m.error.positions[3] == pytest.approx(reference - 2.0 * math.pi, abs=1e-12)
            assert m.error.positions[0] == 0.0  # a revolute joint: plain difference
    finally:
        rig.close()


def test_topic_trajectory_in_jumbled_order_empty_stops_stamps_respected(arm):
    arm.start(JTC)
    # jumbled joint order: joint k goes to 0.1 * k
    arm.publish(trajectory([point(0.3, [0.6, 0.5, 0.4, 0.3, 0.2, 0.1])], names=JOINTS[::-1]))
    assert arm.run_until(lambda: arm.position('joint6') == pytest.approx(0.6, abs=1e-12))
    arm.run_for(0.05)
    assert arm.positions() == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], abs=1e-12)

    # a trajectory that ended in the past is ignored
    past = arm.harness.node.get_clock().now().nanoseconds - 10 * 10**9
    arm.publish(trajectory([point(1.0, [0.0] * 6)], stamp_ns=past))
    arm.wait_logged('Trajectory rejected: ', 'that ends in the past')
    assert arm.positions() == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], abs=1e-12)

    # a future stamp: the first point (here: where the arm is) is due 0.5 s from now
    here = arm.positions()
    start = arm.stepper.catch_up_with_clock() + 500_000_000
    arm.publish(trajectory([point(0.0, here), point(0.3, [0.0] * 6)], stamp_ns=start))
    arm.run_for(0.3)
    assert arm.positions() == pytest.approx(here, abs=1e-9)  # not started yet
    assert arm.run_until(lambda: arm.position('joint6') == pytest.approx(0.0, abs=1e-12))

    # an empty trajectory stops a moving arm where it is
    arm.publish(trajectory([point(2.0, [1.0] * 6)]))
    assert arm.run_until(lambda: arm.position('joint1') > 0.2)
    arm.publish(JointTrajectory())
    arm.wait_logged('Empty trajectory received on ~/joint_trajectory')
    arm.run_for(0.05)
    stopped = arm.positions()
    arm.run_for(0.3)
    assert arm.positions() == stopped
    assert stopped[0] < 0.9


def test_a_trajectory_past_its_end_is_sampled_no_more_and_the_next_one_is_followed(arm):
    (jtc,) = arm.start(JTC)
    states = arm.harness.subscribe(JointTrajectoryControllerState, f'/{JTC}/controller_state')
    first, second = [0.3, -0.2, 0.1, 0.4, -0.1, 0.2], [-0.1, 0.2, 0.3, -0.3, 0.1, 0.0]
    arm.publish(trajectory([point(0.2, first)]))
    assert arm.run_until(lambda: arm.positions() == pytest.approx(first, abs=1e-12))
    arm.step(2)
    ended = jtc._trajectory
    samples = []
    sample = ended.sample
    ended.sample = lambda *a, **k: samples.append(a[0]) or sample(*a, **k)
    count = len(states)
    arm.run_for(0.3)
    assert samples == []  # 30 cycles at its last point, none of them sampling it
    assert [arm.command(j) for j in JOINTS] == first
    assert arm.harness.spin_until(lambda: len(states) > count)
    assert list(states[-1].reference.positions) == first
    assert list(states[-1].error.positions) == pytest.approx([0.0] * 6, abs=1e-12)
    arm.publish(trajectory([point(0.2, second)]))
    assert arm.run_until(lambda: arm.positions() == pytest.approx(second, abs=1e-12))


def test_partial_topic_trajectory_during_a_goal_keeps_the_other_joints_going(arm):
    arm.start('jtc_partial')
    handle = arm.send_goal(goal_of([point(1.0, [0.6] * 6)]), controller='jtc_partial')
    arm.run_for(0.3)
    arm.publish(trajectory([point(0.3, [-0.2])], names=['joint1']), controller='jtc_partial')
    status, result = arm.result(handle)
    # the goal stays active and is judged against the combined trajectory
    assert status == GoalStatus.STATUS_SUCCEEDED and result.error_code == R.SUCCESSFUL
    assert arm.positions() == pytest.approx([-0.2, 0.6, 0.6, 0.6, 0.6, 0.6], abs=1e-9)


def test_query_state_samples_the_trajectory(arm):
    arm.start(JTC)
    client = arm.harness.node.create_client(QueryTrajectoryState, f'/{JTC}/query_state')
    assert client.wait_for_service(timeout_sec=10.0)

    def query(time_ns):
        request = QueryTrajectoryState.Request()
        request.time.sec, request.time.nanosec = divmod(time_ns, 10**9)
        future = client.call_async(request)
        assert arm.harness.spin_until(future.done)
        return future.result()

    start = arm.stepper.catch_up_with_clock() + 100_000_000
    arm.publish(
        trajectory([point(0.0, [0.0] * 6), point(1.0, [1.0, 0, 0, 0, 0, 0])], stamp_ns=start)
    )
    assert arm.run_until(lambda: arm.position('joint1') > 0.0)
    # linear segment 0 -> 1 rad over 1 s: at its middle 0.5 rad moving at 1 rad/s
    middle = query(start + 500_000_000)
    assert middle.success
    assert list(middle.name) == JOINTS
    assert list(middle.position) == pytest.approx([0.5, 0, 0, 0, 0, 0], abs=1e-9)
    assert list(middle.velocity) == pytest.approx([1.0, 0, 0, 0, 0, 0], abs=1e-9)
    assert not query(start + 2 * 10**9).success  # after the end
    assert not query(start - 10 * 10**9).success  # before the start
    # querying has no side effects: the trajectory plays on to its end
    assert arm.run_until(lambda: arm.position('joint1') == pytest.approx(1.0, abs=1e-12))


def test_illegal_interface_combinations_fail_configure(arm):
    for name, reason in (
        (
            'jtc_bad_combination',
            "'velocity' command interface can be used either alone or 'position'",
        ),
        (
            'jtc_velocity_without_velocity_state',
            "'velocity' command interface can only be used alone if 'velocity' and 'position' "
            'state interfaces are present',
        ),
    ):
        assert arm.manager.load_controller(name)[0]
        ok, _ = arm.manager.configure_controller(name)
        assert not ok
        arm.wait_logged(reason)


def test_a_clock_jump_does_not_jump_the_trajectory(arm):
    arm.start(JTC)
    # linear 0 -> 1 rad over 1 s: 0.01 rad per 10 ms cycle
    arm.publish(trajectory([point(0.0, [0.0] * 6), point(1.0, [1.0, 0, 0, 0, 0, 0])]))
    assert arm.run_until(lambda: arm.position('joint1') > 0.0)
    arm.run_for(0.3)
    before = arm.position('joint1')
    arm.now_ns += 3600 * 10**9  # the system clock jumps an hour ahead
    arm.step(1)
    assert arm.position('joint1') - before == pytest.approx(0.01, abs=1e-9)
    arm.now_ns -= 7200 * 10**9  # and two hours back
    arm.step(1)
    assert arm.position('joint1') - before == pytest.approx(0.02, abs=1e-9)


def test_speed_scaling_slows_trajectory_time(arm):
    arm.start(JTC)
    qos = QoSProfile(
        depth=1,
        reliability=ReliabilityPolicy.RELIABLE,
        durability=DurabilityPolicy.TRANSIENT_LOCAL,
    )
    scaling = arm.harness.node.create_publisher(
        SpeedScalingFactor, f'/{JTC}/speed_scaling_input', qos
    )
    scaling.publish(SpeedScalingFactor(factor=0.5))
    arm.wait_logged('New scaling factor will be 0.500000')
    # a linear 0 -> 1 rad over 1 s of trajectory time, played at half speed
    arm.publish(trajectory([point(0.0, [0.0] * 6), point(1.0, [1.0, 0, 0, 0, 0, 0])]))
    assert arm.run_until(lambda: arm.position('joint1') > 0.0)
    arm.run_for(1.0)
    assert arm.position('joint1') == pytest.approx(0.5, abs=0.02)
    assert arm.run_until(lambda: arm.position('joint1') == pytest.approx(1.0, abs=1e-12))


# --- velocity and effort commands through the PID, on simulated dynamics -------------


@pytest.mark.parametrize('config', ['arm_velocity_controllers.yaml', 'arm_effort_controllers.yaml'])
def test_pid_tracks_a_trajectory_on_simulated_dynamics(tmp_path, config):
    rig = Rig(tmp_path, urdf=SIM_URDF, config=config)
    try:
        rig.start(JTC)
        rig.run_for(0.5)  # settle (the effort arm sags under gravity until the integral builds)
        target = [0.5, -0.4, 0.6, 2.0, -0.3, 0.4]
        handle = rig.send_goal(
            goal_of(
                [
                    point(0.75, [x / 2 for x in target], [x / 1.5 for x in target]),
                    point(1.5, target, [0.0] * 6),
                ]
            )
        )
        assert handle.accepted
        status, result = rig.result(handle)
        assert result.error_string == 'Goal successfully reached!'
        assert status == GoalStatus.STATUS_SUCCEEDED
        # the path tolerance (0.2 rad) held all the way; the goal tolerance is 0.02 / 0.03
        assert rig.positions() == pytest.approx(target, abs=0.03)
    finally:
        rig.close()


# --- stopping and starting rules ---------------------------------------------------------

# mock that differentiates positions into velocities
DYNAMIC_URDF = swap_hardware(ARM_URDF, MOCK, {'calculate_dynamics': 'true'})


def test_decelerate_on_cancel_brakes_at_the_configured_rate(tmp_path):
    rig = Rig(
        tmp_path,
        urdf=DYNAMIC_URDF,
        variants={
            'jtc_decelerate': position_jtc(
                constraints={
                    'decelerate_on_cancel': True,
                    **{j: {'max_deceleration_on_cancel': 2.0} for j in JOINTS},
                },
            )
        },
    )
    try:
        rig.start('jtc_decelerate')
        # joint1 at a steady 1 rad/s (a linear segment), the others still
        handle = rig.send_goal(
            goal_of([point(2.0, [2.0, 0, 0, 0, 0, 0])]), controller='jtc_decelerate'
        )
        rig.run_for(0.5)
        cancel = handle.cancel_goal_async()
        assert rig.run_until(cancel.done)
        at_cancel = rig.position('joint1')
        status, _ = rig.result(handle)
        assert status == GoalStatus.STATUS_CANCELED
        rig.run_for(0.8)
        # braking from 1 rad/s at 2 rad/s^2 takes 0.5 s and 1 / (2 * 2) = 0.25 rad
        assert rig.position('joint1') - at_cancel == pytest.approx(0.25, abs=0.02)
        assert rig.manager.rm.state_interfaces['joint1/velocity'].value == 0.0
    finally:
        rig.close()


def test_command_timeout_stops_a_stale_topic_trajectory(tmp_path):
    rig = Rig(
        tmp_path,
        urdf=FROZEN_URDF,
        variants={
            'jtc_timeout': position_jtc(
                cmd_timeout=0.3, constraints={j: {'goal': 0.02} for j in JOINTS}
            )
        },
    )
    try:
        rig.start('jtc_timeout')
        # the frozen arm never gets there: the controller keeps commanding the end point...
        rig.publish(trajectory([point(0.2, [0.5] * 6)]), controller='jtc_timeout')
        assert rig.run_until(lambda: rig.command('joint1') == 0.5)
        rig.run_for(0.2)
        assert rig.command('joint1') == 0.5
        # ...until cmd_timeout after the last point: then it holds where the arm is
        assert rig.run_until(lambda: rig.command('joint1') == 0.0)
        rig.wait_logged('Aborted due to command timeout')
    finally:
        rig.close()


def test_start_from_the_last_command_on_activation_and_for_new_trajectories(tmp_path):
    rig = Rig(
        tmp_path,
        urdf=FROZEN_URDF,  # commands move, the measured state stays at 0
        variants={'jtc_from_command': position_jtc(interpolate_from_desired_state=True)},
    )
    name = 'jtc_from_command'
    try:
        rig.start(name)
        rig.publish(trajectory([point(0.2, [0.3] * 6)]), controller=name)
        assert rig.run_until(lambda: rig.command('joint1') == 0.3)
        # the next trajectory starts from the command (0.3), not from the measured 0
        rig.publish(trajectory([point(1.0, [0.6] * 6)]), controller=name)
        assert rig.run_until(lambda: rig.command('joint1') > 0.3)
        rig.run_for(0.5)
        assert rig.command('joint1') == pytest.approx(0.45, abs=0.02)
        # re-activation holds at the last command (set_last_command_interface_value_...)
        assert rig.manager.switch_controller([], [name], 2)[0]
        before = rig.command('joint1')
        assert rig.manager.switch_controller([name], [], 2)[0]
        rig.run_for(0.1)
        assert rig.command('joint1') == pytest.approx(before, abs=1e-12)
    finally:
        rig.close()
