"""Non-finite containment: no claimed hardware command reaches write() unless it is a finite
number, limits fail closed, and the diff drive refuses a cmd_vel that overflows its wheels.

On SimulatedSystem (command modes, limits -3..3 rad, 2 rad/s, 10 N m from the safety rig)
in a stepped manager, and on DiffBotSystem under the real loop thread. What the hardware
got is recorded at its write() (the simulated components take it at the next read())."""

import math

import numpy as np
import pytest
import yaml
from geometry_msgs.msg import TwistStamped
from rclpy.parameter import Parameter
from safety_rig import robot, running_manager
from sensor_msgs.msg import JointState

from py_controllers import plugins
from py_controllers.controller_interface.controller_interface import (
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.hardware_interface.types import LifecycleStateId as S
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

SIM = 'py_controllers/SimulatedSystem'


class Writing(ControllerInterface):
    """Writes `values[name]` (any Python object, set by the test) to each interface it
    claims; the interfaces come from its `interfaces` parameter."""

    def on_init(self):
        self.get_node().declare_parameter('interfaces', ['j1/velocity'])
        self.values = {}

    def on_configure(self, previous_state):
        self.names = list(self.get_node().get_parameter('interfaces').value)
        self.values = dict.fromkeys(self.names, 0.0)

    def command_interface_configuration(self):
        return InterfaceConfiguration.individual(self.names)

    def update(self, time, period):
        values = self.values
        for handle in self.command_interfaces:
            handle.value = values[handle.name]
        return ReturnType.OK


plugins.register(plugins.CONTROLLERS_GROUP, 'guard/Writing', Writing)


@pytest.fixture
def harness():
    with RosHarness('command_guard') as h:
        yield h


def simulated(harness, joints):
    return SteppedManager(harness, robot({'Sim': ({}, joints)}, plugin=SIM))


def writing(sm, name, interfaces):
    """Load, configure and activate a Writing controller claiming `interfaces`."""
    m = sm.manager
    ok, msg = m.load_controller(name, 'guard/Writing')
    assert ok, msg
    ctrl = m.controllers[name].controller
    ctrl.get_node().set_parameters([Parameter('interfaces', value=interfaces)])
    ok, msg = m.configure_controller(name)
    assert ok, msg
    ok, msg = m.switch_controller([name], [], 2)
    assert ok, msg
    return ctrl


def record_writes(component):
    """Every write() of `component`: its command interfaces' values at that moment."""
    seen = []
    original = component.write

    def write(time, period):
        seen.append({n: h.value for n, h in component.command_interfaces.items()})
        return original(time, period)

    component.write = write
    return seen


def logged(sm, capfd, *texts):
    """The log lines (stderr) containing every one of `texts` since the last call, once the
    executor has run everything the loop deferred."""
    assert sm.harness.spin_until(lambda: len(sm.manager.deferred) == 0)
    err = capfd.readouterr().err
    return [line for line in err.splitlines() if all(t in line for t in texts)]


# --- (b) a controller writing inf -----------------------------------------------------
def test_inf_is_held_and_its_controller_alone_is_deactivated(harness, capfd):
    sm = simulated(harness, ['j1', 'j2', 'j3'])
    try:
        m = sm.manager
        sim = m.rm.components['Sim'].component
        writes = record_writes(sim)
        bad = writing(sm, 'bad', ['j1/velocity'])
        writing(sm, 'good', ['j2/velocity', 'j3/position'])
        bad.values['j1/velocity'] = 0.5
        sm.step(5)
        bad.values['j1/velocity'] = math.inf
        sm.step(1)
        assert writes[-1]['j1/velocity'] == 0.0  # the velocity hold, not inf
        assert m.state_of('bad') == S.INACTIVE
        assert m.state_of('good') == S.ACTIVE
        sm.step(20)
        assert m.rm.components['Sim'].state == S.ACTIVE  # its read() never saw inf
        assert all(math.isfinite(w['j1/velocity']) for w in writes)
        assert sim.dynamics.command[0] == 0.0
        assert len(logged(sm, capfd, "'bad'", 'j1/velocity', 'inf')) == 1
    finally:
        sm.shutdown()


# --- (c) NaN is "no command yet": held quietly ----------------------------------------
def test_nan_is_held_quietly(harness, capfd):
    sm = simulated(harness, ['j1', 'j2'])
    try:
        m = sm.manager
        sim = m.rm.components['Sim'].component
        writes = record_writes(sim)
        ctrl = writing(sm, 'ctrl', ['j1/position', 'j2/velocity'])
        ctrl.values.update({'j1/position': math.nan, 'j2/velocity': math.nan})
        sm.step(1)  # nothing sent yet since the claim: the measured position
        assert writes[-1]['j1/position'] == sm.state('j1/position') == 0.0
        assert writes[-1]['j2/velocity'] == 0.0
        ctrl.values.update({'j1/position': 0.1, 'j2/velocity': 0.5})
        sm.step(3)  # the limits allow 2 rad/s: 0.02 rad per cycle
        last_sent = writes[-1]['j1/position']
        assert last_sent == pytest.approx(0.06)
        ctrl.values.update({'j1/position': math.nan, 'j2/velocity': math.nan})
        sm.step(5)
        assert [w['j1/position'] for w in writes[-5:]] == [last_sent] * 5
        assert [w['j2/velocity'] for w in writes[-5:]] == [0.0] * 5
        assert m.state_of('ctrl') == S.ACTIVE
        assert [line for line in logged(sm, capfd) if 'WARN' in line or 'ERROR' in line] == []
    finally:
        sm.shutdown()


# --- (d) non-numbers on the batch path ------------------------------------------------
JOINTS = [f'j{i}' for i in range(1, 18)]  # 17: the limits go through the numpy batch


@pytest.mark.parametrize('value', [None, 'fast', np.array([1.0, 2.0])], ids=repr)
def test_a_non_number_on_many_joints_deactivates_without_killing_the_loop(harness, value):
    sm = simulated(harness, JOINTS)
    try:
        m = sm.manager
        writes = record_writes(m.rm.components['Sim'].component)
        ctrl = writing(sm, 'arm', [f'{j}/position' for j in JOINTS])
        assert len(m.rm.command_limits.batched_joints) == 17
        sm.step(3)
        ctrl.values['j5/position'] = value
        sm.step(1)
        assert m.state_of('arm') == S.INACTIVE
        sm.step(5)  # the loop goes on
        sent = [w[f'{j}/position'] for w in writes for j in JOINTS]
        assert len(sent) == 9 * 17 and all(type(v) is float and math.isfinite(v) for v in sent)
        assert writes[-1]['j5/position'] == 0.0  # the last command sent (0), held
        assert m.rm.components['Sim'].state == S.ACTIVE
    finally:
        sm.shutdown()


# --- (e) limits fail closed -----------------------------------------------------------
def _raising(*args, **kwargs):
    raise ZeroDivisionError('limiter bug')


class _FaultyLimiter:
    """A joint's limiter whose `enforce` is replaced; everything else is the real one's."""

    def __init__(self, real, enforce) -> None:
        self._real = real
        self.enforce = enforce

    def __getattr__(self, name):
        return getattr(self._real, name)


def faulty_limiter(limits, joint: str, enforce) -> None:
    """`joint`'s limiter enforces with `enforce` from now on (the limiter object itself is
    swapped: a compiled limiter takes no attribute of its own)."""
    j = next(j for j in limits._joints if j.name == joint)
    j.limiter = _FaultyLimiter(j.limiter, enforce)


@pytest.mark.parametrize('joints', [['j1', 'j2'], JOINTS], ids=['scalar', 'batch'])
def test_a_raising_limiter_holds_the_joint(harness, joints, capfd):
    sm = simulated(harness, joints)
    try:
        m = sm.manager
        writes = record_writes(m.rm.components['Sim'].component)
        ctrl = writing(sm, 'arm', [f'{j}/velocity' for j in joints])
        limits = m.rm.command_limits
        ctrl.values['j1/velocity'] = 1.0
        sm.step(2)
        assert writes[-1]['j1/velocity'] == 1.0
        if len(joints) == 2:
            faulty_limiter(limits, 'j1', _raising)
        else:
            limits._plan[1].batch.enforce = _raising
        ctrl.values['j1/velocity'] = 5.0  # beyond the 2 rad/s limit: must not get through
        sm.step(5)
        assert [w['j1/velocity'] for w in writes[-5:]] == [0.0] * 5
        assert len(logged(sm, capfd, 'limiter bug')) == 1
        assert m.state_of('arm') == S.ACTIVE
    finally:
        sm.shutdown()


def test_a_non_finite_limiter_output_is_held(harness, capfd):
    sm = simulated(harness, ['j1', 'j2'])
    try:
        m = sm.manager
        writes = record_writes(m.rm.components['Sim'].component)
        ctrl = writing(sm, 'arm', ['j1/velocity'])
        ctrl.values['j1/velocity'] = 1.0
        sm.step(2)

        def overflowing(actual, desired, dt_s):
            desired.velocity = math.inf
            return True

        faulty_limiter(m.rm.command_limits, 'j1', overflowing)
        sm.step(5)
        assert [w['j1/velocity'] for w in writes[-5:]] == [0.0] * 5
        assert len(logged(sm, capfd, 'j1/velocity', 'inf')) == 1
        assert m.state_of('arm') == S.ACTIVE  # the limiter's fault, not the controller's
    finally:
        sm.shutdown()


def test_a_raising_limiter_holds_a_position_at_the_last_command_sent(harness):
    sm = simulated(harness, ['j1'])
    try:
        m = sm.manager
        writes = record_writes(m.rm.components['Sim'].component)
        ctrl = writing(sm, 'arm', ['j1/position'])
        ctrl.values['j1/position'] = 0.05
        sm.step(5)
        assert writes[-1]['j1/position'] == 0.05
        faulty_limiter(m.rm.command_limits, 'j1', _raising)
        ctrl.values['j1/position'] = 2.9
        sm.step(3)
        assert [w['j1/position'] for w in writes[-3:]] == [0.05] * 3
    finally:
        sm.shutdown()


# --- (a) cmd_vel 1e308 on the diff bot, real loop -------------------------------------
def diffbot_params(tmp_path):
    """diffbot_controllers.yaml with the diff drive's speed limits removed (upstream's
    default: unlimited), so nothing in the controller clamps 1e308."""
    params = yaml.safe_load((CONFIG / 'diffbot_controllers.yaml').read_text())
    del params['diff_drive_controller']['ros__parameters']['linear']
    del params['diff_drive_controller']['ros__parameters']['angular']
    params['diff_drive_controller']['ros__parameters']['cmd_vel_timeout'] = 0.0
    path = tmp_path / 'diffbot.yaml'
    path.write_text(yaml.safe_dump(params))
    return path


@pytest.mark.parametrize('twist', [(1e308, 0.0), (0.0, 1e308)], ids=['linear', 'angular'])
def test_a_huge_cmd_vel_is_ignored_and_the_base_keeps_going(tmp_path, twist):
    args = ['--ros-args', '--params-file', str(diffbot_params(tmp_path))]
    harness = RosHarness('huge_cmd_vel', args=args)
    node = running_manager(harness, (CONFIG / 'diffbot.urdf').read_text())
    try:
        m = node.manager
        for name in ('joint_state_broadcaster', 'diff_drive_controller'):
            assert m.load_controller(name)[0] and m.configure_controller(name)[0]
        assert m.switch_controller(['joint_state_broadcaster', 'diff_drive_controller'], [], 2)[0]
        states = harness.subscribe(JointState, '/joint_states')
        rosout = harness.subscribe_rosout()
        pub = harness.node.create_publisher(TwistStamped, '/diff_drive_controller/cmd_vel', 10)
        left = m.rm.command_interfaces['left_wheel_joint/velocity']
        msg = TwistStamped()
        msg.twist.linear.x = 0.5
        assert harness.spin_until(lambda: pub.publish(msg) or left.value == 10.0)  # 0.5 / 0.05
        msg.twist.linear.x, msg.twist.angular.z = twist
        rosout.wait_for(lambda p: harness.spin_until(lambda: pub.publish(msg) or p()), 'wheel')
        assert harness.spin_for_messages(states, 30)
        assert m.state_of('diff_drive_controller') == S.ACTIVE
        assert m.state_of('joint_state_broadcaster') == S.ACTIVE
        assert left.value == 10.0  # the last good command, unchanged
        right = m.rm.command_interfaces['right_wheel_joint/velocity'].value
        assert right == 10.0
        assert m.rm.components['DiffBot'].state == S.ACTIVE
        assert all(math.isfinite(v) for s in states[-10:] for v in s.velocity)
    finally:
        node.shutdown()
        harness.close()


def test_a_chained_reference_that_overflows_the_wheels_is_ignored(tmp_path):
    args = ['--ros-args', '--params-file', str(diffbot_params(tmp_path))]
    harness = RosHarness('huge_reference', args=args)
    sm = SteppedManager(harness, (CONFIG / 'diffbot.urdf').read_text())
    try:
        m = sm.manager
        sm.load('diff_drive_controller')
        ahead = 'diff_drive_controller/linear/velocity'
        ahead_names = [ahead, 'diff_drive_controller/angular/velocity']
        ok, msg = m.load_controller('ahead', 'guard/Writing')
        assert ok, msg
        ctrl = m.controllers['ahead'].controller
        ctrl.get_node().set_parameters([Parameter('interfaces', value=ahead_names)])
        assert m.configure_controller('ahead')[0]
        ok, msg = m.switch_controller(['diff_drive_controller', 'ahead'], [], 2)
        assert ok, msg
        ctrl.values[ahead] = 0.5
        sm.step(3)
        left = m.rm.command_interfaces['left_wheel_joint/velocity']
        assert left.value == 10.0  # 0.5 m/s / 0.05 m
        ctrl.values[ahead] = 1e308
        sm.step(5)
        assert m.state_of('diff_drive_controller') == S.ACTIVE
        assert m.state_of('ahead') == S.ACTIVE
        assert left.value == 10.0  # ignored like NaN: the last command stays
    finally:
        sm.shutdown()
        harness.close()
