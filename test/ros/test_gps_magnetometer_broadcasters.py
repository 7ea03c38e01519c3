"""The GPS and magnetometer broadcasters on mock sensors: real rclpy and DDS, a SteppedManager
per test (sensor_rig.py); the numbers of upstream's test_gps_sensor_broadcaster.cpp and
test_magnetometer_broadcaster.cpp."""

from __future__ import annotations

import math

import pytest
from sensor_msgs.msg import MagneticField, NavSatFix
from sensor_rig import (
    assert_stamped_by_a_cycle,
    mock_robot,
    refused_configure,
    rig_fixture,
    wait_for,
)

from py_controllers.hardware_interface.types import LifecycleStateId

rig = pytest.fixture(rig_fixture, name='rig')

# --- gps_sensor_broadcaster -------------------------------------------------------------------
GPS = 'gps_sensor_broadcaster/GPSSensorBroadcaster'
GSB = 'gps_sensor_broadcaster'
# upstream's sensor_values_: status, service, latitude, longitude, altitude, and the variances
GPS_VALUES = {'status': 1.0, 'service': 1.0, 'latitude': 1.1, 'longitude': 2.2, 'altitude': 3.3}
GPS_VARIANCES = {
    'latitude_covariance': 0.5,
    'longitude_covariance': 0.7,
    'altitude_covariance': 0.9,
}
GPS_PARAMS = {'sensor_name': 'gps_sensor', 'frame_id': 'gps_sensor_frame'}


def assert_fix(msg: NavSatFix) -> None:
    assert msg.header.frame_id == 'gps_sensor_frame'
    assert (msg.status.status, msg.status.service) == (1, 1)
    assert (msg.latitude, msg.longitude, msg.altitude) == (1.1, 2.2, 3.3)


def test_gps_fix_with_the_default_static_covariance(rig):
    # upstream: whenBroadcasterIsActiveShouldPublishNavSatMsgWithCovarianceSetToZero
    cm = rig.start(mock_robot(gps_sensor=GPS_VALUES), {GSB: (GPS, GPS_PARAMS)})
    received = rig.subscribe(NavSatFix, f'/{GSB}/gps/fix')
    (ctrl,) = cm.start(GSB)
    assert ctrl.state_interface_configuration().names == [f'gps_sensor/{i}' for i in GPS_VALUES]
    msg = wait_for(cm, received)
    assert_fix(msg)
    assert_stamped_by_a_cycle(cm, msg)
    assert list(msg.position_covariance) == [0.0] * 9
    assert msg.position_covariance_type == NavSatFix.COVARIANCE_TYPE_KNOWN


def test_gps_fix_with_a_static_covariance(rig):
    # upstream: whenBroadcasterIsActiveAndStaticCovarianceShouldPublishNavSatMsgWithStaticCovariance
    covariance = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    params = {**GPS_PARAMS, 'static_position_covariance': covariance}
    cm = rig.start(mock_robot(gps_sensor=GPS_VALUES), {GSB: (GPS, params)})
    received = rig.subscribe(NavSatFix, f'/{GSB}/gps/fix')
    cm.start(GSB)
    msg = wait_for(cm, received)
    assert_fix(msg)
    assert list(msg.position_covariance) == covariance
    assert msg.position_covariance_type == NavSatFix.COVARIANCE_TYPE_KNOWN


def test_gps_variances_read_from_the_interfaces(rig):
    # upstream: whenBroadcasterReadsCovarianceFormInterfaceThenValusesShouldBroadcastedInMsg
    params = {**GPS_PARAMS, 'read_covariance_from_interface': True}
    values = {**GPS_VALUES, **GPS_VARIANCES}
    cm = rig.start(mock_robot(gps_sensor=values), {GSB: (GPS, params)})
    received = rig.subscribe(NavSatFix, f'/{GSB}/gps/fix')
    cm.start(GSB)
    msg = wait_for(cm, received)
    assert_fix(msg)
    assert list(msg.position_covariance) == [0.5, 0.0, 0.0, 0.0, 0.7, 0.0, 0.0, 0.0, 0.9]
    assert msg.position_covariance_type == NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN
    # a new reading reaches the next messages; a NaN latitude is published as read
    states = cm.manager.rm.state_interfaces
    states['gps_sensor/altitude_covariance'].value = 4.0
    states['gps_sensor/latitude'].value = math.nan
    msg = wait_for(cm, received, lambda m: m.position_covariance[8] == 4.0)
    assert math.isnan(msg.latitude) and msg.longitude == 2.2


