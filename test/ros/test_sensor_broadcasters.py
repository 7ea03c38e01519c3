"""The sensor broadcasters (IMU, force-torque, range, pose) on mock sensors: real rclpy and
DDS, a SteppedManager per test (sensor_rig.py)."""

from __future__ import annotations

import math

import pytest
from geometry_msgs.msg import PoseStamped, WrenchStamped
from rclpy.parameter import Parameter
from sensor_msgs.msg import Imu, Range
from sensor_rig import (
    FT_VALUES,
    IMU_VALUES,
    PERIOD_NS,
    POSE_VALUES,
    assert_stamped_by_a_cycle,
    mock_robot,
    refused_activation,
    refused_configure,
    rig_fixture,
    stamp_ns,
    wait_for,
)
from tf2_msgs.msg import TFMessage

from py_controllers.semantic_components.range_sensor import to_float32

rig = pytest.fixture(rig_fixture, name='rig')


# --- imu_sensor_broadcaster -------------------------------------------------------------------
IMU = 'imu_sensor_broadcaster/IMUSensorBroadcaster'
IMU_COVARIANCES = {
    'static_covariance_orientation': [0.01, 0.0, 0.0, 0.0, 0.02, 0.0, 0.0, 0.0, 0.03],
    'static_covariance_angular_velocity': [0.04, 0.001, 0.0, 0.001, 0.05, 0.0, 0.0, 0.0, 0.06],
    'static_covariance_linear_acceleration': [0.7, 0.0, 0.0, 0.0, 0.8, 0.0, 0.0, 0.0, 0.9],
}


def test_imu_readings_frame_and_covariances_reach_the_message(rig):
    params = {'sensor_name': 'imu', 'frame_id': 'imu_link', **IMU_COVARIANCES}
    cm = rig.start(mock_robot(imu=IMU_VALUES), {'imu_sensor_broadcaster': (IMU, params)})
    received = rig.subscribe(Imu, '/imu_sensor_broadcaster/imu')
    cm.start('imu_sensor_broadcaster')
    msg = wait_for(cm, received)
    assert msg.header.frame_id == 'imu_link'
    assert_stamped_by_a_cycle(cm, msg)
    o, w, a = msg.orientation, msg.angular_velocity, msg.linear_acceleration
    assert (o.x, o.y, o.z, o.w) == (0.0, 0.0, 0.6, 0.8)
    assert (w.x, w.y, w.z) == (0.1, -0.2, 0.3)
    assert (a.x, a.y, a.z) == (1.5, -2.5, 9.81)
    assert list(msg.orientation_covariance) == IMU_COVARIANCES['static_covariance_orientation']
    assert (
        list(msg.angular_velocity_covariance)
        == IMU_COVARIANCES['static_covariance_angular_velocity']
    )
    assert (
        list(msg.linear_acceleration_covariance)
        == IMU_COVARIANCES['static_covariance_linear_acceleration']
    )
    # the hardware's reading changes: the next messages and the exported state follow
    cm.manager.rm.state_interfaces['imu/angular_velocity.z'].value = 0.7
    msg = wait_for(cm, received, lambda m: m.angular_velocity.z == 0.7)
    assert msg.linear_acceleration.z == 9.81
    exported = cm.manager.rm.state_interfaces
    assert exported['imu_sensor_broadcaster/imu/angular_velocity.z'].value == 0.7
    assert exported['imu_sensor_broadcaster/imu/orientation.w'].value == 0.8


def test_imu_rotation_offset_rotates_readings_and_covariances_once(rig):
    params = {
        'sensor_name': 'imu',
        'frame_id': 'base_link',
        'rotation_offset': {'yaw': math.pi / 2},  # x -> y, y -> -x
        'static_covariance_orientation': [4.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0, 6.0],
        'static_covariance_angular_velocity': [1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0],
    }
    values = dict(IMU_VALUES)
    values.update({'orientation.z': 0.0, 'orientation.w': 1.0})
    cm = rig.start(mock_robot(imu=values), {'imu_sensor_broadcaster': (IMU, params)})
    received = rig.subscribe(Imu, '/imu_sensor_broadcaster/imu')
    cm.start('imu_sensor_broadcaster')
    # messages of several cycles: every one is rotated once (upstream rotates the previous
    # message's covariance again each cycle, so a 90 degree yaw alternates them)
    wait_for(cm, received, lambda m: stamp_ns(m) >= 5 * PERIOD_NS)
    assert len({stamp_ns(m) for m in received}) >= 2
    s = math.sqrt(0.5)
    for msg in received:
        w, a, o = msg.angular_velocity, msg.linear_acceleration, msg.orientation
        assert (w.x, w.y, w.z) == pytest.approx((0.2, 0.1, 0.3))  # (-(-0.2), 0.1, 0.3)
        assert (a.x, a.y, a.z) == pytest.approx((2.5, 1.5, 9.81))
        assert (o.x, o.y, o.z, o.w) == pytest.approx((0.0, 0.0, -s, s))  # q r^-1, q = 1
        assert list(msg.angular_velocity_covariance) == pytest.approx(
            [2.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 3.0], abs=1e-15
        )
        assert list(msg.orientation_covariance) == [4.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0, 6.0]


