"""SerializedMessage: numbers written through its views arrive in the bytes rclpy sends.

Each case writes values through the views, deserializes the bytes with rclpy and compares
with a message filled the plain way, field for field (so a view that landed on the wrong
bytes, or bytes shifted by a changed shape, fails).
"""

import math

import numpy as np
import pytest
from control_msgs.msg import DynamicJointState, InterfaceValue, JointTrajectoryControllerState
from nav_msgs.msg import Odometry
from rclpy.serialization import deserialize_message, serialize_message
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

from py_controllers.controllers.diff_drive.odometry_messages import OdometryMessages
from py_controllers.controllers.joint_trajectory.conversions import state_message
from py_controllers.hardware_interface.handle import StateInterface
from py_controllers.realtime_tools.serialized_message import (
    SerializedMessage,
    TimeField,
    _double_sentinels,
)
from py_controllers.ros_conversions import HandleCopies, bind_array, set_duration, set_stamp

JOINTS = ['shoulder', 'elbow', 'wrist']


def _joint_state(serialized: bool) -> tuple[SerializedMessage, list[np.ndarray], object]:
    msg = JointState()
    msg.header.frame_id = 'base'
    msg.name = list(JOINTS)
    views = [bind_array(msg, f, 3, math.nan) for f in ('position', 'velocity', 'effort')]
    ser = SerializedMessage(msg, serialized=serialized)
    return ser, [ser.doubles(v) for v in views], ser.time(msg.header.stamp)


@pytest.mark.parametrize('serialized', [True, False])
def test_joint_state_values_and_stamp_arrive(serialized):
    ser, (pos, vel, eff), stamp = _joint_state(serialized)
    assert ser.serialized is serialized
    pos[:] = [0.5, -1.25, 3.0]
    vel[1] = 2.5
    eff[2] = -7.0
    set_stamp(stamp, 1_700_000_123_456_789_012)
    payload = ser.payload()
    got = deserialize_message(payload, JointState) if serialized else payload
    assert got.name == JOINTS and got.header.frame_id == 'base'
    assert list(got.position) == [0.5, -1.25, 3.0]
    assert got.velocity[1] == 2.5 and math.isnan(got.velocity[0])
    assert got.effort[2] == -7.0
    assert (got.header.stamp.sec, got.header.stamp.nanosec) == (1_700_000_123, 456_789_012)
    if serialized:  # as long as rclpy's own serialization of that message (whose alignment
        # padding is whatever the heap held: comparing every byte failed now and then)
        assert len(payload) == len(serialize_message(got))


def test_payload_is_a_snapshot_and_a_second_write_lands():
    ser, (pos, _, _), stamp = _joint_state(True)
    pos[0] = 1.0
    first = ser.payload()
    pos[0] = 2.0
    set_stamp(stamp, 5)
    assert deserialize_message(first, JointState).position[0] == 1.0
    second = deserialize_message(ser.payload(), JointState)
    assert second.position[0] == 2.0 and second.header.stamp.nanosec == 5


def test_dynamic_joint_state_groups_land_in_their_own_arrays():
    dyn = DynamicJointState()
    dyn.joint_names = ['a', 'b']
    dyn.interface_values = [
        InterfaceValue(interface_names=['position', 'velocity']),
        InterfaceValue(interface_names=['position']),
    ]
    views = [bind_array(iv, 'values', len(iv.interface_names)) for iv in dyn.interface_values]
    ser = SerializedMessage(dyn)
    a, b = (ser.doubles(v) for v in views)
    a[:] = [1.5, -0.5]
    b[0] = 9.0
    got = deserialize_message(ser.payload(), DynamicJointState)
    assert [list(iv.values) for iv in got.interface_values] == [[1.5, -0.5], [9.0]]
    assert [list(iv.interface_names) for iv in got.interface_values] == [
        ['position', 'velocity'],
        ['position'],
    ]


@pytest.mark.parametrize('serialized', [True, False])
def test_handle_copies_land_in_every_view_a_loop_writes(serialized):
    """HandleCopies writes through memoryviews: into the bytes (views at any alignment, the
    joint state's first array lies 4 bytes off an 8-byte boundary), into message arrays, and
    into a strided numpy view, which it writes as numpy does; a None handle leaves its place."""
    ser, views, _ = _joint_state(serialized)
    assert any(v.ctypes.data % 8 for v in views) == serialized  # unaligned in the bytes
    handles = [[StateInterface(j, f, value=10.0 * k + i) for i, j in enumerate(JOINTS)]
               for k, f in enumerate(('position', 'velocity', 'effort'))]  # fmt: skip
    handles[2][1] = None
    strided = np.zeros((3, 2))[:, 1]
    copies = HandleCopies([*zip(views, handles), (strided, handles[0])])
    copies.copy_rt()
    handles[0][2].value = -4.25  # a second cycle
    copies.copy_rt()
    got = deserialize_message(serialize_message(ser.msg), JointState) if not serialized else (
        deserialize_message(ser.payload(), JointState))  # fmt: skip
    assert list(got.position) == [0.0, 1.0, -4.25]
    assert list(got.velocity) == [10.0, 11.0, 12.0]
    assert got.effort[0] == 20.0 and math.isnan(got.effort[1]) and got.effort[2] == 22.0
    assert strided.tolist() == [0.0, 1.0, -4.25]


