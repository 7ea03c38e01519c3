"""The release transaction (controller_manager/release.py): every way a claim ends goes
through it, and each hole a review found in the paths before it has a test here that fails
without its fix. Stepped cycles (SteppedManager) on real rclpy; the invariants of
controller_manager/invariants.py are checked along the way."""

from __future__ import annotations

import math

import numpy as np
import pytest
from release_rig import STRICT, generic_robot, load, start

from py_controllers.controller_interface.controller_interface import CallbackReturn
from py_controllers.controller_manager.invariants import InvariantRecorder, check_invariants
from py_controllers.hardware_interface.types import LifecycleStateId as S
from py_controllers.testing import RosHarness, SteppedManager


@pytest.fixture
def harness():
    with RosHarness('release_transaction') as h:
        yield h


@pytest.fixture
def stepped(harness):
    made = []

    def make(urdf, **kwargs):
        sm = SteppedManager(harness, urdf, **kwargs)
        made.append(sm)
        return sm

    yield make
    for sm in made:
        sm.shutdown()


KINDS = ['position', 'velocity', 'effort', 'acceleration', 'torque', 'current', 'force']


def test_released_torque_current_and_force_commands_go_to_zero(stepped):
    sm = stepped(generic_robot({'j1': KINDS[1:]}))
    m = sm.manager
    start(m, 'pushing', interfaces=[f'j1/{k}' for k in KINDS[1:]], value=1.5)
    sm.step(3)
    assert all(sm.command(f'j1/{k}') == 1.5 for k in KINDS[1:])
    ok, msg = m.switch_controller([], ['pushing'], STRICT)
    assert ok, msg
    sm.step(3)
    # velocity, effort, acceleration held 0 before; torque, current and force kept 1.5
    assert {k: sm.command(f'j1/{k}') for k in KINDS[1:]} == dict.fromkeys(KINDS[1:], 0.0)
    assert check_invariants(m) == []


def test_a_controller_whose_on_deactivate_fails_no_longer_runs_and_its_commands_hold(stepped):
    sm = stepped(generic_robot({'j1': ['velocity']}))
    m = sm.manager
    recorder = InvariantRecorder(m)
    stubborn = start(m, 'stubborn', 'Scripted', interfaces=['j1/velocity'], value=1.5)
    sm.step(2)
    stubborn.results['on_deactivate'] = False  # FAILURE
    ok, msg = m.switch_controller([], ['stubborn'], STRICT)
    assert ok, msg
    updates = stubborn.updates
    sm.step(5)
    assert stubborn.updates == updates  # out of the update table, whatever the hook said
    assert sm.command('j1/velocity') == 0.0  # the hold, not 1.5 again
    assert m.state_of('stubborn') == S.ACTIVE  # in its lifecycle, as upstream leaves it
    assert not m.is_running('stubborn') and 'j1/velocity' not in m.rm.claimed
    # a second controller can claim the interface; the stubborn one cannot come back as is
    start(m, 'other', interfaces=['j1/velocity'], value=0.2)
    ok, msg = m.switch_controller(['stubborn'], [], STRICT)
    assert not ok and 'deactivate it again' in msg
    # deactivating it again retries its on_deactivate
    stubborn.results['on_deactivate'] = CallbackReturn.SUCCESS
    ok, msg = m.switch_controller([], ['stubborn'], STRICT)
    assert ok, msg
    sm.step(2)
    assert m.state_of('stubborn') == S.INACTIVE and sm.command('j1/velocity') == 0.2
    assert check_invariants(m, recorder) == []


@pytest.mark.parametrize('value', [10**400, -(10**400)], ids=['10**400', '-10**400'])
def test_a_huge_int_takes_out_its_controller_only_and_the_loop_runs_on(stepped, value):
    sm = stepped(generic_robot({'j1': ['velocity'], 'j2': ['velocity']}))
    m = sm.manager
    recorder = InvariantRecorder(m)
    wild = start(m, 'wild', 'AnyValue', interfaces=['j1/velocity'])
    calm = start(m, 'calm', interfaces=['j2/velocity'], value=0.3)
    wild.value = value
    sm.step(3)  # raised OverflowError out of the command guard before: the loop ended
    assert not m.is_running('wild') and m.is_running('calm')
    assert sm.command('j1/velocity') == 0.0 and sm.command('j2/velocity') == 0.3
    updates = calm.updates
    sm.step(2)
    assert calm.updates == updates + 2
    assert check_invariants(m, recorder) == []


def test_numbers_reach_write_as_finite_floats(stepped):
    sm = stepped(generic_robot({'j1': ['velocity'], 'j2': ['velocity']}))
    m = sm.manager
    recorder = InvariantRecorder(m)
    a = start(m, 'ints', 'AnyValue', interfaces=['j1/velocity'])
    b = start(m, 'numpy', 'AnyValue', interfaces=['j2/velocity'])
    a.value, b.value = 2, np.float64(0.25)
    sm.step(2)
    assert type(sm.command('j1/velocity')) is float and sm.command('j1/velocity') == 2.0
    assert type(sm.command('j2/velocity')) is float and sm.command('j2/velocity') == 0.25
    assert m.is_running('ints') and m.is_running('numpy')
    assert check_invariants(m, recorder) == []


