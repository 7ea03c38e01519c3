"""The loop never logs through rcl: controllers' update() hands lines to their LoopLog, a
hardware component's read()/write()/mode switch to the resource manager (`log_rt`); the
executor writes them. Each test makes the loop-side code log (a parameter snapshot the loop
cannot apply, a refused mode switch), watches every rcl logger call made under a loop entry
point, and then finds the line on /rosout."""

import contextlib
import gc
import math
import sys
from typing import Any

import pytest
from rclpy.parameter import Parameter

from py_controllers import plugins
from py_controllers.controllers.diff_drive import controller as diff_drive_module
from py_controllers.controllers.joint_pid import controller as joint_pid_module
from py_controllers.controllers.joint_pid.controller import VelocityJointPositionController
from py_controllers.controllers.pid_controller import controller as pid_module
from py_controllers.controllers.pid_controller.controller import PidController
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.robot_description import swap_hardware
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

plugins.register(plugins.HARDWARE_GROUP, 'py_controllers/SimulatedSystem', SimulatedSystem)
plugins.register(plugins.CONTROLLERS_GROUP, 'pid_controller/PidController', PidController)
plugins.register(
    plugins.CONTROLLERS_GROUP,
    'velocity_controllers/JointPositionController',
    VelocityJointPositionController,
)

LOOP_ENTRIES = {
    'update',
    'update_and_write_commands',
    'read',
    'write',
    'prepare_command_mode_switch',
    'perform_command_mode_switch',
}
MOCK_BASE = swap_hardware(
    (CONFIG / 'diffbot.urdf').read_text(),
    'mock_components/GenericSystem',
    {'calculate_dynamics': 'true'},
)


@contextlib.contextmanager
def rcl_logging_in_the_loop():
    """Collects the rcl logger calls (rclpy's RcutilsLogger) made under a loop entry point."""
    calls: list[str] = []

    def watch(frame: Any, event: str, arg: Any) -> None:
        if event == 'call' and frame.f_code.co_filename.endswith('rcutils_logger.py'):
            caller = frame.f_back
            while caller is not None and caller.f_code.co_name not in LOOP_ENTRIES:
                caller = caller.f_back
            if caller is not None:
                calls.append(f'{frame.f_code.co_name} from {caller.f_code.co_name}')

    sys.setprofile(watch)
    try:
        yield calls
    finally:
        sys.setprofile(None)


def stepped(name, params, urdf):
    harness = RosHarness(name, args=['--ros-args', '--params-file', str(params)])
    return harness, SteppedManager(harness, urdf)


@pytest.fixture
def pid_cm():
    urdf = (CONFIG / 'pid_joint_robot.urdf').read_text()
    harness, cm = stepped('loop_logging', CONFIG / 'pid_controllers.yaml', urdf)
    yield cm
    cm.shutdown()
    harness.close()


@pytest.fixture
def base_cm():
    harness, cm = stepped('loop_logging', CONFIG / 'diffbot_controllers.yaml', MOCK_BASE)
    yield cm
    cm.shutdown()
    harness.close()


def refuse(*_args, **_kwargs):
    raise ValueError('refused on the loop side')


def check_logged_off_the_loop(cm, controller, parameter, value, module, name, monkeypatch, text):
    """Set `parameter` (accepted), make the loop's rebuild from it fail (`module.name`
    raises), run cycles: the loop logs no rcl line, the executor writes `text`."""
    rosout = cm.harness.subscribe_rosout()
    result = controller.get_node().set_parameters([Parameter(parameter, value=value)])
    assert result[0].successful, result[0].reason
    monkeypatch.setattr(module, name, refuse)
    with rcl_logging_in_the_loop() as calls:
        cm.step(150)  # 1.5 s: the line is handed over twice (throttled per second)
    assert calls == []
    rosout.wait_for(cm.harness.spin_until, text, 'refused on the loop side')


def test_pid_controller_gains_the_loop_refuses_are_logged_off_the_loop(pid_cm, monkeypatch):
    (pid,) = pid_cm.start('pid_controller')
    check_logged_off_the_loop(
        pid_cm,
        pid,
        'gains.tool_joint.p',
        2.0,
        pid_module,
        'gains_from_parameters',
        monkeypatch,
        'new PID gains ignored, keeping the old ones',
    )


def test_joint_pid_gains_the_loop_refuses_are_logged_off_the_loop(pid_cm, monkeypatch):
    (ctrl,) = pid_cm.start('slider_position_controller')
    check_logged_off_the_loop(
        pid_cm,
        ctrl,
        'pid.p',
        2.0,
        joint_pid_module,
        'gains_from_parameters',
        monkeypatch,
        'new PID gains ignored, keeping the old ones',
    )


def test_diff_drive_limits_the_loop_refuses_are_logged_off_the_loop(base_cm, monkeypatch):
    (drive,) = base_cm.start('diff_drive_controller')
    check_logged_off_the_loop(
        base_cm,
        drive,
        'linear.x.max_velocity',
        0.5,
        diff_drive_module,
        '_limiter',
        monkeypatch,
        'new speed limits ignored, keeping the old ones',
    )


def test_mock_hardware_mode_switch_refusal_is_handed_to_the_executor(base_cm):
    rosout = base_cm.harness.subscribe_rosout()
    component = base_cm.manager.rm.components['DiffBot'].component
    both = ['left_wheel_joint/position', 'left_wheel_joint/velocity']
    with rcl_logging_in_the_loop() as calls:
        refused = component.prepare_command_mode_switch(both, [])
    assert refused.name == 'ERROR'
    assert calls == []
    rosout.wait_for(
        base_cm.harness.spin_until, "joint 'left_wheel_joint': only one of position/velocity"
    )
    assert math.isfinite(base_cm.state('left_wheel_joint/position'))


def test_a_later_manager_in_the_process_still_logs_its_components_on_rosout():
    """rcl keeps a child logger's rosout entry while the logger lives, bound to its node's
    publisher: an earlier manager that only the cycle collector frees (here: a cycle holds
    it, and the collector does not run by itself) left
    'controller_manager.resource_manager.DiffBot' bound to its destroyed node, and the next
    manager's lines of that name never reached /rosout (seen after the JTC tests in one
    process). SteppedManager collects such leftovers before it starts."""
    gc.disable()
    try:
        harness, earlier = stepped('loop_logging', CONFIG / 'diffbot_controllers.yaml', MOCK_BASE)
        earlier.shutdown()
        harness.close()
        cycle: list = [earlier]
        cycle.append(cycle)
        del earlier, cycle, harness  # unreachable now, but not freed until collected
        harness, cm = stepped('loop_logging', CONFIG / 'diffbot_controllers.yaml', MOCK_BASE)
    finally:
        gc.enable()
    try:
        rosout = cm.harness.subscribe_rosout()
        component = cm.manager.rm.components['DiffBot'].component
        component.prepare_command_mode_switch(
            ['left_wheel_joint/position', 'left_wheel_joint/velocity'], []
        )
        rosout.wait_for(cm.harness.spin_until, "joint 'left_wheel_joint': only one of position")
    finally:
        cm.shutdown()
        harness.close()
