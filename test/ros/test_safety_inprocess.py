"""The safety net in-process: failures are contained, hardware transitions never block the
loop, fallbacks displace what holds their interfaces, every way out stops the robot."""

import math
import threading

import pytest
import rclpy
from controller_manager_msgs.srv import ListHardwareComponents, SetHardwareComponentState
from lifecycle_msgs.msg import State
from rclpy.parameter import Parameter
from safety_rig import robot, running_manager, start
from std_msgs.msg import Float64MultiArray, UInt8
from std_srvs.srv import Trigger

from py_controllers.hardware_interface.types import LifecycleStateId as S
from py_controllers.testing import RosHarness, SteppedManager

STRICT = 2


@pytest.fixture
def harness():
    with RosHarness('safety') as h:
        yield h


def stepped(harness, components):
    return SteppedManager(harness, robot(components))


def component(manager, name):
    return manager.rm.components[name].component


def settle(sm):
    """Wait for the off-loop hardware transitions, then serve the executor once."""
    assert sm.manager.supervisor.transitions.wait_idle(10.0)
    sm.harness.executor.spin_once(timeout_sec=0.0)


# --- 1. failures are contained, the loop carries on -------------------------------------
@pytest.mark.parametrize('on_error_result', ['3', 'raise', 'error'])
def test_bad_on_error_finalizes_the_component_and_the_loop_goes_on(harness, on_error_result):
    sm = stepped(
        harness,
        {
            'Faulty': ({'read_fault_at': 3, 'on_error_result': on_error_result}, ['j1']),
            'Healthy': ({}, ['j2']),
        },
    )
    try:
        m = sm.manager
        faulty = start(m, 'faulty', 'Commanding', interfaces=['j1/velocity'])
        healthy = start(m, 'healthy', 'Commanding', interfaces=['j2/velocity'])
        sm.step(5)
        settle(sm)
        sm.step(5)
        assert m.rm.components['Faulty'].state == S.FINALIZED  # on_error did not succeed
        assert m.state_of('faulty') == S.INACTIVE
        assert m.state_of('healthy') == S.ACTIVE
        assert healthy.updates == 10 and faulty.updates == 2
        assert component(m, 'Healthy').reads == 10
        assert component(m, 'Faulty').reads == 3  # never read again
    finally:
        sm.shutdown()


def test_on_error_runs_off_the_loop_thread(harness):
    sm = stepped(harness, {'Faulty': ({'read_fault_at': 2}, ['j1'])})
    try:
        hw = component(sm.manager, 'Faulty')
        seen = []
        original = hw.on_error
        hw.on_error = lambda previous: (seen.append(threading.get_ident()), original(previous))[1]
        sm.step(3)
        settle(sm)
        assert seen and seen[0] != threading.get_ident()  # not the thread running cycles
        assert sm.manager.rm.components['Faulty'].state == S.UNCONFIGURED  # recoverable
    finally:
        sm.shutdown()


@pytest.mark.parametrize('fault', ['error', 'raise', 'bad_result'])
def test_write_error_deactivates_the_controllers_commanding_the_component(harness, fault):
    sm = stepped(
        harness,
        {'Faulty': ({'write_fault_at': 4, 'write_fault': fault}, ['j1']), 'Healthy': ({}, ['j2'])},
    )
    try:
        m = sm.manager
        start(m, 'cmd', 'Commanding', interfaces=['j1/velocity'])
        start(m, 'reader', 'Reading')  # reads j1/position: a user too
        healthy = start(m, 'healthy', 'Commanding', interfaces=['j2/velocity'])
        sm.step(6)
        settle(sm)
        assert m.state_of('cmd') == S.INACTIVE and m.state_of('healthy') == S.ACTIVE
        assert healthy.updates == 6
        # a controller that only reads the failed component keeps running, reading NaN
        assert m.state_of('reader') == S.ACTIVE
        assert math.isnan(m.rm.state_interfaces['j1/position'].value)
        assert not math.isnan(m.rm.state_interfaces['j2/position'].value)
        assert m.rm.components['Faulty'].state == S.UNCONFIGURED
        assert component(m, 'Faulty').writes == 4
    finally:
        sm.shutdown()


