"""GPSSensor and MagneticFieldSensor (no ROS node): interface names and order, values, real
sensor_msgs messages filled in place; numbers of upstream's test_gps_sensor.cpp and
test_magnetic_field_sensor.cpp."""

import math

import pytest
from sensor_msgs.msg import MagneticField, NavSatFix

from py_controllers.hardware_interface.handle import StateInterface
from py_controllers.semantic_components import GPSSensor, MagneticFieldSensor
from py_controllers.semantic_components.casts import to_integer
from py_controllers.semantic_components.gps_sensor import SERVICE_NO_READING, STATUS_NO_READING

FIX = ('status', 'service', 'latitude', 'longitude', 'altitude')
VARIANCES = ('latitude_covariance', 'longitude_covariance', 'altitude_covariance')


def gps_handles(*interfaces: str) -> dict[str, StateInterface]:
    """Handles 'gps_sensor/<interface>' at 0.0, by interface name."""
    return {itf: StateInterface('gps_sensor', itf, 0.0) for itf in interfaces}


def set_values(hs: dict[str, StateInterface], values: dict[str, float]) -> None:
    for itf, value in values.items():
        hs[itf].value = value


# --- GPS --------------------------------------------------------------------------------------
def test_gps_interfaces_in_upstream_order_with_and_without_covariance():
    # upstream: interfaces_name_should_contain_status_latitude_longitude_altitude_...
    assert GPSSensor('gps_sensor').get_state_interface_names() == [f'gps_sensor/{i}' for i in FIX]
    names = GPSSensor('gps_sensor', with_covariance=True).get_state_interface_names()
    assert names == [f'gps_sensor/{i}' for i in FIX + VARIANCES]


def test_gps_getters_follow_the_handles():
    # upstream: status_latitude_longitude_altitude_should_be_equal_to_corresponding_values_...
    hs = gps_handles(*FIX)
    gps = GPSSensor('gps_sensor')
    gps.assign_loaned_state_interfaces(reversed(list(hs.values())))
    assert (gps.get_status(), gps.get_service()) == (0, 0)
    assert (gps.get_latitude(), gps.get_longitude(), gps.get_altitude()) == (0.0, 0.0, 0.0)
    set_values(hs, dict(zip(FIX, (1.0, 3.0, 2.0, 3.0, 4.0))))
    assert (gps.get_status(), gps.get_service()) == (1, 3)
    assert (gps.get_latitude(), gps.get_longitude(), gps.get_altitude()) == (2.0, 3.0, 4.0)
    with pytest.raises(TypeError):
        gps.get_covariance()  # the option without covariance has none


def test_gps_fills_a_navsatfix_and_leaves_its_covariance_without_the_option():
    # upstream: should_fill_gps_nav_sat_fix_msg_with_value_from_state_interface
    hs = gps_handles(*FIX)
    gps = GPSSensor('gps_sensor')
    gps.assign_loaned_state_interfaces(hs.values())
    msg = NavSatFix()
    msg.position_covariance[:] = [9.0] * 9
    set_values(hs, dict(zip(FIX, (1.0, 3.0, 2.0, 3.0, 4.0))))
    assert gps.get_values_as_message(msg)
    assert (msg.status.status, msg.status.service) == (1, 3)
    assert (msg.latitude, msg.longitude, msg.altitude) == (2.0, 3.0, 4.0)
    assert list(msg.position_covariance) == [9.0] * 9


def test_gps_with_covariance_puts_the_variances_on_the_diagonal():
    # upstream: GPSSensorWithCovarianceTest, both tests
    hs = gps_handles(*FIX, *VARIANCES)
    gps = GPSSensor('gps_sensor', with_covariance=True)
    gps.assign_loaned_state_interfaces(hs.values())
    msg = NavSatFix()
    assert gps.get_values_as_message(msg)
    assert list(msg.position_covariance) == [0.0] * 9
    set_values(hs, dict(zip(FIX + VARIANCES, (1.0, 2.0, 2.0, 3.0, 4.0, 0.5, 0.2, 0.7))))
    assert gps.get_values_as_message(msg)
    assert (msg.status.status, msg.status.service) == (1, 2)
    assert (msg.latitude, msg.longitude, msg.altitude) == (2.0, 3.0, 4.0)
    assert list(msg.position_covariance) == [0.5, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.7]
    assert gps.get_covariance() == [0.5, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.7]


def test_gps_status_and_service_are_cut_toward_zero_and_unreadable_ones_marked():
    hs = gps_handles(*FIX)
    gps = GPSSensor('gps_sensor')
    gps.assign_loaned_state_interfaces(hs.values())
    set_values(hs, {'status': -1.9, 'service': 8.7})  # STATUS_NO_FIX, SERVICE_GALILEO
    assert (gps.get_status(), gps.get_service()) == (-1, 8)
    set_values(hs, {'status': math.nan, 'service': -1.0})
    assert (gps.get_status(), gps.get_service()) == (STATUS_NO_READING, SERVICE_NO_READING)
    set_values(hs, {'status': 128.0, 'service': math.inf})
    msg = NavSatFix()  # the message takes them: 127 is an int8, 65535 a uint16
    gps.get_values_as_message(msg)
    assert (msg.status.status, msg.status.service) == (127, 65535)


def test_to_integer_bounds():
    assert to_integer(255.99, 0, 255, 0) == 255
    assert to_integer(256.0, 0, 255, 0) == 0
    assert to_integer(-0.5, 0, 255, 7) == 0  # cut toward zero: -0 is in range


# --- magnetometer -----------------------------------------------------------------------------
def test_magnetic_field_names_jumbled_assignment_and_message():
    # upstream: MagneticFieldSensorTest.validate_all (values 4.4, 5.5, 6.6)
    sensor = MagneticFieldSensor('mag')
    names = ['mag/magnetic_field.x', 'mag/magnetic_field.y', 'mag/magnetic_field.z']
    assert sensor.get_state_interface_names() == names
    x, y, z = (
        StateInterface('mag', f'magnetic_field.{a}', v) for a, v in zip('xyz', (4.4, 5.5, 6.6))
    )
    sensor.assign_loaned_state_interfaces([y, z, x])
    msg = MagneticField()
    msg.magnetic_field_covariance[:] = [1.0] * 9
    assert sensor.get_values_as_message(msg)
    f = msg.magnetic_field
    assert (f.x, f.y, f.z) == (4.4, 5.5, 6.6)
    assert list(msg.magnetic_field_covariance) == [1.0] * 9  # untouched
    y.value = math.nan  # passed as read
    sensor.get_values_as_message(msg)
    assert math.isnan(msg.magnetic_field.y) and sensor.get_magnetic_field()[2] == 6.6
    sensor.release_interfaces()
    assert not sensor.is_assigned
