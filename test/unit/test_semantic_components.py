"""Semantic components (no ROS): interface names and order, assignment, values, messages.

Also the IMU broadcaster's rotation offset math (imu_transform), checked with worked numbers.
"""

import math
from types import SimpleNamespace

import pytest

from py_controllers.controllers.sensor_broadcasters.imu_transform import (
    ImuRotation,
    quat_from_euler,
    quat_multiply,
)
from py_controllers.controllers.sensor_broadcasters.pose import is_pose_valid
from py_controllers.hardware_interface.handle import StateInterface
from py_controllers.semantic_components import (
    ForceTorqueSensor,
    IMUSensor,
    MissingStateInterfaceError,
    NotAssignedError,
    PoseSensor,
    RangeSensor,
    SemanticComponentInterface,
)
from py_controllers.semantic_components.range_sensor import to_float32


def handles(values: dict[str, float]) -> list[StateInterface]:
    """State handles named like the keys ('imu/orientation.x': 0.1, ...)."""
    out = []
    for name, value in values.items():
        prefix, _, itf = name.rpartition('/')
        out.append(StateInterface(prefix, itf, value))
    return out


def vector3():
    return SimpleNamespace(x=0.0, y=0.0, z=0.0)


def quaternion():
    return SimpleNamespace(x=0.0, y=0.0, z=0.0, w=1.0)


# --- the base ---------------------------------------------------------------------------------
def test_default_names_are_numbered_from_one():
    assert SemanticComponentInterface('dev', size=3).get_state_interface_names() == [
        'dev/1',
        'dev/2',
        'dev/3',
    ]


def test_assignment_resolves_by_name_whatever_the_order_handed_over():
    imu = IMUSensor('imu')
    names = imu.get_state_interface_names()
    given = handles({n: float(i) for i, n in enumerate(names)})
    imu.assign_loaned_state_interfaces(reversed(given + handles({'other/x': 99.0})))
    assert imu.get_values() == [float(i) for i in range(10)]


def test_a_missing_interface_is_named_and_nothing_is_assigned():
    imu = IMUSensor('imu')
    names = imu.get_state_interface_names()
    partial = handles({n: 0.0 for n in names if n != 'imu/angular_velocity.y'})
    with pytest.raises(MissingStateInterfaceError) as info:
        imu.assign_loaned_state_interfaces(partial)
    assert info.value.missing == ['imu/angular_velocity.y']
    assert "'imu/angular_velocity.y'" in str(info.value)
    assert not imu.is_assigned
    with pytest.raises(NotAssignedError):
        imu.get_values()


def test_release_forgets_the_handles():
    rng = RangeSensor('sonar')
    rng.assign_loaned_state_interfaces(handles({'sonar/range': 1.0}))
    rng.release_interfaces()
    with pytest.raises(NotAssignedError):
        rng.get_range()


def test_get_values_fills_a_given_list_in_place():
    pose = PoseSensor('p')
    pose.assign_loaned_state_interfaces(
        handles({n: i + 0.5 for i, n in enumerate(pose.get_state_interface_names())})
    )
    out = [0.0] * 7
    assert pose.get_values(out) is out
    assert out == [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5]


# --- IMU ---------------------------------------------------------------------------------------
def test_imu_interfaces_in_upstream_order():
    assert IMUSensor('imu').get_state_interface_names() == [
        'imu/orientation.x',
        'imu/orientation.y',
        'imu/orientation.z',
        'imu/orientation.w',
        'imu/angular_velocity.x',
        'imu/angular_velocity.y',
        'imu/angular_velocity.z',
        'imu/linear_acceleration.x',
        'imu/linear_acceleration.y',
        'imu/linear_acceleration.z',
    ]


def test_imu_getters_and_message_follow_the_handles():
    imu = IMUSensor('imu')
    values = [0.0, 0.0, 0.6, 0.8, 0.1, -0.2, 0.3, 1.5, -2.5, 9.81]
    given = handles(dict(zip(imu.get_state_interface_names(), values)))
    imu.assign_loaned_state_interfaces(given)
    assert imu.get_orientation() == (0.0, 0.0, 0.6, 0.8)
    assert imu.get_angular_velocity() == (0.1, -0.2, 0.3)
    assert imu.get_linear_acceleration() == (1.5, -2.5, 9.81)
    given[6].value = 0.7  # angular_velocity.z changes in the hardware
    msg = SimpleNamespace(
        orientation=quaternion(), angular_velocity=vector3(), linear_acceleration=vector3()
    )
    assert imu.get_values_as_message(msg) is True
    assert (msg.orientation.z, msg.orientation.w) == (0.6, 0.8)
    assert (msg.angular_velocity.x, msg.angular_velocity.z) == (0.1, 0.7)
    assert (msg.linear_acceleration.y, msg.linear_acceleration.z) == (-2.5, 9.81)


# --- force-torque --------------------------------------------------------------------------------
def test_force_torque_standard_names_and_values():
    ft = ForceTorqueSensor('ft')
    assert ft.get_state_interface_names() == [
        'ft/force.x',
        'ft/force.y',
        'ft/force.z',
        'ft/torque.x',
        'ft/torque.y',
        'ft/torque.z',
    ]
    ft.assign_loaned_state_interfaces(
        handles(dict(zip(ft.get_state_interface_names(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])))
    )
    assert ft.get_forces() == (1.0, 2.0, 3.0)
    assert ft.get_torques() == (4.0, 5.0, 6.0)
    msg = SimpleNamespace(force=vector3(), torque=vector3())
    assert ft.get_values_as_message(msg) is True
    assert (msg.force.z, msg.torque.x) == (3.0, 4.0)


