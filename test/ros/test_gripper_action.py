"""The position and parallel gripper action controllers over real actions: the same goal
handling for both, then what each does alone (the rig and its worked numbers: gripper_rig.py;
the effort gripper: test_effort_gripper_action.py)."""

import math

import pytest
from action_msgs.msg import GoalStatus
from control_msgs.action import GripperCommand, ParallelGripperCommand
from gripper_rig import EFFORT_JOINT, JOINT, KINDS, Parallel, Rig, Single


@pytest.fixture
def rig(tmp_path):
    rig = Rig(tmp_path)
    yield rig
    rig.close()


# --- position and parallel grippers: the same goal handling --------------------------------
@KINDS
def test_goal_succeeds_with_position_effort_and_feedback(rig, kind):
    rig.start(kind.controller)
    feedback = []
    handle = rig.send(kind.controller, kind.action, kind.goal(0.0455, 3.0), feedback.append)
    assert handle.accepted
    rig.cycles(10)

    def position_of(message):
        fb = message.feedback
        return fb.position if kind is Single else fb.state.position[0]

    # feedback every 50 ms of loop time (action_monitor_rate 20 Hz, 10 ms cycles): the
    # positions measured by cycles 1 and 6 of the ten
    assert rig.harness.spin_until(lambda: len(feedback) == 2)
    assert [position_of(m) for m in feedback] == pytest.approx([0.0, 0.005], abs=1e-12)
    status, result = rig.result(handle)
    assert status == GoalStatus.STATUS_SUCCEEDED
    position, effort, stalled, reached = kind.unpack(result)
    # |0.0455 - p| < 0.01 first for p = 0.036 (cycle 37); the effort limit of the goal
    assert position == pytest.approx(0.036, abs=1e-12)
    assert effort == 3.0
    assert reached and not stalled
    # the goal position stays commanded: the gripper closes the last 9.5 mm
    rig.cycles(20)
    assert rig.command(f'{JOINT}/position') == 0.0455
    assert rig.position() == pytest.approx(0.0455, abs=1e-12)


@KINDS
def test_stall_at_the_hard_limit_aborts(rig, kind):
    rig.start(kind.controller)
    handle = rig.send(kind.controller, kind.action, kind.goal(0.1, 8.0))
    status, result = rig.result(handle)
    assert status == GoalStatus.STATUS_ABORTED
    position, effort, stalled, reached = kind.unpack(result)
    # the joint stops at its 0.08 m limit, 0.02 short of the goal, and stops moving
    assert position == pytest.approx(0.08, abs=1e-12)
    assert effort == 8.0
    assert stalled and not reached
    rig.wait_logged('Stall detected moving to goal. Aborting action!')
    # upstream keeps squeezing towards the goal after a stall
    rig.cycles(1)
    assert rig.position() == pytest.approx(0.08, abs=1e-12)


@KINDS
def test_stall_succeeds_with_allow_stalling_after_stall_timeout(rig, kind):
    controller = rig.start(kind.controller)
    # the gripper creeps at 0.1 m/s, below a 0.2 m/s stall threshold: not moving, says the test
    rig.set(controller, allow_stalling=True, stall_velocity_threshold=0.2)
    handle = rig.send(kind.controller, kind.action, kind.goal(0.07, 2.0))
    status, result = rig.result(handle)
    assert status == GoalStatus.STATUS_SUCCEEDED
    position, effort, stalled, reached = kind.unpack(result)
    # started at cycle 1; no movement for more than 0.2 s first at cycle 22, measuring 0.021
    assert position == pytest.approx(0.021, abs=1e-12)
    assert effort == 2.0
    assert stalled and not reached
    rig.wait_logged('Stall detected moving to goal. Returning success.')


@KINDS
def test_new_goal_preempts_the_active_one(rig, kind):
    rig.start(kind.controller)
    first = rig.send(kind.controller, kind.action, kind.goal(0.07, 4.0))
    rig.cycles(20)
    second = rig.send(kind.controller, kind.action, kind.goal(0.005, 7.0))
    assert first.accepted and second.accepted
    status, result = rig.result(first)
    assert status == GoalStatus.STATUS_ABORTED
    position, effort, stalled, reached = kind.unpack(result)
    # the state when the second goal came: cycle 20 measured 0.019 with the first goal's effort
    assert position == pytest.approx(0.019, abs=1e-12)
    assert (effort, stalled, reached) == (4.0, False, False)
    status, result = rig.result(second)
    assert status == GoalStatus.STATUS_SUCCEEDED
    position, effort, stalled, reached = kind.unpack(result)
    # back down from 0.020 (cycle 21) at 0.001 per cycle: within 0.01 of 0.005 at 0.014
    assert position == pytest.approx(0.014, abs=1e-12)
    assert (effort, stalled, reached) == (7.0, False, True)


