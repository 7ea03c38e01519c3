"""Hold on release and the one rule for return values, on hardware with command modes
(SimulatedSystem) and through the paths a failure takes: the error path tells the hardware,
a chained follower of a failed controller stops, only ReturnType.OK is success."""

import math

import numpy as np
import pytest
from rclpy.parameter import Parameter
from safety_rig import robot, running_manager, start

from py_controllers.hardware_interface.types import LifecycleStateId as S
from py_controllers.hardware_interface.types import ReturnType
from py_controllers.testing import RosHarness, SteppedManager


@pytest.fixture
def harness():
    with RosHarness('safety_release') as h:
        yield h


def test_the_error_path_switches_the_command_mode_so_a_fallback_in_another_mode_starts(harness):
    # SimulatedSystem drives j1 in the mode of the interface claimed on it and refuses a
    # second mode on one joint: the fallback (velocity) needs effort released first
    sm = SteppedManager(
        harness, robot({'Sim': ({}, ['j1'])}, plugin='py_controllers/SimulatedSystem')
    )
    try:
        m = sm.manager
        m.node.set_parameters([Parameter('pushing.fallback_controllers', value=['braking'])])
        ok, msg = m.load_controller('braking', 'safety/Commanding')
        assert ok, msg
        braking = m.controllers['braking'].controller
        braking.get_node().set_parameters(
            [Parameter('interfaces', value=['j1/velocity']), Parameter('value', value=0.0)]
        )
        assert m.configure_controller('braking')[0]
        pushing = start(m, 'pushing', 'Returning', interfaces=['j1/effort'], value=0.5)
        sm.step(50)
        assert sm.state('j1/velocity') > 0.1  # pushed
        pushing.result = ReturnType.ERROR
        sm.step(1)
        assert m.state_of('pushing') == S.INACTIVE
        assert m.state_of('braking') == S.ACTIVE, 'the fallback was refused'
        sm.step(50)
        assert sm.state('j1/velocity') == pytest.approx(0.0, abs=1e-3)  # driven to rest
    finally:
        sm.shutdown()


PID = """pid:
  ros__parameters:
    dof_names: [j1]
    command_interface: velocity
    reference_and_state_interfaces: [position]
    gains:
      j1: {p: 2.0, i: 0.0, d: 0.0}
"""


def test_a_chained_follower_of_a_failed_controller_holds_where_it_is(harness, tmp_path):
    (tmp_path / 'pid.yaml').write_text(PID)
    sm = SteppedManager(harness, robot({'Arm': ({}, ['j1'])}))
    try:
        m = sm.manager
        m.node.set_parameters(
            [
                Parameter('pid.type', value='pid_controller/PidController'),
                Parameter('pid.params_file', value=str(tmp_path / 'pid.yaml')),
            ]
        )
        ok, msg = m.load_controller('pid')
        assert ok, msg
        assert m.configure_controller('pid')[0]
        assert m.switch_controller(['pid'], [], 2)[0]
        leader = start(m, 'leader', 'Returning', interfaces=['pid/j1/position'], value=1.0)
        sm.step(20)
        moving = sm.command('j1/velocity')
        assert moving > 0.5  # on its way to 1.0
        leader.result = ReturnType.ERROR
        sm.step(1)
        assert m.state_of('leader') == S.INACTIVE and m.state_of('pid') == S.ACTIVE
        reference = m.rm.command_interfaces['pid/j1/position'].value
        assert reference == pytest.approx(sm.state('j1/position'))  # held where measured
        sm.step(5)
        assert abs(sm.command('j1/velocity')) < 0.05 * moving  # no longer heading for 1.0
    finally:
        sm.shutdown()


