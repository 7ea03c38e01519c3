"""The gripper action controllers on config/gripper_robot.urdf, over real actions.

The manager runs in-process with its loop thread stopped: the test runs read -> update -> write
itself with a fixed 10 ms period (SteppedManager), so every number depends on cycle counts
only. Goals, cancels and results go through real action clients; parameters are set through
the controller node's parameter API, as ``ros2 param set`` would.

Worked numbers, position and parallel grippers (``gripper_joint``, mock hardware integrating
its position command, URDF velocity limit 0.1 m/s so the manager's joint limits let the joint
move 0.001 m per cycle): a goal is taken by the first cycle after it was accepted (cycle 1);
cycle k measures 0.001 * (k - 1) while moving up and commands 0.001 * k. Goal tolerance 0.01,
stall timeout 0.2 s (config/gripper_controllers.yaml).

Effort gripper (``effort_gripper_joint``, simulated 0.1 kg finger, hard stop at 0.08 m): PID
p = 50, d = 4 on the position error and -velocity, clamped to +-|max_effort|.
"""

import gc
import math

import pytest
import yaml
from action_msgs.msg import GoalStatus
from control_msgs.action import GripperCommand, ParallelGripperCommand
from rclpy.action import ActionClient
from rclpy.parameter import Parameter

from py_controllers import plugins
from py_controllers.controllers.gripper_action.controller import (
    EffortGripperActionController,
    PositionGripperActionController,
)
from py_controllers.controllers.parallel_gripper.controller import (
    ParallelGripperActionController,
)
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.realtime_tools import realtime_publisher
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

URDF = (CONFIG / 'gripper_robot.urdf').read_text()
PARAMS = CONFIG / 'gripper_controllers.yaml'
PERIOD_NS = 10_000_000  # 100 Hz, as in the parameter file
JOINT = 'gripper_joint'
EFFORT_JOINT = 'effort_gripper_joint'
EFFORT = 'effort_gripper_controller'
P, D = 50.0, 4.0  # gains.effort_gripper_joint in config/gripper_controllers.yaml

# registered here so the tests do not depend on installed entry points
plugins.register(plugins.HARDWARE_GROUP, 'py_controllers/SimulatedSystem', SimulatedSystem)
for _name, _cls in (
    ('position_controllers/GripperActionController', PositionGripperActionController),
    ('effort_controllers/GripperActionController', EffortGripperActionController),
    ('parallel_gripper_action_controller/GripperActionController', ParallelGripperActionController),
):
    plugins.register(plugins.CONTROLLERS_GROUP, _name, _cls)


# --- the two action types behind one face --------------------------------------------------
class Single:
    """position_controllers/GripperActionController: GripperCommand."""

    controller = 'gripper_controller'
    action = GripperCommand

    @staticmethod
    def goal(position, effort=10.0):
        goal = GripperCommand.Goal()
        goal.command.position, goal.command.max_effort = float(position), float(effort)
        return goal

    @staticmethod
    def unpack(result):
        """(position, effort, stalled, reached_goal) of a Result."""
        return result.position, result.effort, result.stalled, result.reached_goal


class Parallel:
    """parallel_gripper_action_controller/GripperActionController: ParallelGripperCommand."""

    controller = 'parallel_gripper_controller'
    action = ParallelGripperCommand

    @staticmethod
    def goal(position, effort=10.0, *, names=None, positions=None, velocity=None):
        goal = ParallelGripperCommand.Goal()
        goal.command.name = [JOINT] if names is None else list(names)
        goal.command.position = [float(position)] if positions is None else list(positions)
        goal.command.effort = [float(effort)] if effort is not None else []
        goal.command.velocity = [float(velocity)] if velocity is not None else []
        return goal

    @staticmethod
    def unpack(result):
        state = result.state
        assert list(state.name) == [JOINT]
        return state.position[0], state.effort[0], result.stalled, result.reached_goal


class _NoAliases(yaml.SafeDumper):
    """rcl's YAML parser refuses anchors and aliases."""

    def ignore_aliases(self, data):
        return True


