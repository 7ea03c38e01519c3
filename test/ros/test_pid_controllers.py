"""The ROS 1 style PID joint controllers, the forward single-joint ones and the posture-hold
example, each driving a simulated joint.

The manager runs in-process with its loop thread stopped: the tests step read -> update ->
write themselves with a fixed 10 ms period, so every number depends only on cycle counts.
Commands and gains go in over real topics and parameter services.
"""

import importlib.util
import math

import pytest
from control_msgs.msg import JointControllerState
from rclpy.parameter import Parameter
from std_msgs.msg import Float64, Float64MultiArray

from py_controllers import plugins
from py_controllers.control_toolbox.angles import shortest_angular_distance
from py_controllers.controllers.joint_pid.controller import (
    EffortJointPositionController,
    EffortJointVelocityController,
    VelocityJointPositionController,
)
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.testing import CONFIG, PACKAGE_ROOT, RosHarness, SteppedManager, stamp_ns

URDF = CONFIG / 'pid_joint_robot.urdf'
PARAMS = CONFIG / 'pid_controllers.yaml'
EXAMPLE = PACKAGE_ROOT / 'examples' / 'posture_hold'
PERIOD_NS = 10_000_000  # 100 Hz, as in the parameter files

# registered here so the tests do not depend on installed entry points
plugins.register(plugins.HARDWARE_GROUP, 'py_controllers/SimulatedSystem', SimulatedSystem)
for _name, _cls in (
    ('velocity_controllers/JointPositionController', VelocityJointPositionController),
    ('effort_controllers/JointPositionController', EffortJointPositionController),
    ('effort_controllers/JointVelocityController', EffortJointVelocityController),
):
    plugins.register(plugins.CONTROLLERS_GROUP, _name, _cls)


