"""Ways out of ros2_control_node that are not a plain Ctrl-C: start-up parameters that
cannot work, a loop stuck inside a cycle (the watchdog), a closed terminal, a second signal."""

import json
import signal

import pytest
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from safety_rig import robot
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from py_controllers.testing import GUARD_S, ManagerProcess, RosHarness, run_tool

CONTROLLERS = """
controller_manager:
  ros__parameters:
    update_rate: 100
    joint_state_broadcaster:
      type: joint_state_broadcaster/JointStateBroadcaster
    velocity_controller:
      type: velocity_controllers/JointGroupVelocityController
    fault_trigger:
      type: forward_command_controller/ForwardCommandController
velocity_controller:
  ros__parameters:
    joints: [j1, j2]
fault_trigger:
  ros__parameters:
    joints: [faults]
    interface_name: read
"""


def start_robot(tmp_path, *, other: dict | None = None, **params):
    """Arm (j1, j2, recording what it was last told) and Other (j3, the faults gpio)."""
    record = tmp_path / 'record.json'
    (tmp_path / 'robot.urdf').write_text(
        robot(
            {'Arm': ({'record_file': record}, ['j1', 'j2']), 'Other': (other or {}, ['j3'])},
            fault_gpio='Other',
        )
    )
    (tmp_path / 'controllers.yaml').write_text(CONTROLLERS)
    manager = ManagerProcess([tmp_path / 'controllers.yaml'], tmp_path / 'robot.urdf', **params)
    return manager, record


