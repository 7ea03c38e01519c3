"""Counterexamples the model-based search (faults/manager_model.py) found, kept as named
tests: each replays the shrunk sequence Hypothesis printed, on the model's robot, and
checks the invariants (and what the sequence broke) after it."""

from __future__ import annotations

import pytest

from faults.manager_model import ManagerModel, _fail_once
from py_controllers.controller_manager.invariants import check_invariants
from py_controllers.hardware_interface.types import LifecycleStateId as S
from py_controllers.hardware_interface.types import ReturnType


@pytest.fixture
def model():
    machine = ManagerModel()
    yield machine
    machine.teardown()


def test_configuring_again_after_a_refused_cleanup_fails_cleanly(model):
    # some_controllers(groups=[['a1/position'], ['a1/position']]); hook_fault(c1,
    # on_cleanup, failure); configure(c1): raised "no transition from inactive to inactive"
    model._load('c0', ['a1/position'], [], configure=True)
    model._load('c1', ['a1/position'], [], configure=True)
    model.cm.controllers['c1'].controller.hooks['on_cleanup'] = 'failure'
    ok, msg = model.cm.configure_controller('c1')
    assert not ok and 'failed to clean up' in msg
    assert model.cm.state_of('c1') == S.INACTIVE and not model.cm.controllers['c1'].busy
    model.cm.controllers['c1'].controller.hooks['on_cleanup'] = 'ok'
    assert model.cm.configure_controller('c1')[0]  # and it can be configured again
    model.step()
    assert check_invariants(model.cm, model.recorder) == []


def test_a_mode_switch_one_component_refuses_leaves_no_other_in_the_new_mode(model):
    # some_controllers(groups=[['a1/position'], ['joint1/position', 'joint2/effort']]);
    # hardware_fault(Arm, perform, error); switch(activate=[c0, c1], BEST_EFFORT): MuJoCo
    # had switched its joints to position and effort drives with nobody claiming them
    model._load('c0', ['a1/position'], [], configure=True)
    model._load('c1', ['joint1/position', 'joint2/effort'], [], configure=True)
    _fail_once(model.cm.rm.components['Arm'].component, 'perform_command_mode_switch', 'error')
    ok, msg = model.cm.switch_controller(['c0', 'c1'], [], 1)
    assert not ok and 'failed to switch command mode' in msg
    modes = model.cm.rm.components['Mj'].component.command_modes()
    assert not any(modes.values()), modes  # every joint back on its hold drive
    model.step()
    assert check_invariants(model.cm, model.recorder) == []


def test_a_controller_that_failed_to_activate_leaves_the_mujoco_joints_on_their_hold(model):
    # the same hole through the controller: its on_activate fails after the hardware
    # switched (ros2_control's activate_controllers switches the interfaces back too)
    model._load('c1', ['joint1/position', 'joint2/effort'], [], configure=True)
    model.cm.controllers['c1'].controller.hooks['on_activate'] = 'failure'
    ok, _ = model.cm.switch_controller(['c1'], [], 2)
    assert not ok
    modes = model.cm.rm.components['Mj'].component.command_modes()
    assert not any(modes.values()), modes
    model.step()
    assert check_invariants(model.cm, model.recorder) == []


def refusing_stops(component, times: int | None) -> list[list[str]]:
    """The component's perform refuses every switch that stops an interface it does not
    start again, `times` times (None: always); the stops it refused."""
    original, refused = component.perform_command_mode_switch, []

    def perform(start, stop):
        if set(stop) - set(start) and (times is None or len(refused) < times):
            refused.append(list(stop))
            return ReturnType.ERROR
        return original(start, stop)

    component.perform_command_mode_switch = perform
    return refused


WHEELS = ['w_left/velocity', 'w_right/velocity']


def test_a_mode_stop_the_hardware_refuses_is_owed_and_asked_again_each_cycle(model):
    # the long search (seed 535591058): c0 on the diff drive wheels wrote 'str', was taken
    # out in the loop, and Base refused to stop their velocity mode: Base stayed driven by
    # the unclaimed wheels (at their holds, 0) and nothing ever asked it again
    model._load('c0', WHEELS, [], configure=True)
    assert model.cm.switch_controller(['c0'], [], 1)[0]
    model.step()
    rm, base = model.cm.rm, model.cm.rm.components['Base'].component
    refused = refusing_stops(base, 2)
    model.cm.controllers['c0'].controller.write = 'str'
    model.step()  # taken out in the loop; Base refuses, and again when asked before write
    assert not model.cm.is_running('c0') and len(refused) == 2
    assert rm.owed_stops == {'Base': set(WHEELS)}
    assert base.command_modes() == dict.fromkeys(WHEELS, True)
    assert [rm.command_interfaces[w].value for w in WHEELS] == [0.0, 0.0]  # held meanwhile
    assert check_invariants(model.cm, model.recorder) == []
    model.step()  # asked a third time: accepted
    assert len(refused) == 2 and rm.owed_stops == {}
    assert base.command_modes() == dict.fromkeys(WHEELS, False)
    assert check_invariants(model.cm, model.recorder) == []