def test_write_deactivate_stops_commanders_keeps_readers(harness):
    sm = stepped(harness, {'Faulty': ({'write_fault_at': 2, 'write_fault': 'deactivate'}, ['j1'])})
    try:
        m = sm.manager
        start(m, 'cmd', 'Commanding', interfaces=['j1/velocity'])
        start(m, 'reader', 'Reading')
        sm.step(3)
        settle(sm)
        assert m.rm.components['Faulty'].state == S.INACTIVE
        assert m.state_of('cmd') == S.INACTIVE
        assert m.state_of('reader') == S.ACTIVE  # states of an INACTIVE component stay readable
        assert m.rm.command_interfaces['j1/velocity'].value == 0.0  # released: stopped
    finally:
        sm.shutdown()


def test_read_error_deactivates_controllers_before_write(harness):
    sm = stepped(harness, {'Faulty': ({'read_fault_at': 3}, ['j1'])})
    try:
        m = sm.manager
        start(m, 'cmd', 'Commanding', interfaces=['j1/velocity'])
        sm.step(3)
        hw = component(m, 'Faulty')
        assert hw.writes == 2  # the failing cycle wrote nothing
        assert m.state_of('cmd') == S.INACTIVE
        settle(sm)
        assert m.rm.components['Faulty'].state == S.UNCONFIGURED
    finally:
        sm.shutdown()


def test_update_returning_nonsense_is_an_error(harness):
    sm = stepped(harness, {'Arm': ({}, ['j1', 'j2'])})
    try:
        m = sm.manager
        start(m, 'bad', 'BadReturn', interfaces=['j1/velocity'])
        good = start(m, 'good', 'Commanding', interfaces=['j2/velocity'])
        sm.step(3)
        assert m.state_of('bad') == S.INACTIVE
        assert m.controllers['bad'].errors == 1
        assert m.state_of('good') == S.ACTIVE and good.updates == 3
        assert m.rm.command_interfaces['j1/velocity'].value == 0.0
    finally:
        sm.shutdown()


def test_update_returning_none_runs_on_with_one_warning(harness, capfd):
    sm = stepped(harness, {'Arm': ({}, ['j1'])})
    try:
        m = sm.manager
        lazy = start(m, 'lazy', 'NoReturn', interfaces=['j1/velocity'])
        sm.step(5)
        harness.executor.spin_once(timeout_sec=0.0)  # the deferred log
        assert m.state_of('lazy') == S.ACTIVE and lazy.updates == 5
        assert m.controllers['lazy'].errors == 0
        assert capfd.readouterr().err.count('update() returned None; taken as ReturnType.OK') == 1
    finally:
        sm.shutdown()


def test_a_raising_interface_configuration_does_not_break_error_handling(harness):
    sm = stepped(harness, {'Arm': ({'read_fault_at': 3}, ['j1', 'j2'])})
    try:
        m = sm.manager
        ok, msg = m.load_controller('broken', 'safety/BadConfiguration')
        assert ok, msg
        assert m.configure_controller('broken')[0]
        start(m, 'cmd', 'Commanding', interfaces=['j1/velocity'])
        ok, msg = m.switch_controller(['broken'], [], STRICT)
        assert not ok and 'command_interface_configuration() raised' in msg
        sm.step(5)  # the read error walks every controller's configuration for the chain
        settle(sm)
        assert m.state_of('cmd') == S.INACTIVE
        assert m.rm.components['Arm'].state == S.UNCONFIGURED
        by_name = {c.name: c for c in harness.manager().list_controllers()}
        assert list(by_name['broken'].required_command_interfaces) == []
    finally:
        sm.shutdown()


def test_raising_callbacks_of_a_controller_are_contained(harness, capfd):
    sm = stepped(harness, {'Arm': ({}, ['j1'])})
    try:
        ok, msg = sm.manager.load_controller('bomb', 'safety/CallbackBomb')
        assert ok, msg
        assert sm.manager.configure_controller('bomb')[0]
        bomb = sm.manager.controllers['bomb'].controller
        pub = harness.node.create_publisher(Float64MultiArray, '/bomb/input', 10)

        def exploded_often():
            pub.publish(Float64MultiArray(data=[1.0]))
            return bomb.calls >= 5

        assert harness.spin_until(exploded_often)  # the executor never saw an exception
        client = harness.node.create_client(Trigger, '/bomb/trigger')
        assert client.wait_for_service(timeout_sec=10.0)
        future = client.call_async(Trigger.Request())
        assert harness.spin_until(future.done)
        assert future.result().success is False
        assert 'ZeroDivisionError' in future.result().message
        err = capfd.readouterr().err
        assert "bomb: ~/input failed: ValueError('cannot take [1.0]')" in err
        assert err.count('~/input failed') < bomb.calls  # throttled
    finally:
        sm.shutdown()


