"""topic_based_ros2_control/TopicBasedSystem in ros2_control_node, driving the stand-in
simulator (py_controllers.hardware.topic_simulator) in a process of its own, over DDS."""

from __future__ import annotations

import itertools
import math
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from py_controllers.child_process import ChildProcess
from py_controllers.robot_description import swap_hardware
from py_controllers.testing import CONFIG, GUARD_S, ManagerProcess, RosHarness, run_tool

PLUGIN = 'topic_based_ros2_control/TopicBasedSystem'
CONTROLLERS = CONFIG / 'topic_based_controllers.yaml'
COMMANDS = '/topic_based_joint_commands'
STATES = '/topic_based_joint_states'
ARM = ['joint_1', 'joint_2', 'joint_3']
JOINTS = [*ARM, 'turntable_joint']
START = [0.2, 0.3, 0.1]  # also the URDF's initial values
TURNTABLE_START = 1.5  # the stand-in's alone


class Simulator(ChildProcess):
    """The stand-in simulator, as `python -m` runs it."""

    def __init__(self, *extra: str, turntable: float = 0.0) -> None:
        initial = [f'{n}={v}' for n, v in zip(ARM, START, strict=True)]
        initial.append(f'turntable_joint={turntable}')
        args = [sys.executable, '-m', 'py_controllers.hardware.topic_simulator']
        args += ['--joints', *JOINTS, '--commands-topic', COMMANDS, '--states-topic', STATES]
        args += ['--initial', *initial, *extra]
        self.process = subprocess.Popen(args, stdout=self._open_log(), stderr=subprocess.STDOUT)

    def output(self) -> str:
        return self._logged()


def robot(tmp_path: Path, **params: object) -> Path:
    path = tmp_path / 'robot.urdf'
    path.write_text(swap_hardware((CONFIG / 'topic_based_robot.urdf').read_text(), PLUGIN, params))
    return path


def spawn(manager: ManagerProcess, *controllers: str) -> None:
    result = run_tool(
        'spawner', *controllers, '--controller-manager-timeout', str(GUARD_S), timeout_s=3 * GUARD_S
    )
    assert result.returncode == 0, result.stdout + result.stderr + manager.output()


def position_of(msg: JointState, joint: str) -> float:
    return msg.position[list(msg.name).index(joint)]


def send_arm(ros: RosHarness, target: list[float]) -> Any:
    """Publish `target` to the forward position controller; the publisher (a caller that
    waits for an effect publishes again while it waits: one message can be lost while
    discovery settles)."""
    pub = ros.node.create_publisher(Float64MultiArray, '/forward_position_controller/commands', 10)
    assert ros.spin_until(lambda: pub.get_subscription_count() > 0)
    pub.publish(Float64MultiArray(data=target))
    return pub


def turntable_velocity(states: list[JointState]) -> float:
    """The turntable's velocity in the last of `states`."""
    msg = states[-1]
    return msg.velocity[list(msg.name).index('turntable_joint')]


def until_sent(pub: Any, data: list[float], done: Any) -> Any:
    """A spin_until predicate that publishes `data` again before each look at `done`."""

    def check() -> bool:
        pub.publish(Float64MultiArray(data=data))
        return bool(done())

    return check


def arm_at(states: list[JointState], target: list[float], abs_tol: float = 1e-9) -> bool:
    return bool(states) and all(
        abs(position_of(states[-1], j) - t) <= abs_tol for j, t in zip(ARM, target, strict=True)
    )


def test_forward_position_controller_moves_the_simulator_and_the_states_come_back(tmp_path):
    target = [0.5, -0.4, 0.8]
    with (
        Simulator() as sim,
        ManagerProcess([CONTROLLERS], robot(tmp_path)) as manager,
        RosHarness('topic_based_move') as ros,
    ):
        sim_states = ros.subscribe(JointState, STATES, 100)
        commands = ros.subscribe(JointState, COMMANDS, 100)
        states = ros.subscribe(JointState, '/joint_states', 100)
        spawn(manager, 'joint_state_broadcaster', 'forward_position_controller')
        pub = send_arm(ros, target)
        # the stand-in reaches what it is sent exactly; the last steps of the command ramp (the
        # joints' 1 rad/s limit) within the 1e-5 default threshold in all are not sent
        assert ros.spin_until(
            until_sent(pub, target, lambda: arm_at(sim_states, target, 1e-5)), 30.0
        ), (
            sim.output(),
            manager.output(),
            sim_states[-1:],
            commands[-1:],
        )
        assert ros.spin_until(lambda: arm_at(states, target, 1e-5), 10.0), manager.output()
        # upstream's layout: every joint named, each array for the kind a joint is driven in;
        # a joint driven otherwise has NaN there (the turntable's position, the arm's velocity)
        last = commands[-1]
        assert list(last.name) == JOINTS
        assert list(last.position[:3]) == pytest.approx(target, abs=1e-5)
        assert math.isnan(last.position[3])
        assert all(math.isnan(v) for v in last.velocity[:3]) and last.velocity[3] == 0.0
        assert len(last.effort) == 0
        assert manager.alive


