"""The watchdog of ros2_control_node as a process: a stall that holds the interpreter lock
ends the process through the GIL-free backstop; a slow activation holds the loop off without
stopping the robot; a service call waiting on a stuck loop no longer keeps the process from
exiting. Real processes, real spawner, real service calls."""

from __future__ import annotations

from controller_manager_msgs.srv import ConfigureController
from safety_rig import robot
from std_msgs.msg import Float64MultiArray, UInt8

from py_controllers.controllers.fault_injection.controller import (
    HOLD_GIL,  # a regex that never lets the GIL go
)
from py_controllers.testing import GUARD_S, ManagerProcess, RosHarness, run_tool

CONTROLLERS = """
controller_manager:
  ros__parameters:
    update_rate: 100
    faulty:
      type: py_controllers/FaultInjectionController
    slow:
      type: py_controllers/FaultInjectionController
    fault_trigger:
      type: forward_command_controller/ForwardCommandController
faulty:
  ros__parameters:
    command_interfaces: [j1/velocity]
    value: 0.5
slow:
  ros__parameters:
    command_interfaces: [j2/velocity]
    activate_delay_s: 0.8
fault_trigger:
  ros__parameters:
    joints: [faults]
    interface_name: read
"""


def start_robot(tmp_path, **params):
    (tmp_path / 'robot.urdf').write_text(robot({'Arm': ({}, ['j1', 'j2'])}, fault_gpio='Arm'))
    (tmp_path / 'controllers.yaml').write_text(CONTROLLERS)
    return ManagerProcess([tmp_path / 'controllers.yaml'], tmp_path / 'robot.urdf', params=params)


def spawn(manager, *names):
    result = run_tool('spawner', *names, '--controller-manager-timeout', '30')
    assert result.returncode == 0, result.stdout + result.stderr + manager.output()


def test_a_stall_that_holds_the_gil_ends_the_process_through_the_backstop(tmp_path):
    manager = start_robot(tmp_path)
    with manager, RosHarness('watchdog_gil') as ros:
        spawn(manager, 'faulty')
        fault = ros.node.create_publisher(UInt8, '/faulty/fault', 10)

        def gone():
            fault.publish(UInt8(data=HOLD_GIL))
            return not manager.alive

        # before: alive 30 s later, nothing logged (no Python thread could run)
        assert ros.spin_until(gone, 60.0), manager.output()
        assert manager.process.wait(GUARD_S) == 1, manager.output()
    output = manager.output()
    assert 'Timeout (0:00:10)!' in output  # faulthandler's report, every thread's stack
    assert 'in update' in output and 'fault_injection/controller.py' in output


def test_a_slow_activation_holds_the_loop_off_and_the_robot_runs_on(tmp_path):
    manager = start_robot(tmp_path)
    with manager:
        spawn(manager, 'faulty')
        spawn(manager, 'slow')  # on_activate takes 0.8 s inside the cycle lock
        assert manager.alive
        listed = run_tool('spawner', 'faulty', '--controller-manager-timeout', '30')
        alive = 'alive' if manager.alive else f'exited with {manager.process.poll()}'
        report = f'{listed.stdout}{listed.stderr}\nmanager ({alive}):\n{manager.output()}'
        assert 'already loaded (active)' in listed.stderr, report
    output = manager.output()
    # before: "control loop stalled ... stopping the robot and exiting" while spawning
    assert 'control loop stalled' not in output
    assert 'held off for' in output and "activating ['slow']" in output
    assert 'control loop running again after' in output


def test_a_service_call_waiting_on_a_stuck_loop_does_not_keep_the_process_alive(tmp_path):
    manager = start_robot(tmp_path)
    with manager, RosHarness('watchdog_service') as ros:
        spawn(manager, 'fault_trigger')
        spawn(manager, 'faulty', '--inactive')
        trigger = ros.node.create_publisher(Float64MultiArray, '/fault_trigger/commands', 10)
        configure = ros.node.create_client(
            ConfigureController, '/controller_manager/configure_controller'
        )
        assert configure.wait_for_service(timeout_sec=30.0)
        calls = []

        def stuck_and_asked():
            # code 6: Arm's next read() never returns (the loop is stuck in its cycle); each
            # configure request takes the cycle lock, so one of them meets the stuck loop
            trigger.publish(Float64MultiArray(data=[6.0]))
            if not calls or calls[-1].done():
                calls.append(configure.call_async(ConfigureController.Request(name='faulty')))
            return not manager.alive

        # before: that request waited for the stuck loop's lock for good, in the executor,
        # and the node, asked to stop by the watchdog, never got to stop
        assert ros.spin_until(stuck_and_asked, 60.0), manager.output()
        assert manager.process.wait(GUARD_S) == 1, manager.output()
    assert 'control loop stalled' in manager.output()
