"""FourBarLinkageTransmission against the numbers of upstream's
four_bar_linkage_transmission_test.cpp, re-expressed."""

from __future__ import annotations

import math

import pytest
from transmission_samples import bad_configurations, mapped, quad, round_trips

from py_controllers.transmission_interface import (
    ActuatorHandle,
    FourBarLinkageTransmission,
    JointHandle,
    TransmissionError,
)

INTERFACES = ['position', 'velocity', 'effort']
GOOD = [1.0, 1.0]


@pytest.mark.parametrize('bad', [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
@pytest.mark.parametrize('offset', [None, [1.0, 1.0]])
def test_zero_reductions_refused(bad, offset) -> None:
    extra = [] if offset is None else [offset]
    with pytest.raises(TransmissionError, match='cannot be zero'):
        FourBarLinkageTransmission(bad, GOOD, *extra)
    with pytest.raises(TransmissionError, match='cannot be zero'):
        FourBarLinkageTransmission(GOOD, bad, *extra)


def test_wrong_sizes_refused_and_good_ones_accepted() -> None:
    for args in ([[1.0], GOOD], [GOOD, [1.0]], [GOOD, GOOD, [1.0]]):
        with pytest.raises(TransmissionError, match='must have size 2'):
            FourBarLinkageTransmission(*args)
    FourBarLinkageTransmission(GOOD, GOOD)
    FourBarLinkageTransmission(GOOD, GOOD, [1.0, 1.0])


def test_accessors() -> None:
    trans = FourBarLinkageTransmission([2.0, -2.0], [4.0, -4.0], [1.0, -1.0])
    assert (trans.num_actuators(), trans.num_joints()) == (2, 2)
    assert trans.get_actuator_reduction() == [2.0, -2.0]
    assert trans.get_joint_reduction() == [4.0, -4.0]
    assert trans.get_joint_offset() == [1.0, -1.0]
    assert trans.get_supported_joint_interfaces() == INTERFACES
    assert trans.get_supported_actuator_interfaces() == INTERFACES


@pytest.mark.parametrize('interface', INTERFACES)
def test_configure_refuses_bad_handles(interface: str) -> None:
    for joints, actuators, message in bad_configurations(interface):
        with pytest.raises(TransmissionError) as caught:
            FourBarLinkageTransmission(GOOD, GOOD).configure(joints, actuators)
        assert message in str(caught.value), (joints, actuators)


def test_torque_is_not_a_four_bar_interface() -> None:
    joints, actuators = quad('torque', (0.0, 0.0))
    with pytest.raises(TransmissionError, match='no pair-wise interface'):
        FourBarLinkageTransmission(GOOD, GOOD).configure(joints, actuators)


def test_an_interface_of_one_joint_only_is_refused() -> None:
    """Upstream's four-bar would accept it and map nothing for it; its differential refuses."""
    joints, actuators = quad('position', (0.0, 0.0))
    lone = JointHandle('joint2', 'effort', 0.0)
    with pytest.raises(TransmissionError, match='not enough valid joint effort handles'):
        FourBarLinkageTransmission(GOOD, GOOD).configure([*joints, lone], actuators)


def test_no_interface_on_both_sides_is_refused() -> None:
    """Upstream accepts joints with positions and actuators with velocities, mapping nothing."""
    joints, _ = quad('position', (0.0, 0.0))
    velocities = [ActuatorHandle(f'act{i}', 'velocity', 0.0) for i in (1, 2)]
    with pytest.raises(TransmissionError, match='no pair-wise interface'):
        FourBarLinkageTransmission(GOOD, GOOD).configure(joints, velocities)


def test_round_trips_are_identity() -> None:
    assert round_trips(FourBarLinkageTransmission, INTERFACES) == 30 * 10 * 3


CASES = [
    # actuator reductions, joint reductions, offsets, interface, actuator values, joint values
    ([10, 10], [2, 2], [1, 1], 'effort', (0, 0), [0, 0]),
    ([10, 10], [2, 2], [1, 1], 'velocity', (0, 0), [0, 0]),
    ([10, 10], [2, 2], [1, 1], 'position', (0, 0), [1, 1]),
    ([10, 10], [2, 2], [0, 0], 'effort', (5, 10), [200, 200]),  # first joint only
    ([10, 10], [2, 2], [0, 0], 'velocity', (10, 5), [0.5, 0]),
    ([10, 10], [2, 2], [0, 0], 'position', (10, 5), [0.5, 0]),
    ([10, 10], [2, 2], [0, 0], 'effort', (0, 10), [100, 200]),  # second joint only
    ([10, 10], [2, 2], [0, 0], 'velocity', (0, 10), [0, 0.5]),
    ([10, 10], [2, 2], [0, 0], 'position', (0, 10), [0, 0.5]),
    ([10, -20], [-2, 4], [-2, 4], 'effort', (3, 5), [-160, -400]),  # both joints
    ([10, -20], [-2, 4], [-2, 4], 'velocity', (3, 5), [-0.15, -0.025]),
    ([10, -20], [-2, 4], [-2, 4], 'position', (3, 5), [-2.15, 3.975]),
]


@pytest.mark.parametrize(('ar', 'jr', 'offset', 'interface', 'actuators', 'joints'), CASES)
def test_actuator_to_joint(ar, jr, offset, interface, actuators, joints) -> None:
    trans = FourBarLinkageTransmission(ar, jr, offset)
    assert mapped(trans, interface, actuators) == pytest.approx(joints, abs=1e-9)


@pytest.mark.parametrize(('ar', 'jr', 'offset', 'interface', 'actuators', 'joints'), CASES)
def test_joint_to_actuator(ar, jr, offset, interface, actuators, joints) -> None:
    trans = FourBarLinkageTransmission(ar, jr, offset)
    joint_handles, actuator_handles = quad(interface, joints=joints)
    trans.configure(joint_handles, actuator_handles)
    trans.joint_to_actuator()
    assert [a.value for a in actuator_handles] == pytest.approx(actuators, abs=1e-9)


def test_joint_1_depends_on_actuator_1_only() -> None:
    trans = FourBarLinkageTransmission(GOOD, GOOD)
    values = mapped(trans, 'position', (1.0, math.nan))
    assert values[0] == 1.0
    assert math.isnan(values[1])  # NaN is mapped as a value, as upstream
