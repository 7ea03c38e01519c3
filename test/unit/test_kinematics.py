"""kinematics_interface in Python: planar arms checked against closed-form kinematics."""

import math

import numpy as np
import pytest

from py_controllers.kinematics import (
    DEFAULT_ALPHA,
    KinematicsError,
    KinematicsParams,
    load_kinematics,
)
from py_controllers.kinematics.pinocchio_kinematics import KinematicsInterfacePinocchio

L1, L2 = 1.0, 0.5
PI = math.pi


def joint(name, parent, child, xyz='0 0 0', kind='revolute', axis='0 0 1', rpy='0 0 0'):
    """One URDF joint; revolute/prismatic get limits, fixed gets no axis."""
    limit = '<limit lower="-3" upper="3" effort="1" velocity="1"/>'
    extra = '' if kind == 'fixed' else f'<axis xyz="{axis}"/>'
    extra += limit if kind in ('revolute', 'prismatic') else ''
    return (
        f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{xyz}" rpy="{rpy}"/>{extra}</joint>'
    )


def urdf(links, joints):
    """A URDF string from link names and joint snippets."""
    return (
        '<robot name="r">'
        + ''.join(f'<link name="{n}"/>' for n in links)
        + ''.join(joints)
        + '</robot>'
    )


# base_link -joint1(z)-> link1 -joint2(z, continuous, at x=L1)-> link2 -fixed(x=L2)-> tool
ARM_LINKS = ['base_link', 'link1', 'link2', 'tool']
ARM_JOINTS = [
    joint('joint1', 'base_link', 'link1'),
    joint('joint2', 'link1', 'link2', f'{L1} 0 0', kind='continuous'),
    joint('tool_joint', 'link2', 'tool', f'{L2} 0 0', kind='fixed'),
]
TWO_LINK = urdf(ARM_LINKS, ARM_JOINTS)


def planar_arm(lengths):
    """base -j0-> l0 -j1-> l1 ... -> tip: revolute-z joints spaced by the link lengths."""
    n = len(lengths)
    joints = [joint('j0', 'base', 'l0')]
    joints += [joint(f'j{i}', f'l{i - 1}', f'l{i}', f'{lengths[i - 1]} 0 0') for i in range(1, n)]
    joints.append(joint('jtip', f'l{n - 1}', 'tip', f'{lengths[-1]} 0 0', kind='fixed'))
    return urdf(['base', *[f'l{i}' for i in range(n)], 'tip'], joints)


def make(description=TWO_LINK, **params):
    """An initialized Pinocchio plug-in (tip 'tool' unless given)."""
    kin = KinematicsInterfacePinocchio()
    kin.initialize(description, {'tip': 'tool', **params})
    return kin


def two_link_fk(q1, q2):
    """Closed form tool position and yaw of the 2-link arm."""
    x = L1 * math.cos(q1) + L2 * math.cos(q1 + q2)
    y = L1 * math.sin(q1) + L2 * math.sin(q1 + q2)
    return x, y, q1 + q2


def two_link_jacobian(q1, q2):
    """Closed form 6x2 Jacobian of the tool origin in base axes (rows v, w)."""
    s1, c1, s12, c12 = math.sin(q1), math.cos(q1), math.sin(q1 + q2), math.cos(q1 + q2)
    jac = np.zeros((6, 2))
    jac[0] = [-L1 * s1 - L2 * s12, -L2 * s12]
    jac[1] = [L1 * c1 + L2 * c12, L2 * c12]
    jac[5] = [1.0, 1.0]
    return jac


# --- forward kinematics and Jacobian --------------------------------------------------------
@pytest.mark.parametrize('q', [(0.0, 0.0), (PI / 2, 0.0), (PI / 4, -PI / 4)])
def test_link_transform_matches_closed_form(q):
    # (0,0): (1.5, 0); (pi/2,0): (0, 1.5); (pi/4,-pi/4): (0.7071+0.5, 0.7071) with yaw 0
    x, y, yaw = two_link_fk(*q)
    pose = make().calculate_link_transform(np.array(q), 'tool')
    expected = np.eye(4)
    expected[:2, :2] = [[math.cos(yaw), -math.sin(yaw)], [math.sin(yaw), math.cos(yaw)]]
    expected[:2, 3] = [x, y]
    np.testing.assert_allclose(pose, expected, atol=1e-12)