def _load_example():
    spec = importlib.util.spec_from_file_location('posture_hold', EXAMPLE / 'posture_hold.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    plugins.register(plugins.CONTROLLERS_GROUP, module.TYPE_NAME, module.PostureHoldController)
    return module


def _stepped(urdf_path, params_path):
    harness = RosHarness('pid_tests', args=['--ros-args', '--params-file', str(params_path)])
    stepped = SteppedManager(harness, urdf_path.read_text())
    return harness, stepped


@pytest.fixture
def cm():
    harness, stepped = _stepped(URDF, PARAMS)
    yield stepped
    stepped.shutdown()
    harness.close()


def takes(ctrl, position, velocity=None):
    """A predicate: the controller's command box holds this (position, velocity) command."""

    def check():
        got_position, got_velocity = ctrl.command_box.get()
        if velocity is None:
            return got_position == position and math.isnan(got_velocity)
        return (got_position, got_velocity) == (position, velocity)

    return check


# --- position in, velocity out ---------------------------------------------------------


def test_velocity_position_controller_converges_and_respects_limits(cm):
    (ctrl,) = cm.start('slider_position_controller')
    topic = '/slider_position_controller/command'
    assert cm.state('slider_joint/position') == 0.0
    cm.step(5)
    assert cm.state('slider_joint/position') == pytest.approx(0.0, abs=1e-12)  # holds still

    cm.send(topic, Float64, Float64(data=0.3), takes(ctrl, 0.3))
    cm.step(200)
    assert cm.state('slider_joint/position') == pytest.approx(0.3, abs=1e-3)

    # 0.9 is beyond the 0.5 m upper limit: the setpoint is clamped, the joint stops at 0.5
    cm.send(topic, Float64, Float64(data=0.9), takes(ctrl, 0.9))
    trace = cm.step(300, record='slider_joint/position')
    assert max(trace) <= 0.5 + 1e-6
    assert trace[-1] == pytest.approx(0.5, abs=1e-3)
    assert ctrl.core.set_point == 0.5
    # not pushing against the limit: unclamped, it would ask for 5 * (0.9 - 0.5) = 2 m/s
    assert cm.command('slider_joint/velocity') == pytest.approx(0.0, abs=5e-3)


# --- position in, effort out ---------------------------------------------------------------


def test_effort_position_controller_converges(cm):
    (ctrl,) = cm.start('arm_position_controller')
    cm.send('/arm_position_controller/command', Float64, Float64(data=1.0), takes(ctrl, 1.0))
    cm.step(400)
    assert cm.state('arm_joint/position') == pytest.approx(1.0, abs=5e-3)
    assert cm.state('arm_joint/velocity') == pytest.approx(0.0, abs=5e-2)

    # a position with a velocity: the velocity error is the derivative term
    cm.send(
        '/arm_position_controller/command_with_velocity',
        Float64MultiArray,
        Float64MultiArray(data=[0.5, 0.0]),
        takes(ctrl, 0.5, 0.0),
    )
    cm.step(400)
    assert cm.state('arm_joint/position') == pytest.approx(0.5, abs=5e-3)


def test_continuous_joint_takes_the_short_way(cm):
    (ctrl,) = cm.start('wheel_position_controller')
    start = cm.state('wheel_joint/position')
    assert start == pytest.approx(3.0)
    # from 3.0 to -3.0 the short way is +0.283 rad through pi, not -6 rad
    cm.send('/wheel_position_controller/command', Float64, Float64(data=-3.0), takes(ctrl, -3.0))
    trace = cm.step(400, record='wheel_joint/position')
    assert min(trace) >= start - 1e-3
    assert max(trace) < start + 0.5
    assert shortest_angular_distance(trace[-1], -3.0) == pytest.approx(0.0, abs=5e-3)


# --- velocity in, effort out ---------------------------------------------------------------


def test_effort_velocity_controller_tracks_velocity(cm):
    (ctrl,) = cm.start('wheel_velocity_controller')
    cm.step(3)
    assert cm.state('wheel_joint/velocity') == pytest.approx(0.0, abs=1e-9)  # activation: 0
    cm.send('/wheel_velocity_controller/command', Float64, Float64(data=2.0), takes(ctrl, 2.0))
    cm.step(300)
    assert cm.state('wheel_joint/velocity') == pytest.approx(2.0, abs=2e-2)


# --- ~/state every 10th update, gains at runtime ----------------------------------------------


def test_state_every_tenth_update_and_runtime_gains(cm):
    topic = '/slider_position_controller/state'
    states = cm.harness.subscribe(JointControllerState, topic)
    (ctrl,) = cm.load('slider_position_controller')
    # the first state goes out with the first update: be connected before it
    assert cm.harness.spin_until(lambda: ctrl.get_node().count_subscribers(topic) > 0)
    ok, msg = cm.manager.switch_controller(['slider_position_controller'], [], 2)
    assert ok, msg
    stamps = []
    for k in range(4):
        stamps.append(cm.now_ns + PERIOD_NS)
        # update number 10k publishes, and its state is sent before step() returns: the
        # publisher is free for update 10k + 10 however late the publishing thread runs
        # (q39, two busy loops: update 10's was skipped, the one before still being sent)
        cm.step(1, sent=True)
        assert ctrl._state_rt.wait_idle(0.0)
        assert cm.harness.spin_for_messages(states, 1), f'no state after update {10 * k}'
        cm.step(9)  # the next nine do not
    assert ctrl.update_count == 40
    cm.step(1, sent=True)
    assert cm.harness.spin_for_messages(states, 1)
    stamps.append(cm.now_ns)
    got = [stamp_ns(m) for m in states]
    assert got == stamps  # exactly updates 0, 10, 20, 30, 40

    last = states[-1]
    assert last.set_point == 0.0
    assert last.process_value == cm.state('slider_joint/position')
    assert last.time_step == pytest.approx(0.01)
    assert (last.p, last.i, last.d) == (5.0, 0.0, 0.0)  # from pid_controllers.yaml
    assert last.antiwindup is False

    # gains through the parameter interface; the loop picks the new snapshot up
    result = ctrl.get_node().set_parameters([Parameter('pid.p', value=7.5)])
    assert result[0].successful, result[0].reason
    cm.step(10)  # updates 41..50: the 50th publishes
    assert cm.harness.spin_for_messages(states, 1)
    assert states[-1].p == 7.5
    assert ctrl.core.pid.get_gains().p == 7.5
    # an invalid value is refused by the parameter interface and changes nothing
    result = ctrl.get_node().set_parameters([Parameter('pid.antiwindup_strategy', value='x')])
    assert not result[0].successful


def test_invalid_command_is_rejected_and_the_last_one_kept(cm, capfd):
    (ctrl,) = cm.start('slider_position_controller')
    topic = '/slider_position_controller/command_with_velocity'
    kept = (0.2, 0.1)
    cm.send(topic, Float64MultiArray, Float64MultiArray(data=list(kept)), takes(ctrl, *kept))
    cm.step(20)
    # non-finite first: the error is throttled (1 s), so only the first rejection is logged
    for data in ([math.nan, 0.0], [0.1, math.inf], [0.1]):
        cm.publish(topic, Float64MultiArray, Float64MultiArray(data=data))
    valid = (0.25, 0.0)
    cm.publish(topic, Float64MultiArray, Float64MultiArray(data=list(valid)))
    # the four arrive in the order sent (one reliable publisher), one per callback; after
    # each callback one cycle runs and what the controller holds is recorded
    trace = []

    def observe():
        cm.step(1)
        box = ctrl.command_box.get()
        trace.append((box, ctrl.core.set_point, cm.command('slider_joint/velocity')))
        return box != kept

    assert cm.harness.spin_until(observe)
    *held, (box, _, _) = trace
    assert box == valid, f'after the invalid commands the controller took {box}'
    assert held
    for held_box, set_point, output in held:
        assert held_box == kept
        assert set_point == 0.2
        assert math.isfinite(output)
    err = capfd.readouterr().err
    assert (
        'command_with_velocity [nan, 0.0] (expected [position, velocity]) rejected for joint '
        'slider_joint' in err
    ), err
    cm.send(
        '/slider_position_controller/command', Float64, Float64(data=0.3), takes(ctrl, 0.3)
    )  # a plain position drops the velocity


# --- the forward single-joint controllers (smoke) -------------------------------------------


def test_forward_single_joint_controllers(cm):
    cm.start('arm_forward_position', 'slider_forward_velocity', 'wheel_forward_effort')
    for topic, value, interface in (
        ('/arm_forward_position/command', 0.4, 'arm_joint/position'),
        ('/slider_forward_velocity/command', 0.1, 'slider_joint/velocity'),
        ('/wheel_forward_effort/command', 0.5, 'wheel_joint/effort'),
    ):
        cm.send_until(
            topic, Float64, Float64(data=value), lambda i=interface, v=value: cm.command(i) == v
        )
    cm.step(100)
    assert cm.state('arm_joint/position') == pytest.approx(0.4, abs=1e-3)
    assert cm.state('slider_joint/velocity') == pytest.approx(0.1, abs=1e-3)
    assert cm.state('wheel_joint/velocity') > 0.1  # a constant torque spins the wheel up


# --- the posture-hold example ---------------------------------------------------------------


def test_posture_hold_keeps_the_arm_under_gravity():
    example = _load_example()
    harness, cm = _stepped(EXAMPLE / 'arm6.urdf', EXAMPLE / 'posture_hold_controllers.yaml')
    try:
        (ctrl,) = cm.start('posture_hold_controller')
        assert isinstance(ctrl, example.PostureHoldController)
        joints = ctrl.joints
        assert len(joints) == 6
        start = [cm.state(f'{j}/position') for j in joints]
        worst = 0.0
        for _ in range(300):
            cm.step(1)
            worst = max(
                worst, *(abs(cm.state(f'{j}/position') - q0) for j, q0 in zip(joints, start))
            )
        assert worst < 0.01  # the sag under gravity is about 5 mrad with these gains
        # without it, gravity pulls the arm away: the hold was doing the work
        ok, msg = cm.manager.switch_controller([], ['posture_hold_controller'], 2)
        assert ok, msg
        cm.step(100)
        drift = max(abs(cm.state(f'{j}/position') - q0) for j, q0 in zip(joints, start))
        assert drift > 0.1
    finally:
        cm.shutdown()
        harness.close()


@pytest.mark.parametrize(
    ('name', 'value', 'reason'),
    [
        ('pid.p', math.nan, 'gain p must be finite'),
        ('pid.i', math.inf, 'gain i must be finite'),
        ('pid.i_clamp_max', -5.0, "'pid.i_clamp_max' must be >= 0"),
    ],
)
def test_invalid_gains_are_refused_at_set_time(cm, name, value, reason):
    (ctrl,) = cm.load('slider_position_controller')
    node = ctrl.get_node()
    before = node.get_parameter(name).value
    (result,) = node.set_parameters([Parameter(name, value=value)])
    assert not result.successful and reason in result.reason
    assert node.get_parameter(name).value == before  # ros2 param get and the loop agree