class Rig:
    """The gripper robot with a stepped manager in this process."""

    def __init__(self, tmp_path, variants=None):
        variants = variants or {}
        extra = tmp_path / 'variants.yaml'
        document = {
            'controller_manager': {
                'ros__parameters': {name: {'type': spec['type']} for name, spec in variants.items()}
            },
            **{name: {'ros__parameters': spec['params']} for name, spec in variants.items()},
        }
        extra.write_text(yaml.dump(document, Dumper=_NoAliases))
        self.harness = RosHarness(
            'gripper_test',
            args=['--ros-args', '--params-file', str(PARAMS), '--params-file', str(extra)],
        )
        self.cm = SteppedManager(self.harness, URDF, period_ns=PERIOD_NS)
        self.manager = self.cm.manager
        self.rosout = self.harness.subscribe_rosout()
        self._clients = {}

    def start(self, name):
        (controller,) = self.cm.start(name)
        return controller

    def cycles(self, count):
        """Run `count` cycles, serving callbacks between them; each cycle's messages (the
        action feedback among them) are sent before the next, as the loop's sleep allows."""
        for _ in range(count):
            self.cm.step()
            assert realtime_publisher.drain(timeout_s=10.0)
            self.harness.executor.spin_once(timeout_sec=0.0)

    def client(self, name, action):
        if name not in self._clients:
            client = ActionClient(self.harness.node, action, f'/{name}/gripper_cmd')
            assert client.wait_for_server(timeout_sec=10.0)
            self._clients[name] = client
        return self._clients[name]

    def send(self, name, action, goal, feedback=None):
        """Send `goal` and serve callbacks (no cycle) until it is accepted or rejected."""
        future = self.client(name, action).send_goal_async(goal, feedback_callback=feedback)
        assert self.harness.spin_until(future.done)
        return future.result()

    def result(self, handle):
        """Run cycles until the goal's result arrives; (status, result)."""
        future = handle.get_result_async()
        assert self.cm.run_until(future.done), 'no result'
        return future.result().status, future.result().result

    def cancel(self, handle):
        """Cancel and serve callbacks (no cycle) until the cancel request is answered."""
        future = handle.cancel_goal_async()
        assert self.harness.spin_until(future.done)
        assert len(future.result().goals_canceling) == 1

    def set(self, controller, **values):
        results = controller.get_node().set_parameters(
            [Parameter(name, value=value) for name, value in values.items()]
        )
        assert all(r.successful for r in results), results

    def position(self, joint=JOINT):
        return self.cm.state(f'{joint}/position')

    def velocity(self, joint=JOINT):
        return self.cm.state(f'{joint}/velocity')

    def command(self, name):
        return self.cm.command(name)

    def logged(self, *texts):
        return any(all(t in m.msg for t in texts) for m in self.rosout)

    def wait_logged(self, *texts):
        seen = self.harness.spin_until(lambda: self.logged(*texts))
        assert seen, f'{texts} not logged; /rosout: {[m.msg for m in self.rosout]}'

    def close(self):
        self.cm.shutdown()
        self.harness.close()
        gc.collect()  # finalize the controllers' nodes now (see test_joint_trajectory_controller)


@pytest.fixture
def rig(tmp_path):
    rig = Rig(tmp_path)
    yield rig
    rig.close()


KINDS = pytest.mark.parametrize('kind', [Single, Parallel], ids=['position', 'parallel'])


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


def test_cleanup_finishes_the_open_goal_and_a_new_configure_serves_again(rig):
    rig.start(Single.controller)
    handle = rig.send(Single.controller, GripperCommand, Single.goal(0.07))
    rig.cycles(5)
    # deactivate and clean up at once: the monitor gets no turn in between
    assert rig.manager.switch_controller([], [Single.controller], 2)[0]
    assert rig.manager.cleanup_controller(Single.controller)[0]
    assert rig.harness.spin_until(lambda: handle.status == GoalStatus.STATUS_ABORTED)
    assert rig.manager.configure_controller(Single.controller)[0]
    assert rig.manager.switch_controller([Single.controller], [], 2)[0]
    handle = rig.send(Single.controller, GripperCommand, Single.goal(0.0))
    assert handle.accepted
    status, result = rig.result(handle)
    # the first cycle measures 0.005 (cycle 5's command, integrated): within 0.01 of 0 at once
    assert status == GoalStatus.STATUS_SUCCEEDED and result.reached_goal
    assert result.position == pytest.approx(0.005, abs=1e-12)


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