@pytest.mark.parametrize('code', [1, 2, 3])
def test_fault_injection_controller_fails_on_request_and_is_taken_out(harness, code, tmp_path):
    sm = stepped(harness, {'Arm': ({}, ['j1', 'j2'])})
    try:
        m = sm.manager
        params = tmp_path / 'faulty.yaml'
        params.write_text(
            'faulty:\n  ros__parameters:\n    command_interfaces: [j1/velocity]\n    value: 0.8\n'
        )
        m.node.set_parameters([Parameter('faulty.params_file', value=str(params))])
        ok, msg = m.load_controller('faulty', 'py_controllers/FaultInjectionController')
        assert ok, msg
        assert m.configure_controller('faulty')[0]
        assert m.switch_controller(['faulty'], [], STRICT)[0]
        other = start(m, 'other', 'Commanding', interfaces=['j2/velocity'])
        sm.step(2)
        assert sm.command('j1/velocity') == 0.8
        sm.send_until(
            '/faulty/fault', UInt8, UInt8(data=code), lambda: m.controllers['faulty'].errors
        )
        assert m.state_of('faulty') == S.INACTIVE
        assert sm.command('j1/velocity') == 0.0  # released: stopped
        before = other.updates
        sm.step(3)
        assert other.updates == before + 3 and m.state_of('other') == S.ACTIVE
    finally:
        sm.shutdown()


# --- fallback controllers ----------------------------------------------------------------
def test_fallback_displaces_the_holder_of_its_interfaces(harness):
    sm = stepped(harness, {'Arm': ({}, ['j1', 'j2', 'j3'])})
    try:
        m = sm.manager
        m.node.set_parameters([Parameter('failing.fallback_controllers', value=['fallback'])])
        fb = configured(m, 'fallback', interfaces=['j1/velocity', 'j2/velocity'], value=-0.25)
        failing = start(m, 'failing', 'BadReturn', interfaces=['j1/velocity'])
        holder = start(m, 'holder', 'Commanding', interfaces=['j2/velocity'])
        bystander = start(m, 'bystander', 'Commanding', interfaces=['j3/velocity'])
        sm.step(2)
        assert m.state_of('failing') == S.INACTIVE
        assert m.state_of('holder') == S.INACTIVE  # held j2/velocity, which the fallback needs
        assert m.state_of('fallback') == S.ACTIVE
        assert m.state_of('bystander') == S.ACTIVE
        assert sm.command('j1/velocity') == -0.25 and sm.command('j2/velocity') == -0.25
        assert failing.updates == 1 and holder.updates == 1 and bystander.updates == 2
        assert fb.updates == 1
    finally:
        sm.shutdown()


def configured(m, name, type_name='Commanding', **params):
    ok, msg = m.load_controller(name, f'safety/{type_name}')
    assert ok, msg
    ctrl = m.controllers[name].controller
    ctrl.get_node().set_parameters([Parameter(k, value=v) for k, v in params.items()])
    assert m.configure_controller(name)[0]
    return ctrl


def test_fallbacks_are_checked_before_activation(harness):
    sm = stepped(harness, {'Arm': ({}, ['j1']), 'Spare': ({}, ['j2'])})
    try:
        m = sm.manager
        m.node.set_parameters([Parameter('main.fallback_controllers', value=['fallback'])])
        configured(m, 'main', interfaces=['j1/velocity'])
        ok, msg = m.switch_controller(['main'], [], STRICT)
        assert not ok and "its fallback controller 'fallback' is not loaded" in msg
        assert m.load_controller('fallback', 'safety/Commanding')[0]
        ok, msg = m.switch_controller(['main'], [], STRICT)
        assert not ok and "fallback controller 'fallback' must be configured" in msg
        fb = m.controllers['fallback'].controller
        fb.get_node().set_parameters([Parameter('interfaces', value=['j2/velocity'])])
        assert m.configure_controller('fallback')[0]
        ok, state = m.set_hardware_component_state('Spare', S.INACTIVE)
        assert ok and state == S.INACTIVE
        ok, msg = m.switch_controller(['main'], [], STRICT)
        assert not ok and "command interface 'j2/velocity'" in msg and 'not available' in msg
        assert m.state_of('main') == S.INACTIVE
        assert m.set_hardware_component_state('Spare', S.ACTIVE)[0]
        ok, msg = m.switch_controller(['main'], [], STRICT)
        assert ok, msg
    finally:
        sm.shutdown()