@KINDS
def test_cancel_holds_the_position(rig, kind):
    rig.start(kind.controller)
    handle = rig.send(kind.controller, kind.action, kind.goal(0.07, 5.0))
    rig.cycles(15)
    rig.cancel(handle)
    status, result = rig.result(handle)
    assert status == GoalStatus.STATUS_CANCELED
    position, effort, stalled, reached = kind.unpack(result)
    assert position == pytest.approx(0.014, abs=1e-12)  # measured when the cancel came
    assert (effort, stalled, reached) == (5.0, False, False)
    rig.cycles(20)
    # held there (one cycle of motion taken back), not at the goal
    assert rig.command(f'{JOINT}/position') == pytest.approx(0.014, abs=1e-12)
    assert rig.position() == pytest.approx(0.014, abs=1e-12)


@KINDS
def test_deactivation_aborts_the_goal(rig, kind):
    rig.start(kind.controller)
    handle = rig.send(kind.controller, kind.action, kind.goal(0.07, 6.0))
    rig.cycles(10)
    assert rig.manager.switch_controller([], [kind.controller], 2)[0]
    status, result = rig.result(handle)
    assert status == GoalStatus.STATUS_ABORTED
    position, effort, stalled, reached = kind.unpack(result)
    assert position == pytest.approx(0.009, abs=1e-12)
    assert (effort, stalled, reached) == (6.0, False, False)
    # an inactive controller takes no goals
    assert not rig.send(kind.controller, kind.action, kind.goal(0.02)).accepted
    rig.wait_logged("Can't accept new action goals. Controller is not running.")


def test_cleanup_finishes_the_open_goal_a_new_configure_serves_again_unload_ends_it(rig):
    rig.start(Single.controller)
    handle = rig.send(Single.controller, GripperCommand, Single.goal(0.07))
    rig.cycles(5)
    result = handle.get_result_async()
    # deactivate and clean up at once: the monitor gets no turn in between
    assert rig.manager.switch_controller([], [Single.controller], 2)[0]
    assert rig.manager.cleanup_controller(Single.controller)[0]
    assert rig.harness.spin_until(lambda: handle.status == GoalStatus.STATUS_ABORTED)
    # the result request made before is answered: the server outlives the cleanup
    assert rig.harness.spin_until(result.done)
    assert result.result().status == GoalStatus.STATUS_ABORTED
    assert not rig.send(Single.controller, GripperCommand, Single.goal(0.0)).accepted
    assert rig.manager.configure_controller(Single.controller)[0]
    assert rig.manager.switch_controller([Single.controller], [], 2)[0]
    handle = rig.send(Single.controller, GripperCommand, Single.goal(0.0))
    assert handle.accepted
    status, result = rig.result(handle)
    # the release held the finger where it was measured, 0.004 (cycle 4's command, one cycle
    # behind the 0.005 commanded): within 0.01 of 0 at once
    assert status == GoalStatus.STATUS_SUCCEEDED and result.reached_goal
    assert result.position == pytest.approx(0.004, abs=1e-12)
    # cleaned up, the server stays (rejecting goals) until the controller is unloaded
    assert rig.manager.switch_controller([], [Single.controller], 2)[0]
    assert rig.manager.cleanup_controller(Single.controller)[0]
    client = rig.client(Single.controller, GripperCommand)
    assert client.server_is_ready()
    assert rig.manager.unload_controller(Single.controller)[0]
    assert rig.harness.spin_until(lambda: not client.server_is_ready())


@KINDS
def test_goal_with_a_non_finite_position_is_rejected(rig, kind):
    rig.start(kind.controller)
    rig.cycles(2)
    for bad in (math.nan, math.inf):
        handle = rig.send(kind.controller, kind.action, kind.goal(bad))
        assert not handle.accepted
        rig.wait_logged('Goal rejected: command.position must be finite')
    rig.cycles(5)
    assert rig.command(f'{JOINT}/position') == 0.0  # still holding where it was activated


