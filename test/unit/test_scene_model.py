"""The 3D page's robot model: URDF visuals, forward kinematics with numbers, odometry, meshes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from py_controllers.dashboard.scene_model import (
    drawn_pose,
    hex_color,
    link_poses,
    parse_scene_robot,
    pose_from_xyz_quaternion,
    resolve_mesh,
    root_pose_from_odometry,
    rotation_angle,
    transform,
)
from py_controllers.hardware_interface.errors import UrdfError
from py_controllers.testing import CONFIG


def rz(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def ry(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


@pytest.fixture(scope='module')
def arm():
    return parse_scene_robot((CONFIG / 'arm_robot.urdf').read_text())


@pytest.fixture(scope='module')
def demo():
    return parse_scene_robot((CONFIG / 'demo_robot.urdf').read_text())


def test_revolute_joint_at_half_a_radian_turns_its_child_by_exactly_that(arm) -> None:
    rest = link_poses(arm, {})
    moved = link_poses(arm, {'joint1': 0.5})
    # joint1: base_link -> link1 at z 0.1 about z
    np.testing.assert_allclose(moved['link1'][:3, :3], rz(0.5), atol=1e-12)
    np.testing.assert_allclose(moved['link1'][:3, 3], [0.0, 0.0, 0.1], atol=1e-12)
    assert rotation_angle(rest['link1'], moved['link1']) == pytest.approx(0.5, abs=1e-12)
    assert rotation_angle(rest['base_link'], moved['base_link']) == 0.0
    # every link downstream turns with it, about the same axis
    for link in ('link2', 'link3', 'link6', 'tool0'):
        np.testing.assert_allclose(
            moved[link][:3, :3], rz(0.5) @ rest[link][:3, :3], atol=1e-12, err_msg=link
        )


def test_shoulder_swings_the_elbow_on_a_circle(arm) -> None:
    poses = link_poses(arm, {'joint2': 0.5})
    # link2 at z 0.3 (0.1 + 0.2); link3 0.4 further along link2's z, turned about y by 0.5
    np.testing.assert_allclose(poses['link2'][:3, 3], [0.0, 0.0, 0.3], atol=1e-12)
    np.testing.assert_allclose(
        poses['link3'][:3, 3], [0.4 * math.sin(0.5), 0.0, 0.3 + 0.4 * math.cos(0.5)], atol=1e-12
    )
    np.testing.assert_allclose(poses['link3'][:3, :3], ry(0.5), atol=1e-12)
    # shoulder and elbow add up: tool0 points along Ry(0.5 - 0.2)
    both = link_poses(arm, {'joint2': 0.5, 'joint3': -0.2})
    np.testing.assert_allclose(both['tool0'][:3, :3], ry(0.3), atol=1e-12)


def test_forward_kinematics_agrees_with_pinocchio(demo) -> None:
    pin = pytest.importorskip('pinocchio')
    xml = (CONFIG / 'demo_robot.urdf').read_text()
    model = pin.buildModelFromXML(xml)
    data = model.createData()
    rng = np.random.default_rng(7)
    positions = {name: float(rng.uniform(-1.5, 1.5)) for name in demo.movable}
    q = pin.neutral(model)
    for jid in range(1, model.njoints):
        name, joint = model.names[jid], model.joints[jid]
        value = positions[name]
        if joint.nq == 2:  # continuous: cos, sin
            q[joint.idx_q : joint.idx_q + 2] = [math.cos(value), math.sin(value)]
        else:
            q[joint.idx_q] = value
    pin.framesForwardKinematics(model, data, q)
    ours = link_poses(demo, positions)
    assert set(ours) >= {'base_link', 'link6', 'tool0', 'left_wheel'}
    for link, pose in ours.items():
        frame = model.getFrameId(link, pin.BODY)
        np.testing.assert_allclose(pose, data.oMf[frame].homogeneous, atol=1e-9, err_msg=link)


def test_visuals_shapes_sizes_colours(demo) -> None:
    visuals = {v.key: v for v in demo.visuals}
    base = visuals['base_link/0']
    assert (base.kind, base.size) == ('box', (0.45, 0.30, 0.08))
    np.testing.assert_allclose(base.origin[:3, 3], [0.0, 0.0, 0.05])
    assert base.rgba == (0.2, 0.3, 0.8, 1.0)
    assert hex_color(base.rgba) == '#334ccc'  # 0.3 * 255 = 76.5 rounds to 76 (0x4c)
    caster = visuals['caster/0']
    assert (caster.kind, caster.size) == ('sphere', (0.025,))
    link2 = visuals['link2/0']
    assert link2.rgba == (1.0, 0.5, 0.1, 1.0)  # <material name="orange"/> from the robot's list
    wheel = visuals['left_wheel/0']
    assert (wheel.kind, wheel.size) == ('cylinder', (0.05, 0.03))
    assert 'tool0' not in {v.link for v in demo.visuals}  # no visual, nothing drawn


def test_a_cylinder_is_drawn_along_the_links_z(arm) -> None:
    link1 = next(v for v in arm.visuals if v.link == 'link1')
    assert link1.kind == 'cylinder'
    pose = drawn_pose(link_poses(arm, {'joint1': 0.5})['link1'], link1)
    # three.js's cylinder axis (its y) lies along the URDF's z; the centre 0.1 above joint1
    np.testing.assert_allclose(pose[:3, 1], [0.0, 0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(pose[:3, 3], [0.0, 0.0, 0.2], atol=1e-12)
    box = next(v for v in arm.visuals if v.link == 'link2')
    np.testing.assert_allclose(drawn_pose(np.eye(4), box), box.origin)


def test_prismatic_mimic_and_bad_values() -> None:
    robot = parse_scene_robot(
        """<robot name="r">
          <link name="a"/><link name="b"/><link name="c"/>
          <joint name="slide" type="prismatic"><parent link="a"/><child link="b"/>
            <axis xyz="0 0 2"/><limit lower="0" upper="1" effort="1" velocity="1"/></joint>
          <joint name="follow" type="prismatic"><parent link="b"/><child link="c"/>
            <axis xyz="1 0 0"/><mimic joint="slide" multiplier="-2" offset="0.1"/>
            <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
        </robot>"""
    )
    assert robot.root == 'a'
    poses = link_poses(robot, {'slide': 0.25})
    np.testing.assert_allclose(poses['b'][:3, 3], [0.0, 0.0, 0.25])  # axis normalised
    np.testing.assert_allclose(poses['c'][:3, 3], [-0.4, 0.0, 0.25])  # -2 * 0.25 + 0.1
    nan = link_poses(robot, {'slide': math.nan})
    np.testing.assert_allclose(nan['b'][:3, 3], [0.0, 0.0, 0.0])
    with pytest.raises(UrdfError, match='exactly one root'):
        parse_scene_robot('<robot name="r"><link name="a"/><link name="b"/></robot>')
    with pytest.raises(UrdfError, match='capsule'):
        parse_scene_robot(
            '<robot name="r"><link name="a"><visual><geometry><capsule/></geometry>'
            '</visual></link></robot>'
        )


def test_odometry_places_the_base(demo) -> None:
    yaw = 0.5
    odom = pose_from_xyz_quaternion(
        (1.0, -2.0, 0.0), (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))
    )
    np.testing.assert_allclose(odom[:3, :3], rz(yaw), atol=1e-12)
    root = root_pose_from_odometry(demo, odom, 'base_link', {})
    np.testing.assert_allclose(root, odom)  # base_link is the root
    poses = link_poses(demo, {'joint1': 0.25}, root)
    np.testing.assert_allclose(poses['link1'][:3, :3], rz(0.75), atol=1e-12)
    np.testing.assert_allclose(poses['link1'][:3, 3], [1.0, -2.0, 0.1], atol=1e-12)
    # odometry of a child frame: the root goes where that child's pose says
    robot = parse_scene_robot(
        """<robot name="r"><link name="base_footprint"/><link name="base_link"/>
          <joint name="j" type="fixed"><parent link="base_footprint"/><child link="base_link"/>
            <origin xyz="0 0 0.1"/></joint></robot>"""
    )
    root = root_pose_from_odometry(robot, odom, 'base_link', {})
    np.testing.assert_allclose(root[:3, 3], [1.0, -2.0, -0.1], atol=1e-12)
    np.testing.assert_allclose(link_poses(robot, {}, root)['base_link'], odom, atol=1e-12)


def test_mesh_files_resolved_only_when_on_this_machine(tmp_path) -> None:
    mesh = tmp_path / 'share' / 'meshes' / 'part.stl'
    mesh.parent.mkdir(parents=True)
    mesh.write_bytes(b'solid x\nendsolid x\n')

    def share(package: str) -> str | None:
        return str(tmp_path / 'share') if package == 'my_robot' else None

    assert resolve_mesh('package://my_robot/meshes/part.stl', share) == mesh
    assert resolve_mesh(f'file://{mesh}', share) == mesh
    assert resolve_mesh(str(mesh), share) == mesh
    assert resolve_mesh('package://other/meshes/part.stl', share) is None
    assert resolve_mesh('package://my_robot/meshes/missing.stl', share) is None
    assert resolve_mesh('https://example.com/part.stl', share) is None
    assert resolve_mesh('meshes/part.stl', share) is None  # relative to nothing known
    robot = parse_scene_robot(
        '<robot name="r"><link name="a"><visual><origin xyz="1 0 0"/><geometry>'
        '<mesh filename="package://my_robot/meshes/part.stl" scale="0.001 0.001 0.001"/>'
        '</geometry></visual></link></robot>'
    )
    (visual,) = robot.visuals
    assert (visual.kind, visual.mesh, visual.scale) == (
        'mesh',
        'package://my_robot/meshes/part.stl',
        (0.001, 0.001, 0.001),
    )
    np.testing.assert_allclose(visual.origin, transform((1.0, 0.0, 0.0)))