def test_trigger_joint_command_threshold_keeps_small_differences_off_the_topic(tmp_path):
    """threshold 1e-3: at rest nothing is sent; a 5e-4 step is not sent (the default 1e-5
    would send it); a 0.1 step is, until the simulator has arrived."""
    with (
        Simulator() as sim,
        ManagerProcess(
            [CONTROLLERS], robot(tmp_path, trigger_joint_command_threshold=1e-3)
        ) as manager,
        RosHarness('topic_based_threshold') as ros,
    ):
        sim_states = ros.subscribe(JointState, STATES, 1000)
        commands = ros.subscribe(JointState, COMMANDS, 1000)
        states = ros.subscribe(JointState, '/joint_states', 1000)
        spawn(manager, 'joint_state_broadcaster', 'forward_position_controller')
        assert ros.spin_until(lambda: arm_at(states, START), 30.0), sim.output()

        def heard_for(cycles: int) -> list[float]:
            """joint_1's commands heard while the broadcaster publishes `cycles` more states."""
            before_commands, before_states = len(commands), len(states)
            assert ros.spin_until(lambda: len(states) >= before_states + cycles)
            return [position_of(m, 'joint_1') for m in commands[before_commands:]]

        # at rest only the held command goes out, once to each subscriber that joins (this
        # test's, the simulator's: either may match late on a loaded host), then nothing
        for _ in range(10):
            at_rest = heard_for(50)
            assert set(at_rest) <= {START[0]}, (
                f'sent while the robot is where it is told: {at_rest}'
            )
            if not at_rest:
                break
        else:
            pytest.fail('commands still sent at rest after 10 windows of 50 cycles')
        small = [START[0] + 5e-4, *START[1:]]
        send_arm(ros, small)
        assert heard_for(50) == []
        # the simulator's own states, heard after the step (this subscription may match the
        # simulator later than the manager did on a loaded host)
        heard = len(sim_states)
        assert ros.spin_until(lambda: len(sim_states) > heard), sim.output()
        assert position_of(sim_states[-1], 'joint_1') == START[0]  # the step never went out

        big = [START[0] + 0.1, *START[1:]]
        pub = send_arm(ros, big)
        assert ros.spin_until(until_sent(pub, big, lambda: arm_at(sim_states, big, 1e-3)), 30.0), (
            manager.output()
        )
        assert ros.spin_until(lambda: arm_at(states, big, 1e-3), 10.0)
        # what went out: the step, ramped by the joint's 1 rad/s limit (and the start, sent
        # again to each subscriber that joined); never the 5e-4 step on its own
        sent = [position_of(m, 'joint_1') for m in commands]
        assert sent[-1] == pytest.approx(big[0], abs=1e-3) and sent == sorted(sent)
        assert small[0] not in sent and all(START[0] <= p <= big[0] for p in sent)
        assert heard_for(50) == [], 'commands still sent after the simulator arrived'


