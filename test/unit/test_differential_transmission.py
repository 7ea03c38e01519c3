"""DifferentialTransmission against the numbers of upstream's
differential_transmission_test.cpp, re-expressed."""

from __future__ import annotations

import math

import pytest
from transmission_samples import bad_configurations, mapped, quad, round_trips

from py_controllers.transmission_interface import (
    HW_IF_ABSOLUTE_POSITION,
    ActuatorHandle,
    DifferentialTransmission,
    JointHandle,
    TransmissionError,
)

INTERFACES = ['position', 'velocity', 'effort', 'torque', 'force', HW_IF_ABSOLUTE_POSITION]
GOOD = [1.0, 1.0]
ZERO_REDUCTIONS = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]


# --- parameters ---------------------------------------------------------------------------
@pytest.mark.parametrize('bad', ZERO_REDUCTIONS)
@pytest.mark.parametrize('offset', [None, [1.0, 1.0]])
def test_zero_reductions_refused(bad, offset) -> None:
    extra = [] if offset is None else [offset]
    with pytest.raises(TransmissionError, match='cannot be zero'):
        DifferentialTransmission(bad, GOOD, *extra)
    with pytest.raises(TransmissionError, match='cannot be zero'):
        DifferentialTransmission(GOOD, bad, *extra)


def test_wrong_sizes_refused_and_good_ones_accepted() -> None:
    for args in ([[1.0], GOOD], [GOOD, [1.0]], [GOOD, GOOD, [1.0]]):
        with pytest.raises(TransmissionError, match='must have size 2'):
            DifferentialTransmission(*args)
    DifferentialTransmission(GOOD, GOOD)
    DifferentialTransmission(GOOD, GOOD, [1.0, 1.0])


def test_accessors() -> None:
    trans = DifferentialTransmission([2.0, -2.0], [4.0, -4.0], [1.0, -1.0])
    assert (trans.num_actuators(), trans.num_joints()) == (2, 2)
    assert trans.get_actuator_reduction() == [2.0, -2.0]
    assert trans.get_joint_reduction() == [4.0, -4.0]
    assert trans.get_joint_offset() == [1.0, -1.0]
    assert trans.get_supported_joint_interfaces() == INTERFACES
    assert trans.get_supported_actuator_interfaces() == INTERFACES


# --- configure() --------------------------------------------------------------------------
@pytest.mark.parametrize('interface', INTERFACES)
def test_configure_refuses_bad_handles(interface: str) -> None:
    for joints, actuators, message in bad_configurations(interface):
        with pytest.raises(TransmissionError) as caught:
            DifferentialTransmission(GOOD, GOOD).configure(joints, actuators)
        assert message in str(caught.value), (joints, actuators)


def test_an_interface_of_one_joint_only_is_refused() -> None:
    joints, actuators = quad('position', (0.0, 0.0))
    lone = JointHandle('joint1', 'velocity', 0.0)
    with pytest.raises(
        TransmissionError, match=r"not enough valid joint velocity handles: \['joint1'\]"
    ):
        DifferentialTransmission(GOOD, GOOD).configure([*joints, lone], actuators)


def test_one_interface_on_both_sides_is_enough() -> None:
    joints, actuators = quad('position', (4.0, 2.0))
    forces = [ActuatorHandle(f'act{i}', 'force', 0.0) for i in (1, 2)]
    trans = DifferentialTransmission(GOOD, GOOD)
    trans.configure(joints, [*actuators, *forces])  # no joint force: forces are left alone
    trans.actuator_to_joint()
    assert [j.value for j in joints] == [3.0, 1.0]


def test_no_interface_on_both_sides_is_refused() -> None:
    joints, _ = quad('position', (0.0, 0.0))
    _, forces = quad('force', (0.0, 0.0))
    with pytest.raises(TransmissionError, match='no pair-wise interface'):
        DifferentialTransmission(GOOD, GOOD).configure(joints, forces)


# --- the maps -----------------------------------------------------------------------------
def test_round_trips_are_identity() -> None:
    assert round_trips(DifferentialTransmission, INTERFACES[:5]) == 30 * 10 * 5


def expected(position_like, velocity, effort_like):
    return {
        'position': position_like,
        HW_IF_ABSOLUTE_POSITION: position_like,
        'velocity': velocity,
        'effort': effort_like,
        'torque': effort_like,
        'force': effort_like,
    }


CASES = {
    # name: (actuator reductions, joint reductions, joint offsets, actuator values, joints)
    'dont_move_joints': ([10, 10], [2, 2], [1, 1], (0, 0), expected([1, 1], [0, 0], [0, 0])),
    'move_first_joint_only': (
        [10, 10], [2, 2], [0, 0], (10, 10), expected([0.5, 0], [0.5, 0], [400, 0])
    ),
    'move_second_joint_only': (
        [10, 10], [2, 2], [0, 0], (10, -10), expected([0, 0.5], [0, 0.5], [0, 400])
    ),
    'move_both_joints': (
        [10, -20], [-2, 4], [-2, 4], (3, 5),
        expected([-2.0125, 4.06875], [-0.0125, 0.06875], [140, 520]),
    ),
}  # fmt: skip


@pytest.mark.parametrize('case', CASES)
@pytest.mark.parametrize('interface', INTERFACES)
def test_actuator_to_joint(case: str, interface: str) -> None:
    ar, jr, offset, actuators, joints = CASES[case]
    trans = DifferentialTransmission(ar, jr, offset)
    assert mapped(trans, interface, actuators) == pytest.approx(joints[interface], abs=1e-9)


def test_joint_to_actuator_move_both_joints() -> None:
    trans = DifferentialTransmission([10, -20], [-2, 4], [-2, 4])
    for interface, joint_values in (
        ('position', (-2.0125, 4.06875)),
        ('velocity', (-0.0125, 0.06875)),
        ('effort', (140, 520)),
    ):
        joints, actuators = quad(interface, joints=joint_values)
        trans.configure(joints, actuators)
        trans.joint_to_actuator()
        assert [a.value for a in actuators] == pytest.approx([3, 5]), interface


def test_joint_1_is_the_first_handle_given_not_the_first_name() -> None:
    """Upstream sorts the names ('wrist_pitch' < 'wrist_roll'); here the order given is kept,
    the order the loader reads the reductions in."""
    trans = DifferentialTransmission([1, 1], [1, 2])
    joints = [JointHandle('wrist_roll', 'velocity', 0.0), JointHandle('wrist_pitch', 'velocity')]
    actuators = [ActuatorHandle('m1', 'velocity', 4.0), ActuatorHandle('m2', 'velocity', 0.0)]
    trans.configure(joints, actuators)
    trans.actuator_to_joint()
    # roll = (4 + 0) / (2 * 1) = 2; pitch = (4 - 0) / (2 * 2) = 1
    assert [j.value for j in joints] == [2.0, 1.0]


def test_nan_is_mapped_as_a_value_as_upstream() -> None:
    trans = DifferentialTransmission(GOOD, GOOD)
    values = mapped(trans, 'position', (math.nan, 1.0))
    assert all(math.isnan(v) for v in values)  # both joints depend on actuator 1