def test_worked_poses_of_the_two_link_arm():
    kin = make()
    assert kin.calculate_link_transform([PI / 2, 0.0], 'tool')[:3, 3] == pytest.approx([0, 1.5, 0])
    tool = kin.calculate_link_transform([PI / 4, -PI / 4], 'tool')[:3, 3]
    assert tool == pytest.approx([math.sqrt(0.5) + 0.5, math.sqrt(0.5), 0.0])
    # the base link itself is the identity, as upstream's special case
    np.testing.assert_allclose(kin.calculate_link_transform([1.0, 2.0], 'base_link'), np.eye(4))


@pytest.mark.parametrize('q', [(0.0, 0.0), (PI / 2, 0.0), (PI / 4, -PI / 4), (0.3, 1.1)])
def test_jacobian_is_expressed_in_base_axes_at_the_link_origin(q):
    # at (pi/2, 0) the tool is yawed 90 deg: a tool-frame (LOCAL) Jacobian would differ
    np.testing.assert_allclose(
        make().calculate_jacobian(q, 'tool'), two_link_jacobian(*q), atol=1e-12
    )


def test_jacobian_of_an_intermediate_link_ignores_joints_beyond_it():
    # link2's origin is the elbow: joint2 only turns it, joint1 swings it on radius L1
    jac = make().calculate_jacobian([PI / 2, 0.4], 'link2')
    expected = np.zeros((6, 2))
    expected[0, 0], expected[5] = -L1, [1.0, 1.0]
    np.testing.assert_allclose(jac, expected, atol=1e-12)


def test_joint_deltas_to_cartesian_deltas_worked_numbers():
    # at (0, 0): vy = 1.5*0.1 + 0.5*0.2 = 0.25, wz = 0.1 + 0.2 = 0.3
    delta_x = make().convert_joint_deltas_to_cartesian_deltas([0.0, 0.0], [0.1, 0.2], 'tool')
    np.testing.assert_allclose(delta_x, [0, 0.25, 0, 0, 0, 0.3], atol=1e-12)


# --- inverse ------------------------------------------------------------------------------
def test_jacobian_inverse_is_upstream_damped_least_squares():
    # one link of length 1 at q=0: J = (0, 1, 0, 0, 0, 1)^T, J^T J = 2,
    # (J^T J + alpha)^-1 J^T = J^T / 2.5 with alpha = 0.5
    one_link = planar_arm([1.0])
    kin = KinematicsInterfacePinocchio()
    kin.initialize(one_link, {'kinematics.tip': 'tip', 'kinematics.alpha': 0.5})
    np.testing.assert_allclose(
        kin.calculate_jacobian_inverse([0.0], 'tip'), [[0, 0.4, 0, 0, 0, 0.4]], atol=1e-12
    )


def test_default_alpha_is_upstreams():
    assert DEFAULT_ALPHA == 0.000005
    assert KinematicsParams(base='', tip='tool').alpha == 0.000005
    assert KinematicsParams.from_mapping({'tip': 'tool'}).alpha == 0.000005


def test_non_redundant_round_trip_recovers_the_joint_deltas():
    # 2 joints, Jacobian rank 2: joint -> Cartesian -> joint gives the deltas back
    kin, q, delta_theta = make(), [0.3, 1.1], np.array([0.01, -0.02])
    delta_x = kin.convert_joint_deltas_to_cartesian_deltas(q, delta_theta, 'tool')
    back = kin.convert_cartesian_deltas_to_joint_deltas(q, delta_x, 'tool')
    np.testing.assert_allclose(back, delta_theta, atol=1e-6)


def test_three_link_planar_reproduces_an_xy_cartesian_delta():
    # three joints for an x-y motion (keeping yaw): the asked-for delta is reproduced
    kin = KinematicsInterfacePinocchio()
    kin.initialize(planar_arm([1.0, 0.5, 0.25]), KinematicsParams(base='', tip='tip'))
    q, delta_x = [0.2, 0.7, -0.4], np.array([0.01, -0.005, 0, 0, 0, 0])
    delta_theta = kin.convert_cartesian_deltas_to_joint_deltas(q, delta_x, 'tip')
    assert np.linalg.norm(delta_theta) > 1e-3  # it had to move
    redo = kin.convert_joint_deltas_to_cartesian_deltas(q, delta_theta, 'tip')
    np.testing.assert_allclose(redo, delta_x, atol=1e-5)  # damping alpha costs ~1e-6 here


