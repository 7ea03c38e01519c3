"""The effort gripper action controller over real actions: a PID on the position error
(p = 50, d = 4), stalls at the hard stop, preemption, cancel, deactivation, gains at run
time (the rig: gripper_rig.py)."""

import math

import pytest
from action_msgs.msg import GoalStatus
from control_msgs.action import GripperCommand
from gripper_rig import EFFORT, EFFORT_JOINT, D, P, Rig, Single


@pytest.fixture
def rig(tmp_path):
    rig = Rig(tmp_path)
    yield rig
    rig.close()


# --- effort gripper: a PID on the position error -------------------------------------------
def effort_goal(position, max_effort=10.0):
    return Single.goal(position, max_effort)


def test_effort_pid_output_sign_and_magnitude(rig):
    controller = rig.start(EFFORT)
    assert controller.command_interface_configuration().names == [f'{EFFORT_JOINT}/effort']
    command = f'{EFFORT_JOINT}/effort'
    rig.cycles(1)
    assert rig.command(command) == 0.0  # holding where it is: no error, no effort
    rig.send(EFFORT, GripperCommand, effort_goal(0.04))
    rig.cycles(1)
    assert rig.command(command) == 2.0  # p * error = 50 * 0.04, at rest
    rig.cycles(1)
    p, v = rig.position(EFFORT_JOINT), rig.velocity(EFFORT_JOINT)
    assert p > 0.0 and v > 0.0
    assert rig.command(command) == pytest.approx(P * (0.04 - p) - D * v, abs=1e-12)
    # a small effort limit clamps the push; a negative one acts by its magnitude (as upstream)
    for limit in (0.2, -0.2):
        rig.send(EFFORT, GripperCommand, effort_goal(0.07, limit))
        rig.cycles(1)
        p, v = rig.position(EFFORT_JOINT), rig.velocity(EFFORT_JOINT)
        assert P * (0.07 - p) - D * v > 0.2
        assert rig.command(command) == 0.2
    # a goal behind the finger pulls it back: negative effort
    rig.send(EFFORT, GripperCommand, effort_goal(0.0))
    rig.cycles(1)
    p, v = rig.position(EFFORT_JOINT), rig.velocity(EFFORT_JOINT)
    assert rig.command(command) < 0.0
    assert rig.command(command) == pytest.approx(P * (0.0 - p) - D * v, abs=1e-12)


def test_effort_goal_succeeds_reporting_the_previous_cycle_effort(rig):
    rig.start(EFFORT)
    handle = rig.send(EFFORT, GripperCommand, effort_goal(0.04))
    result_future = handle.get_result_async()
    positions, efforts = [], []
    while not result_future.done():
        rig.cycles(1)
        positions.append(rig.position(EFFORT_JOINT))
        efforts.append(rig.command(f'{EFFORT_JOINT}/effort'))
        assert len(positions) < 500, 'no result'
    assert result_future.result().status == GoalStatus.STATUS_SUCCEEDED
    result = result_future.result().result
    assert result.reached_goal and not result.stalled
    # the first cycle within goal_tolerance (0.002) of the goal decided it
    k = next(i for i, p in enumerate(positions) if abs(0.04 - p) < 0.002)
    assert result.position == positions[k]
    # upstream checks before it computes: the effort of the cycle before
    assert result.effort == efforts[k - 1]
    assert efforts[k - 1] != efforts[k]


def test_effort_stall_at_the_hard_stop_aborts_then_succeeds_with_allow_stalling(rig):
    controller = rig.start(EFFORT)
    handle = rig.send(EFFORT, GripperCommand, effort_goal(0.12))
    status, result = rig.result(handle)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.stalled and not result.reached_goal
    assert result.position == 0.08  # pressed against the hard stop
    assert result.effort == pytest.approx(P * (0.12 - 0.08), abs=1e-12)  # at rest there
    rig.set(controller, allow_stalling=True)
    handle = rig.send(EFFORT, GripperCommand, effort_goal(0.12, 1.5))
    status, result = rig.result(handle)
    assert status == GoalStatus.STATUS_SUCCEEDED
    assert result.stalled and not result.reached_goal
    assert result.position == 0.08
    assert result.effort == 1.5  # the new goal's limit: 50 * 0.04 = 2 clamped