def test_sum_wrapped_joint_states_counts_whole_turns(tmp_path):
    """The stand-in wraps positions into [-pi, pi); the turntable at 4 rad/s passes +pi and
    its position state goes on past 2 pi instead of jumping back to -pi."""
    with (
        Simulator('--wrap') as sim,
        ManagerProcess([CONTROLLERS], robot(tmp_path, sum_wrapped_joint_states='true')) as manager,
        RosHarness('topic_based_wrap') as ros,
    ):
        sim_states = ros.subscribe(JointState, STATES, 1000)
        states = ros.subscribe(JointState, '/joint_states', 1000)
        spawn(manager, 'joint_state_broadcaster', 'turntable_velocity_controller')
        pub = ros.node.create_publisher(
            Float64MultiArray, '/turntable_velocity_controller/commands', 10
        )
        assert ros.spin_until(lambda: pub.get_subscription_count() > 0)
        # the stand-in's states heard before the turn starts: all of the turn is seen
        assert ros.spin_until(lambda: sim_states), sim.output()
        turn = 2 * math.pi + 1.0
        assert ros.spin_until(
            until_sent(
                pub, [4.0], lambda: states and position_of(states[-1], 'turntable_joint') > turn
            ),
            30.0,
        ), (sim.output(), manager.output())
        read = [position_of(m, 'turntable_joint') for m in states]
        assert all(b >= a for a, b in itertools.pairwise(read))  # never jumps back
        # the stand-in's own states can still be queued for this process: on a loaded host
        # (h32, two busy loops) it had taken only the first ones, all 0.0, by then
        assert ros.spin_until(
            lambda: any(position_of(m, 'turntable_joint') < -3.0 for m in sim_states), 30.0
        ), [position_of(m, 'turntable_joint') for m in sim_states[-10:]]
        wrapped = [position_of(m, 'turntable_joint') for m in sim_states]
        assert all(-math.pi <= p < math.pi for p in wrapped) and min(wrapped) < -3.0


def test_a_simulator_that_stops_publishing_fails_read_and_stops_its_controllers(tmp_path):
    """The stand-in killed: after state_timeout (0.5 s here) read() fails, the manager
    deactivates the controller commanding the robot, says so, and lives on."""
    with (
        Simulator(turntable=TURNTABLE_START) as sim,
        ManagerProcess([CONTROLLERS], robot(tmp_path, state_timeout=0.5)) as manager,
        RosHarness('topic_based_stale') as ros,
    ):
        states = ros.subscribe(JointState, '/joint_states', 100)
        spawn(manager, 'joint_state_broadcaster', 'forward_position_controller')
        # the manager has heard the stand-in: the arm's start is also the URDF's initial
        # values, the turntable's is the stand-in's alone (the component times out only
        # once states have arrived; under load discovery can outlast the spawner)
        assert ros.spin_until(
            lambda: states and position_of(states[-1], 'turntable_joint') == TURNTABLE_START, 30.0
        ), sim.output()
        cm = ros.manager()

        def state_of(name: str) -> str:
            return next(c.state for c in cm.list_controllers() if c.name == name)

        assert state_of('forward_position_controller') == 'active'
        sim.process.send_signal(signal.SIGKILL)
        sim.process.wait(10)
        assert ros.spin_until(
            lambda: state_of('forward_position_controller') == 'inactive', 20.0
        ), manager.output()

        def component_state() -> str:
            (component,) = cm.list_hardware_components()
            return component.state.label

        # its on_error runs off the loop and closes the topics: unconfigured
        assert ros.spin_until(lambda: component_state() == 'unconfigured', 20.0)
        assert ros.spin_until(lambda: 'state_timeout 0.5 s' in manager.output(), 10.0)
        assert manager.output().count("no state on '/topic_based_joint_states'") == 1
        assert manager.alive


def test_ctrl_c_stops_a_spinning_joint_in_the_simulator(tmp_path):
    """The safe stop's last write reaches the simulator: the turntable's velocity command goes
    to 0 before the manager exits (upstream's position-only threshold would never send it)."""
    with (
        Simulator() as sim,
        ManagerProcess([CONTROLLERS], robot(tmp_path)) as manager,
        RosHarness('topic_based_stop') as ros,
    ):
        sim_states = ros.subscribe(JointState, STATES, 1000)
        commands = ros.subscribe(JointState, COMMANDS, 1000)
        spawn(manager, 'turntable_velocity_controller')
        pub = ros.node.create_publisher(
            Float64MultiArray, '/turntable_velocity_controller/commands', 10
        )
        assert ros.spin_until(lambda: pub.get_subscription_count() > 0)
        pub.publish(Float64MultiArray(data=[2.0]))  # waited for below, sent again there

        assert ros.spin_until(
            until_sent(pub, [2.0], lambda: sim_states and turntable_velocity(sim_states) == 2.0)
        ), (
            f'{len(sim_states)} states heard, {len(commands)} commands heard '
            f'(turntable: {[c.velocity[3] for c in commands]}), the last '
            f'turntable velocity {turntable_velocity(sim_states) if sim_states else None}\n'
            f'simulator:\n{sim.output()}\nmanager:\n{manager.output()[-3000:]}'
        )
        assert manager.stop() == 0, manager.output()
        assert ros.spin_until(lambda: turntable_velocity(sim_states) == 0.0, 10.0), manager.output()
        assert commands[-1].velocity[3] == 0.0
        assert sim.alive