def test_a_released_position_without_a_finite_measurement_holds_a_finite_value(stepped):
    # j1 has no position state at all; the controller never wrote a finite value
    sm = stepped(generic_robot({'j1': ['position']}, states=()))
    m = sm.manager
    nan = start(m, 'nan', 'AnyValue', interfaces=['j1/position'])
    nan.value = math.nan
    sm.step(2)
    assert m.switch_controller([], ['nan'], STRICT)[0]
    sm.step(1)
    assert sm.command('j1/position') == 0.0  # NaN before: "no finite measurement"
    assert check_invariants(m) == []


def test_a_numpy_measurement_is_what_a_released_position_holds(stepped):
    sm = stepped(generic_robot({'j1': ['position']}))
    m = sm.manager
    start(m, 'holding', interfaces=['j1/position'], value=0.9)
    sm.step(2)
    m.rm.state_interfaces['j1/position'].value = np.float64(0.7)  # a driver's numpy state
    assert m.switch_controller([], ['holding'], STRICT)[0]
    sm.step(1)
    # the hold took the numpy value for "not finite" and kept the last command (0.9) before
    assert sm.command('j1/position') == 0.7 and type(sm.command('j1/position')) is float


def test_a_fallbacks_first_commands_pass_the_guard(stepped):
    sm = stepped(generic_robot({'j1': ['velocity']}))
    m = sm.manager
    recorder = InvariantRecorder(m)
    rescue = load(m, 'rescue', 'Scripted', interfaces=['j1/velocity'], value=0.0)
    rescue.on_activate_writes = math.inf  # its first command, written in on_activate
    failing = start(m, 'failing', 'Scripted', fallbacks=['rescue'], interfaces=['j1/velocity'])
    failing.results['update'] = 'not a return type'
    sm.step(1)  # failing out, rescue in: its on_activate's inf went straight to write()
    assert not m.is_running('failing')
    assert check_invariants(m, recorder) == []  # 'finite': write() never saw inf
    assert not m.is_running('rescue')  # and it is taken out for writing it


def test_unloading_a_controller_cannot_race_the_loops_fallback_activation(stepped):
    sm = stepped(generic_robot({'j1': ['velocity']}))
    m = sm.manager
    spare = load(m, 'spare', 'Scripted', interfaces=['j1/velocity'], value=0.0)
    failing = start(m, 'failing', 'Scripted', fallbacks=['spare'], interfaces=['j1/velocity'])

    def the_loop_fails_now():  # runs while unload cleans `spare` up, outside the cycle lock
        failing.results['update'] = 'not a return type'
        sm.step(1)

    spare.results['during_cleanup'] = the_loop_fails_now
    ok, msg = m.unload_controller('spare')
    assert ok, msg
    # before: the loop activated the controller being unloaded, then it was destroyed while
    # running, its claims left behind
    assert 'spare' not in m.controllers and not m.is_running('failing')
    assert 'j1/velocity' not in m.rm.claimed
    sm.step(1)
    assert check_invariants(m) == []


def test_taking_a_component_down_starts_no_fallback_on_it(stepped):
    sm = stepped(generic_robot({'j1': ['velocity']}))
    m = sm.manager
    load(m, 'spare', interfaces=['j1/velocity'], value=0.7)
    start(m, 'driving', fallbacks=['spare'], interfaces=['j1/velocity'], value=0.2)
    sm.step(2)
    ok, state = m.set_hardware_component_state('Gen', S.INACTIVE, timeout_s=10.0)
    assert ok and state == S.INACTIVE
    sm.step(2)
    # before: 'spare' was activated on the component going down
    assert not m.is_running('spare') and m.state_of('spare') == S.INACTIVE
    assert check_invariants(m) == []


def test_a_second_switch_cannot_act_on_a_plan_the_loop_changed(stepped):
    sm = stepped(generic_robot({'j1': ['velocity'], 'j2': ['velocity']}))
    m = sm.manager
    load(m, 'spare', interfaces=['j1/velocity'], value=0.0)
    failing = start(m, 'failing', 'Scripted', fallbacks=['spare'], interfaces=['j1/velocity'])
    failing.results['update'] = 'not a return type'
    # the plan is made, then the loop fails `failing` and starts `spare` before the switch
    # takes the cycle lock: the switch finds its plan changed and does nothing
    import py_controllers.controller_manager.manager as manager_module

    real = manager_module.SwitchPlan.validate
    calls = []

    def validate_then_cycle(plan, *, strict):
        error = real(plan, strict=strict)
        if not calls:
            calls.append(1)
            sm.step(1)
        return error

    manager_module.SwitchPlan.validate = validate_then_cycle
    try:
        ok, msg = m.switch_controller(['spare'], ['failing'], STRICT)
    finally:
        manager_module.SwitchPlan.validate = real
    assert not ok and 'changed state during the switch' in msg
    assert m.is_running('spare')  # the loop's fallback, untouched
    assert check_invariants(m) == []


def test_a_released_interface_keeps_its_hold_whatever_writes_to_it_later(stepped):
    # a controller that kept its handle and writes from a callback after its release (or
    # any other stray writer): the guard puts the hold back before every write()
    sm = stepped(generic_robot({'j1': ['velocity']}))
    m = sm.manager
    recorder = InvariantRecorder(m)
    start(m, 'leaving', interfaces=['j1/velocity'], value=0.8)
    sm.step(2)
    kept = m.rm.command_interfaces['j1/velocity']  # what a controller could keep
    assert m.switch_controller([], ['leaving'], STRICT)[0]
    kept.value = 1.7  # e.g. a subscription callback of the released controller
    sm.step(1)
    assert sm.command('j1/velocity') == 0.0
    assert check_invariants(m, recorder) == []