def test_imu_without_sensor_name_does_not_configure(rig):
    cm = rig.start(mock_robot(imu=IMU_VALUES), {'imu_sensor_broadcaster': (IMU, {'frame_id': 'f'})})
    refused_configure(cm, 'imu_sensor_broadcaster')


def test_imu_with_a_missing_interface_is_not_activated(rig):
    values = {k: v for k, v in IMU_VALUES.items() if k != 'linear_acceleration.z'}
    params = {'sensor_name': 'imu', 'frame_id': 'imu_link'}
    cm = rig.start(mock_robot(imu=values), {'imu_sensor_broadcaster': (IMU, params)})
    refused_activation(cm, 'imu_sensor_broadcaster', 'imu/linear_acceleration.z')


# --- force_torque_sensor_broadcaster ----------------------------------------------------------
FT = 'force_torque_sensor_broadcaster/ForceTorqueSensorBroadcaster'
FTB = 'force_torque_sensor_broadcaster'


def test_ft_offsets_then_multipliers_and_a_change_at_run_time(rig):
    params = {
        'sensor_name': 'wrist_ft',
        'frame_id': 'tool0',
        'offset': {'force': {'x': 10.0}, 'torque': {'z': -1.0}},
        'multiplier': {'force': {'x': 2.0, 'z': -1.0}, 'torque': {'z': 0.5}},
    }
    cm = rig.start(mock_robot(wrist_ft=FT_VALUES), {FTB: (FT, params)})
    received = rig.subscribe(WrenchStamped, f'/{FTB}/wrench')
    (ctrl,) = cm.start(FTB)
    msg = wait_for(cm, received)
    assert msg.header.frame_id == 'tool0'
    assert_stamped_by_a_cycle(cm, msg)
    f, t = msg.wrench.force, msg.wrench.torque
    # (reading + offset) * multiplier: (1 + 10) * 2 = 22 (not 1 * 2 + 10 = 12); (6 - 1) * 0.5
    assert (f.x, f.y, f.z) == (22.0, 2.0, -3.0)
    assert (t.x, t.y, t.z) == (4.0, 5.0, 2.5)
    exported = cm.manager.rm.state_interfaces
    assert exported[f'{FTB}/wrist_ft/force.x'].value == 22.0
    assert exported[f'{FTB}/wrist_ft/torque.z'].value == 2.5
    # ros2 param set: applied from the next cycle on
    results = ctrl.get_node().set_parameters([Parameter('offset.force.y', value=100.0)])
    assert results[0].successful
    msg = wait_for(cm, received, lambda m: m.wrench.force.y != 2.0)
    assert msg.wrench.force.y == 102.0
    assert msg.wrench.force.x == 22.0
    assert exported[f'{FTB}/wrist_ft/force.y'].value == 102.0


def test_ft_interface_names_leave_missing_axes_nan(rig):
    params = {
        'frame_id': 'load_cell',
        'interface_names': {
            'force': {'x': 'wrist_ft/force.x'},
            'torque': {'z': 'wrist_ft/torque.z'},
        },
    }
    cm = rig.start(mock_robot(wrist_ft=FT_VALUES), {FTB: (FT, params)})
    received = rig.subscribe(WrenchStamped, f'/{FTB}/wrench')
    (ctrl,) = cm.start(FTB)
    assert ctrl.state_interface_configuration().names == ['wrist_ft/force.x', 'wrist_ft/torque.z']
    msg = wait_for(cm, received)
    f, t = msg.wrench.force, msg.wrench.torque
    assert f.x == 1.0 and t.z == 6.0
    assert all(math.isnan(v) for v in (f.y, f.z, t.x, t.y))
    exported = sorted(n for n in cm.manager.rm.state_interfaces if n.startswith(f'{FTB}/'))
    assert exported == [f'{FTB}/wrist_ft/force.x', f'{FTB}/wrist_ft/torque.z']