def test_redundant_four_link_planar_reproduces_cartesian_delta_with_least_joint_motion():
    # 4 joints but rank 3 (x, y, yaw): many joint deltas fit, DLS gives the smallest one
    kin = KinematicsInterfacePinocchio()
    kin.initialize(planar_arm([1.0, 0.8, 0.5, 0.3]), {'tip': 'tip'})
    q, delta_theta = [0.1, 0.5, -0.3, 0.8], np.array([0.02, -0.01, 0.03, 0.01])
    delta_x = kin.convert_joint_deltas_to_cartesian_deltas(q, delta_theta, 'tip')
    back = kin.convert_cartesian_deltas_to_joint_deltas(q, delta_x, 'tip')
    np.testing.assert_allclose(
        kin.convert_joint_deltas_to_cartesian_deltas(q, back, 'tip'), delta_x, atol=1e-6
    )
    assert np.linalg.norm(back) < np.linalg.norm(delta_theta) - 1e-4


# --- which joints and which frame -------------------------------------------------------------
MOBILE = urdf(
    ['odom', 'base_link', 'link1', 'link2', 'tool', 'finger'],
    [
        joint(
            'base_x',
            'odom',
            'base_link',
            '2 3 0',
            kind='prismatic',
            axis='1 0 0',
            rpy=f'0 0 {PI / 2}',
        ),
        *ARM_JOINTS,
        joint('finger_joint', 'tool', 'finger', kind='prismatic', axis='0 1 0'),
    ],
)


def test_joint_vector_is_the_chain_from_base_to_tip_only():
    # the mobile base joint above base_link and the finger beside the tool are not in it
    kin = make(MOBILE, base='base_link')
    assert kin.joint_names == ['joint1', 'joint2']
    assert kin.dof == 2
    # and the pose is relative to base_link, not to the URDF root 'odom'
    x, y, _ = two_link_fk(0.3, 1.1)
    assert kin.calculate_link_transform([0.3, 1.1], 'tool')[:3, 3] == pytest.approx([x, y, 0])


def test_jacobian_is_in_base_axes_when_base_is_rotated_against_the_root():
    # base_link is yawed 90 deg in odom: world-axis rows would come out rotated
    jac = make(MOBILE, base='base_link').calculate_jacobian([0.3, 1.1], 'tool')
    np.testing.assert_allclose(jac, two_link_jacobian(0.3, 1.1), atol=1e-12)


def test_unset_base_is_the_urdf_root_link():
    kin = make(MOBILE)
    assert kin.joint_names == ['base_x', 'joint1', 'joint2']
    # odom -> base_link at (2, 3) yawed 90 deg: base_x 0.5 and the stretched arm 1.5 go along +y
    pose = kin.calculate_link_transform([0.5, 0.0, 0.0], 'tool')
    assert pose[:3, 3] == pytest.approx([2, 3 + 0.5 + 1.5, 0])


def test_chain_walked_upwards_uses_tip_to_base_joint_order_and_inverts_the_pose():
    # upstream accepts base below tip (test incorrect_parameters: base link2, tip link1)
    up = make(base='tool', tip='base_link')
    assert up.joint_names == ['joint2', 'joint1']
    forward = make().calculate_link_transform([0.3, 1.1], 'tool')
    backward = up.calculate_link_transform([1.1, 0.3], 'base_link')
    np.testing.assert_allclose(backward @ forward, np.eye(4), atol=1e-12)


def test_jacobian_of_a_chain_walked_upwards_is_seen_from_the_moving_base():
    # base_link seen from the tool sits at (-L1 cos q2 - L2, L1 sin q2) with yaw -(q1 + q2):
    # joint1 only spins it about its own origin, joint2 swings it on radius L1
    q2, q1 = 0.6, 0.3
    jac = make(base='tool', tip='base_link').calculate_jacobian([q2, q1], 'base_link')
    expected = np.zeros((6, 2))
    expected[0, 0], expected[1, 0] = L1 * math.sin(q2), L1 * math.cos(q2)
    expected[5] = [-1.0, -1.0]
    np.testing.assert_allclose(jac, expected, atol=1e-12)