def test_an_owed_stop_ends_when_the_interfaces_are_claimed_again_not_when_the_hardware_stops(model):
    model._load('c0', WHEELS, [], configure=True)
    model._load('c1', WHEELS, [], configure=True)
    assert model.cm.switch_controller(['c0'], [], 1)[0]
    rm, base = model.cm.rm, model.cm.rm.components['Base'].component
    refused = refusing_stops(base, None)
    assert model.cm.switch_controller(['c1'], ['c0'], 1)[0]  # stops nothing: c1 takes them
    ok, message = model.cm.switch_controller([], ['c1'], 1)  # refused: c1 goes all the same
    assert not ok and 'failed to switch command mode' in message
    assert not model.cm.is_running('c1')
    for _ in range(3):
        model.step()
        assert rm.owed_stops == {'Base': set(WHEELS)}
        assert check_invariants(model.cm, model.recorder) == []
    count = len(refused)
    assert model.cm.switch_controller(['c0'], [], 1)[0]  # claimed again: nothing owed
    model.step()
    assert rm.owed_stops == {} and len(refused) == count
    assert not model.cm.switch_controller([], ['c0'], 1)[0]
    count += 2  # the switch's perform, then the release's
    assert rm.owed_stops == {'Base': set(WHEELS)} and len(refused) == count
    ok, _ = model.cm.set_hardware_component_state('Base', S.INACTIVE, timeout_s=10.0)
    assert ok and rm.owed_stops == {'Base': set(WHEELS)}  # owed until it is active again
    model.step()
    assert len(refused) == count and check_invariants(model.cm, model.recorder) == []


def test_an_owed_stop_outlasts_a_deactivation_of_the_hardware(model):
    # the long search (seed 2510690881): 'Arm' going inactive took c0 out, refused to stop
    # a1/position, and was forgotten as owing it; activated again, its joint was still in
    # position mode with nobody claiming it, and nothing asked it again
    model._load('c0', ['a1/position'], [], configure=True)
    assert model.cm.switch_controller(['c0'], [], 1)[0]
    model.step()
    rm, arm = model.cm.rm, model.cm.rm.components['Arm'].component
    refused = refusing_stops(arm, 1)
    ok, _ = model.cm.set_hardware_component_state('Arm', S.INACTIVE, timeout_s=10.0)
    assert ok and not model.cm.is_running('c0') and refused == [['a1/position']]
    for _ in range(3):  # not asked while inactive: its mode outlasts the deactivation
        model.step()
        assert rm.owed_stops == {'Arm': {'a1/position'}} and len(refused) == 1
        assert arm.command_modes()['a1/position']
    ok, _ = model.cm.set_hardware_component_state('Arm', S.ACTIVE, timeout_s=10.0)
    assert ok
    model.step()  # active again: asked again, and accepted
    assert rm.owed_stops == {} and not arm.command_modes()['a1/position']
    assert check_invariants(model.cm, model.recorder) == []


@pytest.mark.parametrize('strictness', [1, 2])
@pytest.mark.parametrize('interface', ['a1/position', 'joint1/position'])
@pytest.mark.parametrize(
    ('outcome', 'left', 'reason'),
    [
        ('failure', S.ACTIVE, 'still active in its lifecycle'),
        ('error', S.UNCONFIGURED, 'configure it before activating'),
    ],
)
def test_a_restart_whose_deactivation_failed_does_not_run_the_controller_again(
    model, interface, strictness, outcome, left, reason
):
    # some_controllers(groups=[['a1/position']]); switch(activate=[c0]); hook_fault(c0,
    # on_deactivate, failure); restart(c0): the activation found c0 still ACTIVE in its
    # lifecycle ("no transition from active to active"), skipped its on_activate and put it
    # back in the update table, and the switch said 'switched'. With ERROR (on_error: c0
    # unconfigured) the activation raised "no transition from unconfigured to active"
    # instead (it failed, with that for a reason). joint1: MuJoCo's, mode-aware.
    model._load('c0', [interface], [], configure=True)
    assert model.cm.switch_controller(['c0'], [], 2)[0]
    model.step()
    model.cm.controllers['c0'].controller.hooks['on_deactivate'] = outcome
    ok, msg = model.cm.switch_controller(['c0'], ['c0'], strictness)
    assert ok == (strictness == 1) and reason in msg, msg
    assert not model.cm.is_running('c0') and model.cm.state_of('c0') == left
    assert model.cm.rm.claimed == {}
    assert not any(model.cm.rm.components['Mj'].component.command_modes().values())
    model.step()
    assert check_invariants(model.cm, model.recorder) == []
    # as the reason says: deactivate it again (on_deactivate again) or configure it; then
    # it can be activated as usual
    if left == S.ACTIVE:
        assert model.cm.switch_controller([], ['c0'], 2)[0]
    else:
        assert model.cm.configure_controller('c0')[0]
    assert model.cm.state_of('c0') == S.INACTIVE
    assert model.cm.switch_controller(['c0'], [], 2)[0] and model.cm.is_running('c0')
    model.step()
    assert check_invariants(model.cm, model.recorder) == []
