"""SimpleTransmission against the numbers of upstream's simple_transmission_test.cpp,
re-expressed: one actuator, one joint, reduction n and joint offset."""

from __future__ import annotations

import math

import pytest

from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.transmission_interface import (
    HW_IF_ABSOLUTE_POSITION,
    ActuatorHandle,
    JointHandle,
    SimpleTransmission,
    TransmissionError,
)

INTERFACES = ['position', 'velocity', 'effort', 'torque', 'force', HW_IF_ABSOLUTE_POSITION]


def pair(interface: str, actuator: float = math.nan, joint: float = math.nan):
    return JointHandle('joint1', interface, joint), ActuatorHandle('act1', interface, actuator)


# --- parameters ---------------------------------------------------------------------------
@pytest.mark.parametrize('offset', [0.0, 1.0, -1.0])
def test_zero_reduction_refused(offset: float) -> None:
    with pytest.raises(TransmissionError, match='cannot be zero'):
        SimpleTransmission(0.0, offset)


@pytest.mark.parametrize('bad', [math.nan, math.inf, -math.inf])
def test_non_finite_reduction_or_offset_refused(bad: float) -> None:
    with pytest.raises(TransmissionError, match='finite'):
        SimpleTransmission(bad)
    with pytest.raises(TransmissionError, match='finite'):
        SimpleTransmission(2.0, bad)


@pytest.mark.parametrize(('n', 'offset'), [(1.0, 0.0), (1.0, 1.0), (-1.0, 1.0), (1.0, -1.0)])
def test_valid_parameters_accepted(n: float, offset: float) -> None:
    trans = SimpleTransmission(n, offset)
    assert (trans.get_actuator_reduction(), trans.get_joint_offset()) == (n, offset)


def test_accessors() -> None:
    trans = SimpleTransmission(2.0, -1.0)
    assert (trans.num_actuators(), trans.num_joints()) == (1, 1)
    assert trans.get_actuator_reduction() == 2.0
    assert trans.get_joint_offset() == -1.0
    assert trans.get_supported_joint_interfaces() == INTERFACES
    assert trans.get_supported_actuator_interfaces() == INTERFACES
    assert (trans.get_actuator_position_offset(), trans.get_joint_position_offset()) == (0, 0)


# --- configure() --------------------------------------------------------------------------
def bad_configurations():
    j1, a1 = pair('position', 0.0, 0.0)
    j2, a2 = JointHandle('joint2', 'position', 0.0), ActuatorHandle('act2', 'position', 0.0)
    return [
        ([], [], 'no joint handles'),
        ([j1], [], 'no actuator handles'),
        ([], [a1], 'no joint handles'),
        ([j1], [a1, a2], "must name one actuator, got ['act1', 'act2']"),
        ([j1, j2], [a1], "must name one joint, got ['joint1', 'joint2']"),
        ([None], [a1], 'joint handle #0 is None, not a handle'),
        ([j1], [a1, 0.5], 'actuator handle #1 is 0.5, not a handle'),
        ([JointHandle('joint1', 'current')], [a1], 'no joint handle is one of the interfaces'),
        ([j1], [ActuatorHandle('act1', 'current')], 'no actuator handle is one of'),
    ]


@pytest.mark.parametrize(('joints', 'actuators', 'message'), bad_configurations())
def test_configure_refuses_bad_handles(joints, actuators, message) -> None:
    with pytest.raises(TransmissionError) as caught:
        SimpleTransmission(2.0, -1.0).configure(joints, actuators)
    assert message in str(caught.value)


# --- the maps -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ('interface', 'joint_value'),
    [
        ('effort', 10.0),  # tau_j = n tau_a
        ('velocity', 0.1),  # v_j = v_a / n
        ('position', 1.1),  # x_j = x_a / n + x_off
        ('torque', 10.0),
        ('force', 10.0),
        (HW_IF_ABSOLUTE_POSITION, 1.1),
    ],
)
def test_actuator_to_joint_n10_offset1(interface: str, joint_value: float) -> None:
    trans = SimpleTransmission(10.0, 1.0)
    joint, actuator = pair(interface, actuator=1.0)
    trans.configure([joint], [actuator])
    trans.actuator_to_joint()
    assert joint.value == pytest.approx(joint_value, abs=1e-12)