@pytest.mark.parametrize(
    'params',
    [
        {'frame_id': 'tool0'},  # neither
        {
            'frame_id': 'tool0',
            'sensor_name': 'wrist_ft',
            'interface_names': {'force': {'x': 'wrist_ft/force.x'}},
        },  # both
        {'sensor_name': 'wrist_ft'},  # no frame_id
    ],
    ids=['no_sensor', 'sensor_name_and_interface_names', 'no_frame_id'],
)
def test_ft_configure_refuses(rig, params):
    cm = rig.start(mock_robot(wrist_ft=FT_VALUES), {FTB: (FT, params)})
    refused_configure(cm, FTB)


def test_ft_filter_chain_is_refused_clearly(rig, capfd):
    params = {
        'sensor_name': 'wrist_ft',
        'frame_id': 'tool0',
        'sensor_filter_chain': {'filter1': {'name': 'low_pass', 'type': 'filters/LowPassFilter'}},
    }
    cm = rig.start(mock_robot(wrist_ft=FT_VALUES), {FTB: (FT, params)})
    capfd.readouterr()
    refused_configure(cm, FTB)
    _, err = capfd.readouterr()
    assert 'sensor_filter_chain.filter1.type' in err
    assert "'filters' package" in err


def test_ft_with_a_missing_interface_is_not_activated(rig):
    values = {k: v for k, v in FT_VALUES.items() if k != 'torque.y'}
    params = {'sensor_name': 'wrist_ft', 'frame_id': 'tool0'}
    cm = rig.start(mock_robot(wrist_ft=values), {FTB: (FT, params)})
    refused_activation(cm, FTB, 'wrist_ft/torque.y')


# --- range_sensor_broadcaster -----------------------------------------------------------------
RANGE = 'range_sensor_broadcaster/RangeSensorBroadcaster'
RSB = 'range_sensor_broadcaster'
RANGE_PARAMS = {
    'sensor_name': 'sonar',
    'frame_id': 'sonar_link',
    'radiation_type': 1,
    'field_of_view': 0.1,
    'min_range': 0.1,
    'max_range': 7.0,
    'variance': 1.0,
}


def test_range_reading_and_configured_fields(rig):
    cm = rig.start(mock_robot(sonar={'range': 1.25}), {RSB: (RANGE, RANGE_PARAMS)})
    received = rig.subscribe(Range, f'/{RSB}/range')
    cm.start(RSB)
    msg = wait_for(cm, received)
    assert msg.header.frame_id == 'sonar_link'
    assert_stamped_by_a_cycle(cm, msg)
    assert msg.range == 1.25
    assert msg.radiation_type == Range.INFRARED
    assert msg.field_of_view == to_float32(0.1)
    assert (msg.min_range, msg.max_range, msg.variance) == (to_float32(0.1), 7.0, 1.0)
    # outside [min_range, max_range] it is published as read, as upstream
    cm.manager.rm.state_interfaces['sonar/range'].value = 9.5
    assert wait_for(cm, received, lambda m: m.range != 1.25).range == 9.5


@pytest.mark.parametrize(
    'change',
    [{'sensor_name': ''}, {'frame_id': ''}, {'radiation_type': 2}],
    ids=['no_sensor_name', 'no_frame_id', 'radiation_type_2'],
)
def test_range_configure_refuses(rig, change):
    cm = rig.start(mock_robot(sonar={'range': 1.25}), {RSB: (RANGE, {**RANGE_PARAMS, **change})})
    refused_configure(cm, RSB)


def test_range_with_a_missing_interface_is_not_activated(rig):
    cm = rig.start(mock_robot(sonar={'distance': 1.0}), {RSB: (RANGE, RANGE_PARAMS)})
    refused_activation(cm, RSB, 'sonar/range')


# --- pose_broadcaster -------------------------------------------------------------------------
POSE = 'pose_broadcaster/PoseBroadcaster'


def transforms(received: list) -> list:
    return [t for msg in received for t in msg.transforms]