@pytest.mark.parametrize(
    'result',
    [False, 0, True, 1, np.array([0.0]), ReturnType.ERROR, ReturnType.DEACTIVATE],
    ids=['False', 'zero', 'True', 'one', 'array', 'ERROR', 'DEACTIVATE'],
)
def test_only_return_type_ok_is_success(harness, result):
    sm = SteppedManager(harness, robot({'Arm': ({}, ['j1']), 'Other': ({}, ['j2'])}))
    try:
        m = sm.manager
        failing = start(m, 'failing', 'Returning', interfaces=['j1/velocity'])
        healthy = start(m, 'healthy', 'Commanding', interfaces=['j2/velocity'])
        sm.step(2)
        failing.result = result
        sm.step(3)
        assert m.state_of('failing') == S.INACTIVE
        assert m.rm.command_interfaces['j1/velocity'].value == 0.0  # released: held
        assert m.state_of('healthy') == S.ACTIVE and healthy.updates == 5
    finally:
        sm.shutdown()


def test_none_is_success_with_a_warning(harness):
    sm = SteppedManager(harness, robot({'Arm': ({}, ['j1'])}))
    try:
        m = sm.manager
        ctrl = start(m, 'quiet', 'Returning', interfaces=['j1/velocity'])
        ctrl.result = None
        sm.step(3)
        assert m.state_of('quiet') == S.ACTIVE and ctrl.updates == 3
        assert math.isfinite(m.rm.command_interfaces['j1/velocity'].value)
    finally:
        sm.shutdown()


def test_load_unload_storms_during_failures_never_kill_the_loop(harness):
    # the loop's error handling walks the controller table while services load and unload
    node = running_manager(harness, robot({'Arm': ({}, ['j1', 'j2'])}), update_rate=500)
    m, stats = node.manager, node.loop.stats
    try:
        failing = start(m, 'failing', 'Returning', interfaces=['j1/velocity'])
        m.node.set_parameters([Parameter('failing.fallback_controllers', value=['spare'])])
        ok, _ = m.load_controller('spare', 'safety/Commanding')
        assert ok and m.configure_controller('spare')[0]
        assert harness.spin_until(lambda: stats.cycles > 10)
        cycles0, failures, loaded = stats.cycles, 0, 0
        while stats.cycles - cycles0 < 1000 and node.loop.failure is None:
            if m.state_of('failing') == S.ACTIVE:
                failing.result = ReturnType.ERROR  # fails in a cycle soon: 'spare' takes over
            else:
                failures += 1
                failing.result = ReturnType.OK
                m.switch_controller(['failing'], ['spare'], 1)
            # three configured at any time: a walk of the table meets them while one goes
            name = f'storm{loaded}'
            ok, msg = m.load_controller(name, 'safety/SlowToAnswer')
            assert ok, msg
            assert m.configure_controller(name)[0]
            if loaded >= 3:
                assert m.unload_controller(f'storm{loaded - 3}')[0]
            loaded += 1
        assert node.loop.failure is None, node.loop.failure_traceback
        assert node.loop.running
        assert failures > 10 and loaded > 10, (failures, loaded)
    finally:
        node.shutdown()


@pytest.mark.parametrize('refusal', ['raises', 'refuses'])
def test_shutdown_stops_the_robot_when_the_hardware_refuses_the_mode_switch(harness, refusal):
    # the old way out went through switch_controller, which gave up at the refusal and left
    # the controllers active: the final write then sent their last commands
    sm = SteppedManager(harness, robot({'Arm': ({}, ['j1'])}))
    m = sm.manager
    start(m, 'vel', 'Commanding', interfaces=['j1/velocity'])
    sm.step(3)
    hw = m.rm.components['Arm'].component
    assert hw.last_write['j1/velocity'] == 1.5

    def refuse(start_interfaces, stop_interfaces):
        if refusal == 'raises':
            raise RuntimeError('no mode switch today')
        return ReturnType.ERROR

    hw.prepare_command_mode_switch = refuse
    hw.perform_command_mode_switch = refuse
    sm.shutdown()
    assert m.controllers == {}  # unloaded
    assert hw.writes == 4  # the final write
    assert hw.last_write['j1/velocity'] == 0.0