def drive(manager, ros):
    """Spawn the velocity controller and command 1.5 rad/s until the states show it."""
    states = ros.subscribe(JointState, '/joint_states')
    result = run_tool(
        'spawner', 'joint_state_broadcaster', 'velocity_controller', 'fault_trigger',
        '--controller-manager-timeout', '30',
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr + manager.output()
    pub = ros.node.create_publisher(Float64MultiArray, '/velocity_controller/commands', 10)

    def moving():
        pub.publish(Float64MultiArray(data=[1.5, 1.5]))
        return bool(states) and list(states[-1].velocity)[:2] == [1.5, 1.5]

    assert ros.spin_until(moving), manager.output()


def last_write(record):
    return json.loads(record.read_text())['last_write']


@pytest.mark.parametrize(
    ('name', 'value'),
    [
        ('cpu_affinity', '2.5'),
        ('cpu_affinity', '[0, -1]'),
        ('thread_priority', 'high'),
        ('thread_priority', '150'),
        ('lock_memory', '3'),
        ('update_rate', '0'),
        ('update_rate', '99.5'),
        ('watchdog.periods', '0'),
        ('watchdog.exit_on_stall', 'sometimes'),
        ('update_rate', '2000000000'),  # a zero period: ZeroDivisionError before
        ('loop.guard_us', '-5'),
        ('enforce_command_limits', "'false'"),  # a string: it was True
        ('hardware_components_initial_state.inactive', 'Arm'),  # a string: split per letter
    ],
)
def test_start_up_parameters_that_cannot_work_are_refused_at_start(tmp_path, name, value):
    manager, _ = start_robot(tmp_path, params={name: value})
    with manager:
        assert manager.process.wait(GUARD_S) == 1, manager.output()
    output = manager.output()
    refusals = [line for line in output.splitlines() if f"parameter '{name}'" in line]
    assert len(refusals) == 1, output
    assert 'Traceback' not in output
    assert 'control loop running' not in output  # nothing started


def test_a_stalled_loop_trips_the_watchdog_which_stops_the_robot_and_exits(tmp_path):
    manager, record = start_robot(tmp_path)
    with manager, RosHarness('safety_watchdog') as ros:
        diagnostics = ros.subscribe(DiagnosticArray, '/diagnostics', 50)
        drive(manager, ros)
        trigger = ros.node.create_publisher(Float64MultiArray, '/fault_trigger/commands', 10)

        def gone():  # code 6: Other's next read() never returns
            trigger.publish(Float64MultiArray(data=[6.0]))
            return not manager.alive

        assert ros.spin_until(gone, 30.0), manager.output()
        assert manager.process.wait(GUARD_S) == 1, manager.output()
        stalled = [
            s.message
            for msg in diagnostics
            for s in msg.status
            if s.level == DiagnosticStatus.ERROR and 'control loop stalled' in s.message
        ]
        assert stalled, [s.message for m in diagnostics for s in m.status][-3:]
    output = manager.output()
    assert 'control loop stalled: no cycle for' in output
    assert 'in _fail\n    _NEVER.wait()' in output  # the loop thread's stack, where it hangs
    assert 'safe stop without the cycle lock' in output
    assert last_write(record)['j1/velocity'] == 0.0, output  # the final write reached Arm
    assert last_write(record)['j2/velocity'] == 0.0


def test_a_stall_without_exit_on_stall_is_reported_and_the_node_lives(tmp_path):
    manager, _ = start_robot(tmp_path, params={'watchdog.exit_on_stall': 'false'})
    with manager, RosHarness('safety_watchdog_stay') as ros:
        diagnostics = ros.subscribe(DiagnosticArray, '/diagnostics', 50)
        drive(manager, ros)
        trigger = ros.node.create_publisher(Float64MultiArray, '/fault_trigger/commands', 10)

        def reported():
            trigger.publish(Float64MultiArray(data=[6.0]))
            return any(
                s.level == DiagnosticStatus.ERROR and 'stalled' in s.message
                for msg in diagnostics
                for s in msg.status
            )

        assert ros.spin_until(reported, 30.0), manager.output()
        assert manager.alive
        assert 'watchdog.exit_on_stall is off' in manager.output()


@pytest.mark.parametrize('sig', [signal.SIGHUP, signal.SIGQUIT])
def test_a_closed_terminal_stops_the_motors_before_exit(tmp_path, sig):
    manager, record = start_robot(tmp_path)
    with manager, RosHarness('safety_hangup') as ros:
        drive(manager, ros)
        manager.process.send_signal(sig)
        assert manager.process.wait(GUARD_S) == 0, manager.output()
    assert last_write(record)['j1/velocity'] == 0.0
    assert last_write(record)['j2/velocity'] == 0.0


def test_a_second_ctrl_c_exits_at_once_after_one_final_write(tmp_path):
    # Other takes 30 s to deactivate: the orderly shutdown would wait for it (bounded)
    manager, record = start_robot(tmp_path, other={'deactivate_delay_s': 30.0})
    with manager, RosHarness('safety_double_signal') as ros:
        drive(manager, ros)
        manager.process.send_signal(signal.SIGINT)
        # Arm saves its record when it is shut down, before Other's long deactivation
        assert ros.spin_until(record.exists), manager.output()
        manager.process.send_signal(signal.SIGINT)
        assert manager.process.wait(GUARD_S) == 1, manager.output()
    output = manager.output()
    assert 'SIGINT again: exiting now' in output
    assert last_write(record)['j1/velocity'] == 0.0, output


def test_a_signal_during_start_up_still_ends_in_the_safe_stop(tmp_path):
    # Other takes 5 s to activate: the node exists, the manager is still being built. In a
    # namespace of its own: another test's manager may linger in the graph, and a signal
    # sent on seeing that one came while this process was still importing Python.
    manager, record = start_robot(
        tmp_path, other={'activate_delay_s': 5.0}, ros_args=['-r', '__ns:=/early_signal']
    )
    with manager, RosHarness('safety_early_signal') as ros:

        def constructing():
            return ('controller_manager', '/early_signal') in (
                ros.node.get_node_names_and_namespaces()
            )

        assert ros.spin_until(constructing), manager.output()
        manager.process.send_signal(signal.SIGINT)
        assert manager.process.wait(GUARD_S) == 0, manager.output()
    output = manager.output()
    assert 'Traceback' not in output and 'KeyboardInterrupt' not in output
    assert 'stopping the robot and shutting down' in output
    assert json.loads(record.read_text())['writes'] == 1  # Arm: the final write, then off