def test_an_empty_array_needs_no_place_and_the_others_still_land():
    dyn = DynamicJointState()
    dyn.interface_values = [InterfaceValue(), InterfaceValue(interface_names=['position'])]
    empty, one = (bind_array(iv, 'values', len(iv.interface_names)) for iv in dyn.interface_values)
    ser = SerializedMessage(dyn)
    assert ser.doubles(empty).shape == (0,)
    ser.doubles(one)[0] = 2.5
    got = deserialize_message(ser.payload(), DynamicJointState)
    assert [list(iv.values) for iv in got.interface_values] == [[], [2.5]]


def test_controller_state_fields_each_land_where_named():
    state = state_message(JOINTS, True, False, [('effort', [])])
    v = state.views
    v.desired_pos[:] = [1.0, 2.0, 3.0]
    v.actual_vel[:] = [4.0, 5.0, 6.0]
    v.error_pos[:] = [-1.0, -2.0, -3.0]
    state.outputs[0][0][:] = [7.0, 8.0, 9.0]
    state.scaling[0] = 0.5
    set_duration(state.reference_time, 1.25)
    set_duration(state.feedback_time, 2.5)
    set_stamp(state.stamp, 3_000_000_007)
    got = deserialize_message(state.message.payload(), JointTrajectoryControllerState)
    assert list(got.reference.positions) == [1.0, 2.0, 3.0]
    assert list(got.feedback.velocities) == [4.0, 5.0, 6.0]
    assert list(got.error.positions) == [-1.0, -2.0, -3.0]
    assert list(got.output.effort) == [7.0, 8.0, 9.0]
    assert got.speed_scaling_factor == 0.5
    assert (got.reference.time_from_start.sec, got.reference.time_from_start.nanosec) == (
        1,
        250_000_000,
    )
    assert got.feedback.time_from_start.sec == 2
    assert (got.header.stamp.sec, got.header.stamp.nanosec) == (3, 7)
    assert list(got.joint_names) == JOINTS


def test_odometry_and_transform_carry_pose_and_twist():
    msgs = OdometryMessages('odom', 'base_link', [0.1] * 6, [0.2] * 6)
    msgs.write_odometry_rt(2_000_000_001, 1.5, -2.0, math.pi / 2, 0.3, -0.4)
    msgs.write_transform_rt(2_000_000_001, 1.5, -2.0, math.pi / 2)
    odom = deserialize_message(msgs.odometry.payload(), Odometry)
    assert (odom.pose.pose.position.x, odom.pose.pose.position.y) == (1.5, -2.0)
    assert odom.pose.pose.orientation.z == pytest.approx(math.sin(math.pi / 4))
    assert odom.pose.pose.orientation.w == pytest.approx(math.cos(math.pi / 4))
    assert (odom.twist.twist.linear.x, odom.twist.twist.angular.z) == (0.3, -0.4)
    assert odom.pose.covariance[7] == 0.1 and odom.twist.covariance[35] == 0.2
    assert (odom.header.frame_id, odom.child_frame_id) == ('odom', 'base_link')
    tf = deserialize_message(msgs.transform.payload(), TFMessage).transforms[0]
    assert (tf.transform.translation.x, tf.transform.translation.y) == (1.5, -2.0)
    assert tf.transform.rotation.w == pytest.approx(math.cos(math.pi / 4))
    assert (tf.header.stamp.sec, tf.header.stamp.nanosec) == (2, 1)


def test_scalars_in_message_mode_are_copied_at_payload():
    msg = Odometry()
    ser = SerializedMessage(msg, serialized=False)
    xy = ser.scalars(msg.pose.pose.position, ('x', 'y'))
    xy[:] = [3.0, 4.0]
    got = ser.payload()
    assert (got.pose.pose.position.x, got.pose.pose.position.y) == (3.0, 4.0)


def test_a_field_that_is_not_found_once_is_refused():
    msg = JointState()
    view = bind_array(msg, 'position', 2)
    ser = SerializedMessage(msg)
    msg.name = ['grown']  # the shape changed after serialization
    with pytest.raises(ValueError, match='changed shape'):
        ser.doubles(view)


def test_time_field_reads_back_what_it_wrote():
    field = TimeField(bytearray(16), 4, 0, 0)
    set_stamp(field, 12_000_000_034)
    assert (field.sec, field.nanosec) == (12, 34)


def test_every_search_uses_sentinels_never_used_before():
    """The serializer leaves padding and a tail of its buffer unwritten, where bytes of an
    earlier search can linger (seen: a JTC failing to activate in a manager process)."""
    first, second = _double_sentinels(300), _double_sentinels(300)
    assert len(set(first.tolist()) | set(second.tolist())) == 600