def test_effort_preemption_cancel_and_deactivation(rig):
    rig.start(EFFORT)
    first = rig.send(EFFORT, GripperCommand, effort_goal(0.07))
    rig.cycles(3)
    p3 = rig.position(EFFORT_JOINT)
    second = rig.send(EFFORT, GripperCommand, effort_goal(0.06))
    status, result = rig.result(first)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.position == p3 and not result.reached_goal
    rig.cycles(2)
    p_cancel = rig.position(EFFORT_JOINT)
    rig.cancel(second)
    status, result = rig.result(second)
    assert status == GoalStatus.STATUS_CANCELED
    assert result.position == p_cancel
    # the PID brings the moving finger back to where the cancel found it and holds it there
    rig.cycles(200)
    assert rig.position(EFFORT_JOINT) == pytest.approx(p_cancel, abs=1e-6)
    assert abs(rig.command(f'{EFFORT_JOINT}/effort')) < 1e-4
    third = rig.send(EFFORT, GripperCommand, effort_goal(0.0))
    rig.cycles(2)
    assert rig.command(f'{EFFORT_JOINT}/effort') < 0.0
    assert rig.manager.switch_controller([], [EFFORT], 2)[0]
    status, result = rig.result(third)
    assert status == GoalStatus.STATUS_ABORTED and not result.reached_goal
    # no effort left on the released joint (the manager stops released effort commands)
    assert rig.command(f'{EFFORT_JOINT}/effort') == 0.0


def test_effort_gains_update_at_run_time_and_bad_goals_are_rejected(rig):
    controller = rig.start(EFFORT)
    gains = controller.get_node().get_parameters(
        [f'gains.{EFFORT_JOINT}.{name}' for name in ('p', 'i', 'd', 'i_clamp')]
    )
    assert [g.value for g in gains] == [P, 0.0, D, 0.0]
    rig.set(controller, **{f'gains.{EFFORT_JOINT}.p': 20.0})
    for bad in (effort_goal(math.nan), effort_goal(0.02, math.nan)):
        assert not rig.send(EFFORT, GripperCommand, bad).accepted
    rig.wait_logged('Goal rejected: command.max_effort must not be NaN')
    rig.cycles(2)
    assert rig.command(f'{EFFORT_JOINT}/effort') == 0.0  # still holding at rest
    rig.send(EFFORT, GripperCommand, effort_goal(0.04))
    rig.cycles(1)
    assert rig.command(f'{EFFORT_JOINT}/effort') == pytest.approx(20.0 * 0.04, abs=1e-15)


def test_a_goal_that_overflows_the_pid_is_rejected(rig):
    rig.start(EFFORT)
    command = f'{EFFORT_JOINT}/effort'
    # p * position = 50 * 1e308 is not finite
    assert not rig.send(EFFORT, GripperCommand, effort_goal(1e308)).accepted
    rig.wait_logged('Goal rejected: command.position 1e+308 overflows the PID: p 50.0 times it')
    rig.cycles(2)
    assert rig.command(command) == 0.0  # still holding at rest
    # 1e306 is fine: 50 * 1e306, clamped to max_effort
    assert rig.send(EFFORT, GripperCommand, effort_goal(1e306)).accepted
    rig.cycles(1)
    assert rig.command(command) == 10.0


def test_an_infinite_measurement_writes_no_effort(rig):
    controller = rig.start(EFFORT)
    command = f'{EFFORT_JOINT}/effort'
    rig.send(EFFORT, GripperCommand, effort_goal(0.04))
    rig.cycles(3)
    last = rig.command(command)
    assert 0.0 < last < 10.0
    handle = rig.manager.rm.state_interfaces[f'{EFFORT_JOINT}/position']
    component = rig.manager.rm.components['SimulatedGripper'].component
    original = component.read

    def read(time, period):
        result = original(time, period)
        handle.value = math.inf
        return result

    component.read = read
    writes = []
    for _ in range(3):
        rig.cycles(1)
        writes.append((controller._effort, rig.command(command)))
    # the PID gets -inf as its error and gives NaN: nothing is written (not -max_effort), the
    # effort reported stays the last one; the manager's limiter may still act on the handle
    assert all(effort == last for effort, _ in writes), writes
    assert all(value != -10.0 for _, value in writes), writes