# --- errors -----------------------------------------------------------------------------------
def test_unknown_tip_is_named_with_the_available_links():
    with pytest.raises(KinematicsError, match=r"tip link 'gripper'.*base_link, link1, link2, tool"):
        make(tip='gripper')


def test_unknown_base_is_named():
    with pytest.raises(KinematicsError, match="base link 'world'"):
        make(base='world')


def test_link_off_the_chain_is_rejected_with_the_chain_links():
    kin = make(MOBILE, base='base_link')
    with pytest.raises(KinematicsError, match=r"'finger'.*base_link, link1, link2, tool"):
        kin.calculate_jacobian([0.0, 0.0], 'finger')


def test_missing_tip_and_bad_urdf_are_errors():
    with pytest.raises(KinematicsError, match="'tip'"):
        KinematicsInterfacePinocchio().initialize(TWO_LINK, {'base': 'base_link'})
    with pytest.raises(KinematicsError, match='empty'):
        KinematicsInterfacePinocchio().initialize('', {'tip': 'tool'})
    with pytest.raises(KinematicsError, match='URDF'):
        KinematicsInterfacePinocchio().initialize('<robot name="r"><link', {'tip': 'tool'})


@pytest.mark.parametrize(
    'call',
    [
        lambda k: k.calculate_link_transform([0.0, 0.0, 0.0], 'tool'),
        lambda k: k.calculate_jacobian([0.0], 'tool'),
        lambda k: k.calculate_jacobian_inverse([0.0] * 5, 'tool'),
    ],
)
def test_wrong_length_joint_vector_says_expected_and_actual(call):
    with pytest.raises(KinematicsError, match=r'joint_pos has shape \(\d,\), expected 2'):
        call(make())


def test_wrong_length_deltas_are_errors():
    kin = make()
    with pytest.raises(KinematicsError, match=r'delta_theta has shape \(3,\), expected 2'):
        kin.convert_joint_deltas_to_cartesian_deltas([0, 0], [0, 0, 0], 'tool')
    with pytest.raises(KinematicsError, match=r'delta_x has shape \(3,\), expected 6'):
        kin.convert_cartesian_deltas_to_joint_deltas([0, 0], [0, 0, 0], 'tool')


def test_nan_inputs_are_errors():
    kin = make()
    with pytest.raises(KinematicsError, match='joint_pos contains NaN'):
        kin.calculate_link_transform([0.0, math.nan], 'tool')
    with pytest.raises(KinematicsError, match='delta_x contains NaN'):
        kin.convert_cartesian_deltas_to_joint_deltas([0, 0], [0, 0, math.nan, 0, 0, 0], 'tool')


def test_calls_before_initialize_are_errors():
    kin = KinematicsInterfacePinocchio()
    with pytest.raises(KinematicsError, match='not initialized'):
        kin.calculate_link_transform([], 'tool')
    with pytest.raises(KinematicsError, match='not initialized'):
        _ = kin.joint_names


# --- parameters and plug-ins ------------------------------------------------------------------
@pytest.mark.parametrize(
    'params',
    [
        {'base': 'link1', 'tip': 'tool'},
        {'kinematics.base': 'link1', 'kinematics.tip': 'tool'},
        {'kinematics': {'base': 'link1', 'tip': 'tool'}},
    ],
)
def test_parameter_mapping_forms(params):
    kin = KinematicsInterfacePinocchio()
    kin.initialize(TWO_LINK, params)
    assert kin.joint_names == ['joint2']


@pytest.mark.parametrize(
    'name',
    [
        'kinematics_interface_kdl/KinematicsInterfaceKDL',
        'kinematics_interface_pinocchio/KinematicsInterfacePinocchio',
    ],
)
def test_load_kinematics_gives_the_pinocchio_implementation(name):
    kin = load_kinematics(name)
    assert type(kin) is KinematicsInterfacePinocchio
    kin.initialize(TWO_LINK, {'tip': 'tool'})
    assert kin.joint_names == ['joint1', 'joint2']


def test_unknown_plugin_lists_the_known_ones():
    with pytest.raises(KinematicsError, match=r"'nope/Nope'.*kinematics_interface_kdl/Kinem"):
        load_kinematics('nope/Nope')