# --- position gripper only -----------------------------------------------------------------
def test_position_gripper_rejects_nan_max_effort_and_claims_position(rig):
    controller = rig.start('gripper_controller')
    assert controller.command_interface_configuration().names == [f'{JOINT}/position']
    assert controller.state_interface_configuration().names == [
        f'{JOINT}/position',
        f'{JOINT}/velocity',
    ]
    assert not rig.send('gripper_controller', GripperCommand, Single.goal(0.02, math.nan)).accepted
    rig.wait_logged('Goal rejected: command.max_effort must not be NaN')
    rig.cycles(3)
    assert rig.command(f'{JOINT}/position') == 0.0
    rig.wait_logged('[Deprecated]', 'parallel_gripper_action_controller/GripperActionController')


def test_configure_fails_without_a_joint_or_with_bad_settings(tmp_path):
    rig = Rig(
        tmp_path,
        variants={
            'nameless': {'type': 'position_controllers/GripperActionController', 'params': {}},
            'parallel_nameless': {
                'type': 'parallel_gripper_action_controller/GripperActionController',
                'params': {'joint': ''},
            },
            'effort_bad_gains': {
                'type': 'effort_controllers/GripperActionController',
                'params': {'joint': EFFORT_JOINT, 'gains': {EFFORT_JOINT: {'p': math.nan}}},
            },
            'parallel_without_velocity': {
                'type': 'parallel_gripper_action_controller/GripperActionController',
                'params': {'joint': JOINT, 'state_interfaces': ['position']},
            },
        },
    )
    try:
        for name, reason in (
            ('nameless', 'Joint name cannot be empty'),
            ('parallel_nameless', "parameter 'joint': Parameter 'joint' cannot be empty"),
            ('effort_bad_gains', f"'gains.{EFFORT_JOINT}.*': gain p must be finite, got nan"),
            ('parallel_without_velocity', "missing ['velocity']"),
        ):
            assert rig.manager.load_controller(name)[0]
            assert not rig.manager.configure_controller(name)[0]
            rig.wait_logged(reason)
    finally:
        rig.close()


# --- parallel gripper only -----------------------------------------------------------------
def test_parallel_gripper_writes_its_limit_interfaces(rig):
    controller = rig.start(Parallel.controller)
    assert controller.command_interface_configuration().names == [
        f'{JOINT}/position',
        f'{JOINT}/max_effort',
        f'{JOINT}/max_velocity',
    ]

    def limits():
        return rig.command(f'{JOINT}/max_effort'), rig.command(f'{JOINT}/max_velocity')

    rig.cycles(1)  # holding after activation: the default limits
    assert limits() == (10.0, 0.1)
    handle = rig.send(Parallel.controller, ParallelGripperCommand, Parallel.goal(0.05, 3.0))
    rig.cycles(1)  # a goal without velocity keeps the default velocity limit
    assert limits() == (3.0, 0.1)
    assert rig.command(f'{JOINT}/position') == 0.001  # 0.05, limited to 0.1 m/s by the manager
    rig.send(
        Parallel.controller,
        ParallelGripperCommand,
        Parallel.goal(0.05, effort=None, velocity=0.05),
    )
    rig.cycles(1)  # the goal's velocity limit, the default effort limit
    assert limits() == (10.0, 0.05)
    status, _ = rig.result(handle)
    assert status == GoalStatus.STATUS_ABORTED  # preempted


def test_parallel_gripper_rejects_wrong_joint_names_and_sizes(rig):
    rig.start(Parallel.controller)
    rig.cycles(1)
    bad_goals = {
        "command.name must be empty or ['gripper_joint'], got ['finger_joint']": Parallel.goal(
            0.02, names=['finger_joint']
        ),
        'expects 1 position value, got 2': Parallel.goal(0.0, positions=[0.02, 0.02]),
        'expects 1 position value, got 0': Parallel.goal(0.0, positions=[]),
        'command.effort must hold at most 1 value, got 2': Parallel.goal(0.02, effort=1.0),
        'command.effort must be finite and >= 0, got -1.0': Parallel.goal(0.02, effort=-1.0),
        'command.velocity must be finite and >= 0, got nan': Parallel.goal(0.02, velocity=math.nan),
    }
    bad_goals['command.effort must hold at most 1 value, got 2'].command.effort = [1.0, 2.0]
    for reason, goal in bad_goals.items():
        assert not rig.send(Parallel.controller, ParallelGripperCommand, goal).accepted, reason
        rig.wait_logged(f'Goal rejected: {reason}')
    rig.cycles(3)
    assert rig.command(f'{JOINT}/position') == 0.0
    assert rig.command(f'{JOINT}/max_effort') == 10.0
    # a goal without names is fine, as upstream
    assert rig.send(
        Parallel.controller, ParallelGripperCommand, Parallel.goal(0.02, names=[])
    ).accepted