def test_pose_and_its_transform_with_the_default_and_a_given_child_frame(rig):
    controllers = {
        'pose_broadcaster': (POSE, {'pose_name': 'marker', 'frame_id': 'base_link'}),
        'tag_broadcaster': (
            POSE,
            {'pose_name': 'marker', 'frame_id': 'camera', 'tf': {'child_frame_id': 'tag_36'}},
        ),
        'quiet_broadcaster': (
            POSE,
            {'pose_name': 'other', 'frame_id': 'map', 'tf': {'enable': False}},
        ),
    }
    other = dict(POSE_VALUES, **{'position.x': -1.0})
    cm = rig.start(mock_robot(marker=POSE_VALUES, other=other), controllers)
    poses = rig.subscribe(PoseStamped, '/pose_broadcaster/pose')
    quiet = rig.subscribe(PoseStamped, '/quiet_broadcaster/pose')
    tf = rig.subscribe(TFMessage, '/tf')
    cm.start(*controllers)
    msg = wait_for(cm, poses)
    assert msg.header.frame_id == 'base_link'
    assert_stamped_by_a_cycle(cm, msg)
    p, o = msg.pose.position, msg.pose.orientation
    assert (p.x, p.y, p.z, o.x, o.y, o.z, o.w) == (1.0, 2.0, 3.0, 0.0, 0.0, 0.6, 0.8)
    assert wait_for(cm, quiet).pose.position.x == -1.0  # ~/pose without tf
    children = lambda: {t.child_frame_id for t in transforms(tf)}  # noqa: E731
    assert cm.run_until(lambda: {'marker', 'tag_36'} <= children())
    wait_for(cm, quiet, lambda m: stamp_ns(m) > stamp_ns(quiet[0]))
    assert cm.run_until(lambda: len(transforms(tf)) >= 10)
    assert children() == {'marker', 'tag_36'}  # nothing from the quiet one
    marker = next(t for t in transforms(tf) if t.child_frame_id == 'marker')
    tag = next(t for t in transforms(tf) if t.child_frame_id == 'tag_36')
    assert (marker.header.frame_id, tag.header.frame_id) == ('base_link', 'camera')
    t, r = marker.transform.translation, marker.transform.rotation
    assert (t.x, t.y, t.z, r.x, r.y, r.z, r.w) == (1.0, 2.0, 3.0, 0.0, 0.0, 0.6, 0.8)


def test_an_invalid_pose_is_published_but_not_sent_to_tf(rig, capfd):
    params = {'pose_name': 'marker', 'frame_id': 'base_link'}
    cm = rig.start(mock_robot(marker=POSE_VALUES), {'pose_broadcaster': (POSE, params)})
    poses = rig.subscribe(PoseStamped, '/pose_broadcaster/pose')
    tf = rig.subscribe(TFMessage, '/tf')
    cm.start('pose_broadcaster')
    assert cm.run_until(lambda: bool(tf))
    w = cm.manager.rm.state_interfaces['marker/orientation.w']
    w.value = 0.5  # |q|^2 = 0.61
    invalid_from_ns = cm.now_ns + PERIOD_NS
    wait_for(cm, poses, lambda m: m.pose.orientation.w == 0.5)
    cm.step(5)
    w.value = 0.8
    valid_from_ns = cm.now_ns + PERIOD_NS
    wait_for(cm, tf, lambda m: stamp_ns(m.transforms[0]) >= valid_from_ns)
    stamps = [stamp_ns(t) for t in transforms(tf)]
    assert not [s for s in stamps if invalid_from_ns <= s < valid_from_ns]
    assert all(t.transform.rotation.w == 0.8 for t in transforms(tf))
    # logged by the executor, once for the six invalid cycles (at most once a second)
    line = 'Invalid pose [1.0, 2.0, 3.0], [0.0, 0.0, 0.6, 0.5]'
    err = []

    def logged() -> bool:
        err.append(capfd.readouterr().err)
        return line in ''.join(err)

    assert rig.harness.spin_until(logged)
    cm.run_for(0.1)
    assert (''.join(err) + capfd.readouterr().err).count(line) == 1


def test_pose_without_frame_id_does_not_configure(rig):
    params = {'pose_name': 'marker'}
    cm = rig.start(mock_robot(marker=POSE_VALUES), {'pose_broadcaster': (POSE, params)})
    refused_configure(cm, 'pose_broadcaster')


def test_pose_with_a_missing_interface_is_not_activated(rig):
    values = {k: v for k, v in POSE_VALUES.items() if k != 'orientation.w'}
    params = {'pose_name': 'marker', 'frame_id': 'base_link'}
    cm = rig.start(mock_robot(marker=values), {'pose_broadcaster': (POSE, params)})
    refused_activation(cm, 'pose_broadcaster', 'marker/orientation.w')