def test_a_simulator_started_after_a_velocity_command_still_gets_it(tmp_path):
    """A velocity command that no longer changes is not sent again on its own (the threshold
    compares it with the last one sent); a simulator that subscribes later gets it anyway:
    the component sends its commands when a subscriber joins. Without that, the turntable of
    a simulator started (or restarted) after the command stays at 0 for good."""
    with (
        ManagerProcess([CONTROLLERS], robot(tmp_path)) as manager,
        RosHarness('topic_based_late_sim') as ros,
    ):
        commands = ros.subscribe(JointState, COMMANDS, 100)
        sim_states = ros.subscribe(JointState, STATES, 100)
        spawn(manager, 'turntable_velocity_controller')
        pub = ros.node.create_publisher(
            Float64MultiArray, '/turntable_velocity_controller/commands', 10
        )
        assert ros.spin_until(lambda: pub.get_subscription_count() > 0)
        assert ros.spin_until(
            until_sent(pub, [2.0], lambda: commands and commands[-1].velocity[3] == 2.0)
        ), (commands[-1:], manager.output())
        with Simulator() as sim:
            assert ros.spin_until(lambda: sim_states and turntable_velocity(sim_states) == 2.0), (
                f'{len(sim_states)} states heard, the last turntable velocity '
                f'{turntable_velocity(sim_states) if sim_states else None}\n'
                f'simulator:\n{sim.output()}\nmanager:\n{manager.output()[-3000:]}'
            )
        assert manager.alive


def test_upstream_mimic_joint_follows_in_commands_and_states(tmp_path):
    """joint_3 with upstream's `mimic` joint_2 and `multiplier` -2: every command sent and
    every state read has joint_3 = -2 x joint_2, while the stand-in moves both on its own."""
    urdf = (CONFIG / 'topic_based_robot.urdf').read_text()
    urdf = urdf.replace(
        '<joint name="joint_3">',
        '<joint name="joint_3"><param name="mimic">joint_2</param>'
        '<param name="multiplier">-2</param>',
    )
    path = tmp_path / 'mimic.urdf'
    path.write_text(urdf)
    extra = tmp_path / 'two_joints.yaml'
    extra.write_text(
        'controller_manager:\n  ros__parameters:\n    two_joints:\n'
        '      type: forward_command_controller/ForwardCommandController\n'
        'two_joints:\n  ros__parameters:\n    joints: [joint_1, joint_2]\n'
        '    interface_name: position\n'
    )
    with (
        Simulator() as sim,
        ManagerProcess([CONTROLLERS, extra], path) as manager,
        RosHarness('topic_based_mimic') as ros,
    ):
        sim_states = ros.subscribe(JointState, STATES, 1000)
        commands = ros.subscribe(JointState, COMMANDS, 1000)
        states = ros.subscribe(JointState, '/joint_states', 1000)
        spawn(manager, 'joint_state_broadcaster', 'two_joints')
        pub = ros.node.create_publisher(Float64MultiArray, '/two_joints/commands', 10)
        assert ros.spin_until(lambda: pub.get_subscription_count() > 0)

        # A command within trigger_joint_command_threshold (1e-5) of the state is not sent, so
        # the arm may stop that short of the target: joint_2 after a limited step (1 rad/s)
        # that ended 6e-6 short of it did, once in a while, and joint_3 twice as short.
        near = 2e-5

        def arrived() -> bool:  # a single message can still be lost while discovery settles
            pub.publish(Float64MultiArray(data=[0.5, -0.2]))
            return arm_at(sim_states, [0.5, -0.2, 0.4], near)

        def arm(msgs: list[JointState]) -> list[float] | None:
            return [position_of(msgs[-1], j) for j in ARM] if msgs else None

        def report() -> str:
            """What each side last said."""
            return (
                f'{len(commands)} commands heard, the last {arm(commands)}; {len(sim_states)} '
                f'stand-in states, the last {arm(sim_states)}; /joint_states {arm(states)}\n'
                f'stand-in:\n{sim.output()}\nmanager:\n{manager.output()}'
            )

        assert ros.spin_until(arrived), report()
        assert ros.spin_until(lambda: arm_at(states, [0.5, -0.2, 0.4], near)), report()
        assert commands
        for msg in commands:
            assert msg.position[2] == -2.0 * msg.position[1]
        moving = [m for m in states if position_of(m, 'joint_2') < 0.29]
        assert moving
        for msg in moving:
            assert position_of(msg, 'joint_3') == -2.0 * position_of(msg, 'joint_2')