def test_gps_with_covariance_needs_the_variance_interfaces(rig):
    params = {**GPS_PARAMS, 'read_covariance_from_interface': True}
    cm = rig.start(mock_robot(gps_sensor=GPS_VALUES), {GSB: (GPS, params)})
    cm.load(GSB)
    ok, msg = cm.manager.switch_controller([GSB], [], 2)
    assert not ok and "'gps_sensor/latitude_covariance'" in msg
    assert cm.manager.state_of(GSB) == LifecycleStateId.INACTIVE


@pytest.mark.parametrize(
    'params',
    [{}, {'sensor_name': 'gps_sensor'}, {'frame_id': 'gps_sensor_frame'}],
    ids=['no_params', 'only_sensor_name', 'only_frame_id'],
)
def test_gps_needs_sensor_name_and_frame_id(rig, params):
    # upstream: whenNoParamsAreSetThenInitShouldFail, whenOnlySensorNameIsSetThenInitShouldFail
    cm = rig.start(mock_robot(gps_sensor=GPS_VALUES), {GSB: (GPS, params)})
    refused_configure(cm, GSB)


# --- magnetometer_broadcaster -----------------------------------------------------------------
MAG = 'magnetometer_broadcaster/MagnetometerBroadcaster'
MB = 'magnetometer_broadcaster'
FIELD = {'magnetic_field.x': 20e-6, 'magnetic_field.y': 30e-6, 'magnetic_field.z': 40e-6}
MAG_PARAMS = {'sensor_name': 'magnetometer', 'frame_id': 'magnetometer_frame'}


@pytest.mark.parametrize(
    'covariance',
    [None, [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]],
    ids=['default_zero_covariance', 'static_covariance'],
)
def test_magnetic_field_frame_and_covariance(rig, covariance):
    # upstream: whenBroadcasterIsActiveShouldPublishWithCovarianceSetToZero,
    # whenBroadcasterIsActiveAndStaticCovarianceShouldPublishWithStaticCovariance
    params = dict(MAG_PARAMS)
    if covariance is not None:
        params['static_covariance'] = covariance
    cm = rig.start(mock_robot(magnetometer=FIELD), {MB: (MAG, params)})
    received = rig.subscribe(MagneticField, f'/{MB}/magnetic_field')
    cm.start(MB)
    msg = wait_for(cm, received)
    assert msg.header.frame_id == 'magnetometer_frame'
    assert_stamped_by_a_cycle(cm, msg)
    f = msg.magnetic_field
    assert (f.x, f.y, f.z) == (20e-6, 30e-6, 40e-6)
    assert list(msg.magnetic_field_covariance) == (covariance or [0.0] * 9)
    cm.manager.rm.state_interfaces['magnetometer/magnetic_field.z'].value = -5e-6
    assert wait_for(cm, received, lambda m: m.magnetic_field.z != 40e-6).magnetic_field.z == -5e-6


@pytest.mark.parametrize(
    'params',
    [{}, {'sensor_name': 'magnetometer'}],
    ids=['no_params', 'only_sensor_name'],
)
def test_magnetometer_needs_sensor_name_and_frame_id(rig, params):
    # upstream: whenNoParamsAreSetThenInitShouldFail, whenOnlySensorNameIsSetThenInitShouldFail
    cm = rig.start(mock_robot(magnetometer=FIELD), {MB: (MAG, params)})
    refused_configure(cm, MB)