# --- every way out stops the robot ---------------------------------------------------------
def test_shutdown_writes_the_stop_before_the_hardware_goes(harness, tmp_path):
    record = tmp_path / 'record.json'
    sm = stepped(harness, {'Arm': ({'record_file': record}, ['j1', 'j2'])})
    m = sm.manager
    start(m, 'vel', 'Commanding', interfaces=['j1/velocity'])
    start(m, 'pos', 'Commanding', interfaces=['j2/position'], value=0.7)
    sm.step(3)
    hw = component(m, 'Arm')
    assert hw.last_write['j1/velocity'] == 1.5
    assert hw.last_write['j2/position'] == pytest.approx(0.06)  # to 0.7 at 2 rad/s
    measured = m.rm.state_interfaces['j2/position'].value
    assert measured == pytest.approx(0.04)  # the state lags the command by one cycle
    sm.shutdown()
    assert hw.writes == 4  # one final write after the controllers were deactivated
    assert hw.last_write['j1/velocity'] == 0.0  # velocity stopped
    assert hw.last_write['j2/position'] == measured  # position holds where it is
    assert m.rm.components['Arm'].state == S.FINALIZED


def test_shutdown_after_the_ros_context_is_gone_still_stops_the_robot():
    harness = RosHarness('safety_context')
    sm = stepped(harness, {'Arm': ({}, ['j1'])})
    m = sm.manager
    start(m, 'vel', 'Commanding', interfaces=['j1/velocity'])
    sm.step(3)
    hw = component(m, 'Arm')
    assert hw.last_write['j1/velocity'] == 1.5
    rclpy.try_shutdown(context=harness.context)  # e.g. the launch system shut ROS down
    sm.shutdown()
    assert hw.last_write['j1/velocity'] == 0.0
    assert m.rm.components['Arm'].state == S.FINALIZED
    harness.close()


# --- 2. nothing blocks the loop ------------------------------------------------------------
def test_a_slow_activation_does_not_stall_the_rest(harness):
    urdf = robot(
        {
            'Slow': ({'activate_delay_s': 1.0}, ['j1']),
            'Fast': ({}, ['j2']),
        }
    )
    node = running_manager(
        harness, urdf, **{'hardware_components_initial_state.inactive': ['Slow']}
    )
    try:
        m, stats = node.manager, node.loop.stats
        fast, slow = component(m, 'Fast'), component(m, 'Slow')
        client = harness.node.create_client(
            SetHardwareComponentState, '/controller_manager/set_hardware_component_state'
        )
        assert client.wait_for_service(timeout_sec=20.0)
        assert harness.spin_until(lambda: stats.cycles > 10)
        with m.cycle_lock:
            cycles0, missed0, fast0 = stats.cycles, stats.missed_periods, fast.reads
        seen_busy = []
        lister = harness.node.create_client(
            ListHardwareComponents, '/controller_manager/list_hardware_components'
        )
        answers = []  # (component busy when the answer came, its state label)

        def watch():
            seen_busy.append(m.rm.components['Slow'].busy)
            if not answers:  # meanwhile the manager's other services still answer
                listing = lister.call_async(ListHardwareComponents.Request())
                listing.add_done_callback(
                    lambda f: answers.append(
                        (m.rm.components['Slow'].busy, f.result().component[0].state.label)
                    )
                )
                answers.append(None)
            return False

        request = SetHardwareComponentState.Request(name='Slow', target_state=State(label='active'))
        future = client.call_async(request)
        assert harness.spin_until(lambda: future.done() or watch(), 30.0)
        with m.cycle_lock:
            cycles, missed, fast_reads = (
                stats.cycles - cycles0,
                stats.missed_periods - missed0,
                fast.reads - fast0,
            )
        assert future.result().ok and future.result().state.label == 'active'
        assert any(seen_busy)
        assert harness.spin_until(lambda: len(answers) == 2)
        assert answers[1] == (True, 'inactive')  # answered during the transition
        # 1 s of activation at 100 Hz: blocked, the loop ran 0 cycles and missed 100 periods;
        # free, it keeps most periods (lateness itself is the bench's business, not a test's)
        assert cycles >= 50, (cycles, missed)
        assert missed < cycles, (cycles, missed)
        assert fast_reads >= 50
        assert slow.reads > 0 or m.rm.components['Slow'].state == S.ACTIVE
    finally:
        node.shutdown()
