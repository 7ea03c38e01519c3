"""The URDF joint model: joints in document order, their kinds, limits, mimic, errors."""

from __future__ import annotations

import math

import pytest
from urdf_samples import SYSTEM, robot

from py_controllers.hardware_interface.errors import UrdfError
from py_controllers.hardware_interface.urdf import Mimic, parse_urdf, parse_urdf_joints


def test_urdf_joints_in_document_order() -> None:
    model = parse_urdf(robot())
    assert model.name == 'test_robot'
    expected = ['joint1', 'joint2', 'joint3', 'finger_mimic', 'base_to_sensor']
    assert model.joint_names == expected
    assert list(parse_urdf_joints(robot())) == expected
    assert model.links == ['l0', 'l1', 'l2', 'l3', 'l4', 'l5']


def test_urdf_revolute_joint() -> None:
    joint = parse_urdf_joints(robot())['joint1']
    assert (joint.type, joint.parent, joint.child) == ('revolute', 'l0', 'l1')
    assert joint.axis == (0.0, 0.0, 1.0)
    assert joint.origin_xyz == (0.0, 0.0, 0.1)
    assert joint.origin_rpy == (0.0, 0.0, 1.5)
    limits = joint.limits
    assert (limits.lower, limits.upper, limits.velocity, limits.effort) == (-1.5, 2.5, 3.0, 40.0)
    assert limits.has_position_limits is True
    assert joint.mimic is None
    assert joint.is_movable is True


def test_urdf_continuous_joint_has_no_position_limits() -> None:
    joint = parse_urdf_joints(robot())['joint2']
    assert joint.type == 'continuous'
    # lower/upper in the URDF are ignored; velocity is a magnitude: |-6| = 6
    assert joint.limits.has_position_limits is False
    assert (joint.limits.lower, joint.limits.upper) == (-math.inf, math.inf)
    assert joint.limits.velocity == pytest.approx(6.0, abs=1e-12)
    assert joint.limits.angle_wraparound is True
    assert joint.axis == (1.0, 0.0, 0.0)  # URDF default axis


def test_urdf_prismatic_and_mimic_joints() -> None:
    joints = parse_urdf_joints(robot())
    prismatic = joints['joint3']
    assert prismatic.type == 'prismatic'
    assert (prismatic.limits.lower, prismatic.limits.upper) == (0.0, 0.4)
    assert prismatic.limits.velocity == pytest.approx(0.2, abs=1e-12)
    assert joints['finger_mimic'].mimic == Mimic('joint3', 2.0, 0.01)
    assert joints['base_to_sensor'].type == 'fixed'
    assert joints['base_to_sensor'].is_movable is False


def test_urdf_mimic_defaults() -> None:
    joints = parse_urdf_joints(
        robot(
            joints='<joint name="a" type="revolute"><parent link="l0"/><child link="l1"/>'
            '<limit lower="-1" upper="1" velocity="1" effort="1"/></joint>'
            '<joint name="b" type="revolute"><parent link="l1"/><child link="l2"/>'
            '<limit lower="-1" upper="1" velocity="1" effort="1"/><mimic joint="a"/></joint>'
        )
    )
    assert joints['b'].mimic == Mimic('a', 1.0, 0.0)


def test_urdf_joints_inside_ros2_control_are_not_urdf_joints() -> None:
    joints = parse_urdf_joints(robot(SYSTEM))
    assert 'ft_sensor' not in joints
    assert len(joints) == 5


def test_urdf_revolute_without_limit_tag_is_unbounded() -> None:
    joint = parse_urdf_joints(
        robot(
            joints='<joint name="a" type="revolute"><parent link="l0"/><child link="l1"/></joint>'
        )
    )['a']
    assert joint.limits.has_position_limits is False
    assert joint.limits.has_velocity_limits is False


@pytest.mark.parametrize(
    ('joints', 'message'),
    [
        ('<joint type="fixed"><parent link="l0"/><child link="l1"/></joint>', "no 'name'"),
        ('<joint name="a" type="ball"><parent link="l0"/><child link="l1"/></joint>', 'ball'),
        ('<joint name="a" type="fixed"><child link="l1"/></joint>', 'missing <parent'),
        (
            '<joint name="a" type="revolute"><parent link="l0"/><child link="l1"/>'
            '<limit lower="x" upper="1"/></joint>',
            "joint 'a': limit lower 'x' is not a finite number",
        ),
        (
            '<joint name="a" type="revolute"><parent link="l0"/><child link="l1"/>'
            '<axis xyz="0 1"/></joint>',
            "joint 'a': axis xyz '0 1' needs three numbers",
        ),
        (
            '<joint name="a" type="revolute"><parent link="l0"/><child link="l1"/>'
            '<mimic multiplier="2"/></joint>',
            "joint 'a': <mimic> has no 'joint' attribute",
        ),
        (
            '<joint name="a" type="fixed"><parent link="l0"/><child link="l1"/></joint>' * 2,
            "joint 'a' is defined twice",
        ),
    ],
)
def test_urdf_errors(joints: str, message: str) -> None:
    with pytest.raises(UrdfError) as caught:
        parse_urdf(robot(joints=joints))
    assert message in str(caught.value)


def test_urdf_root_must_be_robot() -> None:
    with pytest.raises(UrdfError, match='expected <robot>'):
        parse_urdf('<sdf/>')


def test_safety_controller_needs_k_velocity() -> None:
    urdf = (
        '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute">'
        '<parent link="a"/><child link="b"/><limit lower="-1" upper="1" velocity="1" effort="1"/>'
        '<safety_controller soft_lower_limit="-0.5" soft_upper_limit="0.5" k_position="10"/>'
        '</joint></robot>'
    )
    with pytest.raises(UrdfError, match="joint 'j': <safety_controller> has no k_velocity"):
        parse_urdf_joints(urdf)