def test_force_torque_custom_names_leave_missing_axes_nan():
    ft = ForceTorqueSensor.from_interface_names(force_x='cell/fx', torque_z='cell/tz')
    assert ft.get_state_interface_names() == ['cell/fx', 'cell/tz']
    assert ft.existing_axes == (True, False, False, False, False, True)
    ft.assign_loaned_state_interfaces(handles({'cell/tz': -0.5, 'cell/fx': 12.0}))
    assert ft.get_values() == [12.0, -0.5]  # the interfaces it has, in axis order
    wrench = ft.get_wrench()
    assert wrench[0] == 12.0 and wrench[5] == -0.5
    assert all(math.isnan(v) for v in wrench[1:5])


# --- range ---------------------------------------------------------------------------------------
def test_range_is_rounded_to_float32_as_the_message_holds_it():
    rng = RangeSensor('sonar')
    assert rng.get_state_interface_names() == ['sonar/range']
    given = handles({'sonar/range': 0.1})
    rng.assign_loaned_state_interfaces(given)
    assert rng.get_range() == 0.10000000149011612  # float32(0.1)
    given[0].value = 1e300  # beyond float32: +inf, as static_cast<float>
    msg = SimpleNamespace(range=0.0)
    rng.get_values_as_message(msg)
    assert msg.range == math.inf
    assert to_float32(-1e39) == -math.inf
    assert math.isnan(to_float32(math.nan))


# --- pose ----------------------------------------------------------------------------------------
def test_pose_names_getters_and_message():
    pose = PoseSensor('marker')
    names = pose.get_state_interface_names()
    assert names == [
        'marker/position.x',
        'marker/position.y',
        'marker/position.z',
        'marker/orientation.x',
        'marker/orientation.y',
        'marker/orientation.z',
        'marker/orientation.w',
    ]
    pose.assign_loaned_state_interfaces(
        handles(dict(zip(names, [1.0, 2.0, 3.0, 0.0, 0.0, 0.6, 0.8])))
    )
    assert pose.get_position() == (1.0, 2.0, 3.0)
    assert pose.get_orientation() == (0.0, 0.0, 0.6, 0.8)
    msg = SimpleNamespace(position=vector3(), orientation=quaternion())
    pose.get_values_as_message(msg)
    assert (msg.position.y, msg.orientation.z, msg.orientation.w) == (2.0, 0.6, 0.8)


def test_pose_validity_as_upstream():
    assert is_pose_valid([1.0, 2.0, 3.0, 0.0, 0.0, 0.6, 0.8])
    assert is_pose_valid([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.004])  # |q|^2 - 1 = 0.008016
    assert not is_pose_valid([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.01])  # 0.0201 > 0.01
    assert not is_pose_valid([0.0, 0.0, 0.0, 0.0, 0.0, 0.6, 0.5])  # 0.61
    assert not is_pose_valid([math.nan, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    assert not is_pose_valid([0.0, math.inf, 0.0, 0.0, 0.0, 0.0, 1.0])


# --- the IMU broadcaster's rotation offset -------------------------------------------------------
def test_quaternion_from_euler_is_z_then_y_then_x():
    s = math.sqrt(0.5)
    assert quat_from_euler(0.0, 0.0, math.pi / 2) == pytest.approx((0.0, 0.0, s, s))
    assert quat_from_euler(math.pi, 0.0, 0.0) == pytest.approx((1.0, 0.0, 0.0, 0.0), abs=1e-15)
    # Rz(yaw) Ry(pitch) Rx(roll) as a product of the three
    product = quat_multiply(
        quat_multiply(quat_from_euler(0, 0, 0.3), quat_from_euler(0, -0.2, 0)),
        quat_from_euler(0.1, 0, 0),
    )
    assert quat_from_euler(0.1, -0.2, 0.3) == pytest.approx(product)


def test_rotation_offset_of_upstreams_test_enu_to_ned():
    # roll pi, yaw pi/2: (x, y, z) -> (y, x, -z), as upstream's test expects
    values = [0.0, 0.0, 0.0, 1.0, 0.1, 0.2, 0.3, 1.0, 2.0, 9.81]
    ImuRotation(math.pi, 0.0, math.pi / 2).apply_rt(values)
    assert values[4:] == pytest.approx([0.2, 0.1, -0.3, 2.0, 1.0, -9.81])
    # orientation: q r^-1 with q the identity is r^-1
    r = quat_from_euler(math.pi, 0.0, math.pi / 2)
    assert values[:4] == pytest.approx([-r[0], -r[1], -r[2], r[3]])


def test_covariance_is_rotated_once_as_r_c_rt():
    yaw90 = ImuRotation(0.0, 0.0, math.pi / 2)  # x -> y, y -> -x
    rotated = yaw90.rotate_covariance([1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0])
    assert rotated == pytest.approx([2.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 3.0], abs=1e-15)
    # an off-diagonal term changes sign under a 90 degree yaw: cov(x', y') = -cov(x, y)
    rotated = yaw90.rotate_covariance([1.0, 0.5, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 1.0])
    assert rotated[1] == pytest.approx(-0.5) and rotated[3] == pytest.approx(-0.5)


def test_zero_offset_is_the_identity():
    assert ImuRotation(0.0, 0.0, 0.0).is_identity
    assert not ImuRotation(0.0, 0.1, 0.0).is_identity
