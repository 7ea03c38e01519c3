"""state_interfaces_broadcaster on mock joints: real rclpy and DDS, a SteppedManager per test
(sensor_rig.py); the joints and values of upstream's test_state_interfaces_broadcaster.cpp.
Also the four newer broadcasters together from config/sensor_controllers.yaml."""

from __future__ import annotations

import math

import pytest
from control_msgs.msg import Float64Values, Keys
from rclpy.qos import DurabilityPolicy, QoSProfile
from sensor_msgs.msg import BatteryState, MagneticField, NavSatFix
from sensor_rig import assert_stamped_by_a_cycle, refused_configure, rig_fixture, wait_for

from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.testing import CONFIG

rig = pytest.fixture(rig_fixture, name='rig')

SIB = 'state_interfaces_broadcaster'
SI = 'state_interfaces_broadcaster/StateInterfacesBroadcaster'
JOINT_VALUES = {'joint1': 1.1, 'joint2': 2.1, 'joint3': 3.1}  # upstream's joint_values_
LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)


def three_joints(extra: str = '') -> str:
    """Mock joints whose position, velocity and effort all start at the joint's value."""
    body = ''
    for joint, value in JOINT_VALUES.items():
        body += f'<joint name="{joint}"><command_interface name="position"/>'
        for itf in ('position', 'velocity', 'effort'):
            body += (
                f'<state_interface name="{itf}"><param name="initial_value">{value}</param>'
                '</state_interface>'
            )
        body += '</joint>'
    return (
        '<?xml version="1.0"?><robot name="r"><link name="base"/>'
        '<ros2_control name="Mock" type="system">'
        f'<hardware><plugin>mock_components/GenericSystem</plugin></hardware>{body}{extra}'
        '</ros2_control></robot>'
    )


def test_values_in_the_order_of_interfaces_and_names_latched(rig):
    # upstream: StatePublishTest (nine interfaces), ConfigureOnValidInterfaceListTest
    interfaces = [f'{j}/{i}' for j in JOINT_VALUES for i in ('position', 'velocity', 'effort')]
    interfaces = interfaces[::-1]  # any order: the values follow it
    cm = rig.start(three_joints(), {SIB: (SI, {'interfaces': interfaces})})
    values = rig.subscribe(Float64Values, f'/{SIB}/values')
    (ctrl,) = cm.start(SIB)
    msg = wait_for(cm, values)
    assert_stamped_by_a_cycle(cm, msg)
    assert list(msg.values) == [3.1] * 3 + [2.1] * 3 + [1.1] * 3
    # published once at configure: a subscriber that comes later still gets it
    names = rig.harness.subscribe(Keys, f'/{SIB}/names', LATCHED)
    assert rig.harness.spin_until(lambda: bool(names))
    assert list(names[0].keys) == interfaces
    assert ctrl.get_node().count_publishers(f'/{SIB}/names') == 1
    # a NaN reading is published as read
    cm.manager.rm.state_interfaces['joint2/velocity'].value = math.nan
    msg = wait_for(cm, values, lambda m: math.isnan(m.values[4]))
    assert msg.values[3] == 2.1


def test_non_double_interfaces_are_not_activated(rig):
    flag = (
        '<gpio name="io"><state_interface name="ready" data_type="bool">'
        '<param name="initial_value">1.0</param></state_interface></gpio>'
    )
    params = {'interfaces': ['joint1/position', 'io/ready']}
    cm = rig.start(three_joints(flag), {SIB: (SI, params)})
    cm.load(SIB)
    ok, _ = cm.manager.switch_controller([SIB], [], 2)
    assert not ok
    assert cm.manager.state_of(SIB) == LifecycleStateId.INACTIVE


def test_an_empty_interface_list_does_not_configure(rig):
    # upstream: FailOnEmptyInterfaceListTest (upstream fails the load, we the configure)
    cm = rig.start(three_joints(), {SIB: (SI, {})})
    refused_configure(cm, SIB)


def test_the_sensor_robot_config_runs_the_four_newer_broadcasters(rig):
    """config/sensor_controllers.yaml on config/sensor_robot.urdf, as a user starts them."""
    cm = rig.start(
        (CONFIG / 'sensor_robot.urdf').read_text(),
        params_files=(CONFIG / 'sensor_controllers.yaml',),
    )
    topics = {
        '/gps_sensor_broadcaster/gps/fix': NavSatFix,
        '/magnetometer_broadcaster/magnetic_field': MagneticField,
        '/battery_state_broadcaster/battery_state': BatteryState,
        f'/{SIB}/values': Float64Values,
    }
    received = {topic: rig.subscribe(msg_type, topic) for topic, msg_type in topics.items()}
    cm.start(*(t.split('/')[1] for t in topics))
    assert cm.run_until(lambda: all(received.values()), timeout_s=60.0)
    fix = received['/gps_sensor_broadcaster/gps/fix'][-1]
    assert (fix.header.frame_id, fix.latitude, fix.longitude, fix.altitude) == (
        'gps_link', 48.1486, 17.1077, 140.0)  # fmt: skip
    assert fix.position_covariance_type == NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN
    assert list(fix.position_covariance)[::4] == [0.25, 0.25, 1.0]
    field = received['/magnetometer_broadcaster/magnetic_field'][-1]
    assert (field.magnetic_field.x, field.magnetic_field.z) == (2.2e-05, -4.3e-05)
    battery = received['/battery_state_broadcaster/battery_state'][-1]
    assert battery.percentage == pytest.approx(75.0, abs=1e-4)  # (24.15 - 21) / (25.2 - 21)
    assert (battery.temperature, battery.current, battery.location) == (31.0, -2.5, 'base, ')
    values = received[f'/{SIB}/values'][-1].values
    assert list(values) == [0.0, 0.0, 0.0]  # both wheels and the arm at rest