@pytest.mark.parametrize(
    ('interface', 'joint_value', 'actuator_value'),
    [('effort', 10.0, 1.0), ('velocity', 0.1, 1.0), ('position', 1.1, 1.0)],
)
def test_joint_to_actuator_n10_offset1(interface, joint_value, actuator_value) -> None:
    trans = SimpleTransmission(10.0, 1.0)
    joint, actuator = pair(interface, joint=joint_value)
    trans.configure([joint], [actuator])
    trans.joint_to_actuator()
    assert actuator.value == pytest.approx(actuator_value, abs=1e-12)


def test_absolute_position_is_mapped_actuator_to_joint_only() -> None:
    trans = SimpleTransmission(10.0, 1.0)
    joint, actuator = pair(HW_IF_ABSOLUTE_POSITION, actuator=7.0, joint=2.0)
    trans.configure([joint], [actuator])
    trans.joint_to_actuator()
    assert actuator.value == 7.0  # an encoder reading is never commanded
    trans.actuator_to_joint()
    assert joint.value == pytest.approx(1.7)


@pytest.mark.parametrize(
    ('n', 'offset'), [(10, 0), (-10, 0), (10, 1), (10, -1), (-10, 1), (-10, -1)]
)
@pytest.mark.parametrize('interface', ['position', 'velocity', 'effort', 'torque', 'force'])
@pytest.mark.parametrize('reference', [1.0, 0.0, -1.0])
def test_round_trip_is_identity(n, offset, interface, reference) -> None:
    trans = SimpleTransmission(n, offset)
    joint, actuator = pair(interface, actuator=reference)
    trans.configure([joint], [actuator])
    trans.actuator_to_joint()
    actuator.value = 1337.1337  # joint_to_actuator must write it back
    trans.joint_to_actuator()
    assert actuator.value == pytest.approx(reference, abs=1e-12)


def test_an_interface_on_one_side_only_is_left_alone() -> None:
    trans = SimpleTransmission(10.0, 1.0)
    joint, actuator = pair('position', actuator=1.0)
    joint_velocity = JointHandle('joint1', 'velocity', 13.37)
    trans.configure([joint, joint_velocity], [actuator])
    trans.actuator_to_joint()
    assert (joint.value, joint_velocity.value) == (pytest.approx(1.1), 13.37)
    actuator_velocity = ActuatorHandle('act1', 'velocity', 13.37)
    trans.configure([joint], [actuator, actuator_velocity])
    joint.value = 2.0
    trans.joint_to_actuator()
    assert (actuator.value, actuator_velocity.value) == (pytest.approx(10.0), 13.37)


def test_configure_again_forgets_the_old_handles() -> None:
    trans = SimpleTransmission(2.0)
    old_joint, old_actuator = pair('position', actuator=4.0, joint=0.0)
    trans.configure([old_joint], [old_actuator])
    joint, actuator = pair('velocity', actuator=4.0)
    trans.configure([joint], [actuator])
    trans.actuator_to_joint()
    assert (joint.value, old_joint.value) == (2.0, 0.0)


def test_nan_is_mapped_as_a_value_as_upstream() -> None:
    trans = SimpleTransmission(2.0)
    position, actuator_position = pair('position', actuator=math.nan)
    velocity, actuator_velocity = pair('velocity', actuator=4.0)
    trans.configure([position, velocity], [actuator_position, actuator_velocity])
    trans.actuator_to_joint()
    assert math.isnan(position.value)
    assert velocity.value == 2.0  # the other interface is untouched by the NaN


def test_component_interfaces_serve_as_joint_handles() -> None:
    trans = SimpleTransmission(2.0)
    state, command = StateInterface('joint1', 'position'), CommandInterface('joint1', 'position')
    actuator = ActuatorHandle('act1', 'position', 3.0)
    trans.configure([state], [actuator])
    trans.actuator_to_joint()
    assert state.value == 1.5
    trans.configure([command], [actuator])
    command.value = 1.0
    trans.joint_to_actuator()
    assert actuator.value == 2.0
