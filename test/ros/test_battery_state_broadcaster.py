"""battery_state_broadcaster on mock batteries: real rclpy and DDS, a SteppedManager per test
(sensor_rig.py); the batteries, parameters and numbers of upstream's
test_battery_state_broadcaster.cpp and battery_state_broadcaster_params.yaml."""

from __future__ import annotations

import math

import pytest
from control_msgs.msg import BatteryStateArray
from sensor_msgs.msg import BatteryState
from sensor_rig import assert_stamped_by_a_cycle, mock_robot, refused_configure, rig_fixture

from py_controllers.hardware_interface.types import LifecycleStateId

rig = pytest.fixture(rig_fixture, name='rig')

BATTERY = 'battery_state_broadcaster/BatteryStateBroadcaster'
BSB = 'battery_state_broadcaster'
LIPO = BatteryState.POWER_SUPPLY_TECHNOLOGY_LIPO
READINGS = ('temperature', 'current', 'charge', 'percentage', 'power_supply_status',
            'power_supply_health', 'present')  # fmt: skip
BATTERY0 = {'voltage': 5.0, 'temperature': 60.0, 'charge': 6000.0,
            'power_supply_status': 3.0, 'power_supply_health': 0.0}  # fmt: skip
BATTERY1 = {'voltage': 10.0, 'temperature': 80.0, 'current': 2000.0, 'charge': 5000.0,
            'percentage': 66.0, 'power_supply_status': 2.0, 'power_supply_health': 4.0}  # fmt: skip


def interfaces(readings: dict[str, float]) -> dict[str, float]:
    return {f'battery_{k}': v for k, v in readings.items()}


def enabled(readings: dict[str, float]) -> dict[str, bool]:
    return {f'battery_{r}': r in readings for r in READINGS}


PARAMS = {
    'batteries': ['battery0', 'battery1'],
    'interfaces': {'battery0': enabled(BATTERY0), 'battery1': enabled(BATTERY1)},
    'battery0': {'minimum_voltage': 0.0, 'maximum_voltage': 10.0, 'capacity': 12000.0,
                 'design_capacity': 13000.0, 'power_supply_technology': LIPO,
                 'location': 'slot0', 'serial_number': 'serial_device_0'},
    'battery1': {'minimum_voltage': 0.0, 'maximum_voltage': 15.0, 'capacity': 17000.0,
                 'design_capacity': 18000.0, 'power_supply_technology': LIPO,
                 'location': 'slot1', 'serial_number': 'serial_device_1'},
}  # fmt: skip


def start_two_batteries(rig, params=PARAMS):
    robot = mock_robot(battery0=interfaces(BATTERY0), battery1=interfaces(BATTERY1))
    cm = rig.start(robot, {BSB: (BATTERY, params)})
    raw = rig.subscribe(BatteryStateArray, f'/{BSB}/raw_battery_states')
    total = rig.subscribe(BatteryState, f'/{BSB}/battery_state')
    (ctrl,) = cm.start(BSB)
    return cm, ctrl, raw, total


def newest(cm, raw, total, predicate=lambda r, t: True):
    """Step until a raw and an aggregate message of one cycle satisfy `predicate`."""

    def pair():
        totals = {(t.header.stamp.sec, t.header.stamp.nanosec): t for t in total}
        for r in reversed(raw):
            t = totals.get((r.battery_states[0].header.stamp.sec,
                            r.battery_states[0].header.stamp.nanosec))  # fmt: skip
            if t is not None and predicate(r, t):
                return r, t
        return None

    assert cm.run_until(lambda: pair() is not None), 'no such pair of messages'
    return pair()


def test_each_battery_and_the_aggregate_as_upstream(rig):
    # upstream: check_exported_interfaces, publish_status_success
    cm, ctrl, raw, total = start_two_batteries(rig)
    assert len(ctrl.state_interface_configuration().names) == 12
    r, t = newest(cm, raw, total)
    b0, b1 = r.battery_states
    assert_stamped_by_a_cycle(cm, b0)
    assert (b0.header.frame_id, b1.header.frame_id, t.header.frame_id) == (
        'battery0',
        'battery1',
        '',
    )
    assert (b0.voltage, b0.temperature, b0.charge, b0.percentage) == (5.0, 60.0, 6000.0, 50.0)
    assert math.isnan(b0.current)
    assert (b0.capacity, b0.design_capacity) == (12000.0, 13000.0)
    assert (b0.power_supply_status, b0.power_supply_health, b0.present) == (3, 0, True)
    assert (b0.power_supply_technology, b0.location, b0.serial_number) == (
        LIPO, 'slot0', 'serial_device_0')  # fmt: skip
    assert (b1.voltage, b1.temperature, b1.current, b1.charge) == (10.0, 80.0, 2000.0, 5000.0)
    assert (b1.capacity, b1.design_capacity, b1.percentage) == (17000.0, 18000.0, 66.0)
    assert (b1.power_supply_status, b1.power_supply_health, b1.present) == (2, 4, True)
    assert (t.voltage, t.temperature, t.current, t.charge) == (7.5, 70.0, 2000.0, 11000.0)
    assert (t.capacity, t.design_capacity, t.percentage) == (29000.0, 31000.0, 58.0)
    assert (t.power_supply_status, t.power_supply_health) == (3, 4)
    assert (t.power_supply_technology, t.present) == (LIPO, True)
    assert (t.location, t.serial_number) == ('slot0, slot1, ', 'serial_device_0, serial_device_1, ')
    assert (list(t.cell_voltage), list(b0.cell_temperature)) == ([], [])


def test_new_and_nan_voltages(rig):
    # upstream: update_broadcasted_success, publish_nan_voltage
    cm, _, raw, total = start_two_batteries(rig)
    voltage = cm.manager.rm.state_interfaces['battery0/battery_voltage']
    voltage.value = 10.0
    r, t = newest(cm, raw, total, lambda r, t: r.battery_states[0].voltage == 10.0)
    assert (r.battery_states[0].percentage, r.battery_states[1].percentage) == (100.0, 66.0)
    assert (t.voltage, t.percentage, t.present) == (10.0, 83.0, True)
    voltage.value = math.nan
    r, t = newest(cm, raw, total, lambda r, t: math.isnan(r.battery_states[0].voltage))
    b0, b1 = r.battery_states
    assert math.isnan(b0.percentage) and not b0.present
    assert (b1.voltage, b1.percentage, b1.present) == (10.0, 66.0, True)
    assert math.isnan(t.voltage) and math.isnan(t.percentage) and t.present


def test_battery_present_read_from_a_bool_interface(rig):
    params = {'batteries': ['pack'], 'interfaces': {'pack': {'battery_present': True}}}
    robot = (
        '<?xml version="1.0"?><robot name="r"><link name="base"/>'
        '<ros2_control name="Pack" type="system">'
        '<hardware><plugin>mock_components/GenericSystem</plugin></hardware>'
        '<sensor name="pack">'
        '<state_interface name="battery_voltage"><param name="initial_value">24.0</param>'
        '</state_interface><state_interface name="battery_present" data_type="bool">'
        '<param name="initial_value">0.0</param></state_interface>'
        '</sensor></ros2_control></robot>'
    )
    cm = rig.start(robot, {BSB: (BATTERY, params)})
    raw = rig.subscribe(BatteryStateArray, f'/{BSB}/raw_battery_states')
    cm.start(BSB)
    assert cm.run_until(lambda: bool(raw))
    assert raw[-1].battery_states[0].present is False  # read, although 24 V
    cm.manager.rm.state_interfaces['pack/battery_present'].value = 1.0
    assert cm.run_until(lambda: raw[-1].battery_states[0].present)


def test_battery_present_on_a_double_interface_is_not_activated(rig):
    params = {'batteries': ['pack'], 'interfaces': {'pack': {'battery_present': True}}}
    robot = mock_robot(pack={'battery_voltage': 24.0, 'battery_present': 1.0})
    cm = rig.start(robot, {BSB: (BATTERY, params)})
    cm.load(BSB)
    ok, _ = cm.manager.switch_controller([BSB], [], 2)
    assert not ok
    assert cm.manager.state_of(BSB) == LifecycleStateId.INACTIVE


def test_deprecated_sensor_name(rig):
    # upstream's legacy form: <sensor_name>/voltage, top-level design capacity and technology
    params = {
        'sensor_name': 'battery_state',
        'design_capacity': 100.0,
        'power_supply_technology': 2,
    }
    cm = rig.start(mock_robot(battery_state={'voltage': 12.5}), {BSB: (BATTERY, params)})
    raw = rig.subscribe(BatteryStateArray, f'/{BSB}/raw_battery_states')
    total = rig.subscribe(BatteryState, f'/{BSB}/battery_state')
    (ctrl,) = cm.start(BSB)
    assert ctrl.state_interface_configuration().names == ['battery_state/voltage']
    assert cm.run_until(lambda: bool(raw) and bool(total))
    assert raw[-1].battery_states == []
    t = total[-1]
    assert (t.voltage, t.design_capacity, t.capacity, t.power_supply_technology) == (
        12.5,
        100.0,
        0.0,
        2,
    )
    assert math.isnan(t.percentage) and math.isnan(t.charge) and t.present


@pytest.mark.parametrize(
    'params',
    [
        {},
        {'sensor_name': 'battery_state', 'batteries': ['battery0']},
        {'batteries': ['battery0'], 'battery0': {'minimum_voltage': 10.0, 'maximum_voltage': 10.0}},
        {'batteries': ['battery0', 'battery0']},
    ],
    ids=['no_batteries', 'both_forms', 'empty_voltage_range', 'repeated'],
)
def test_configure_refuses(rig, params):
    cm = rig.start(mock_robot(battery0=interfaces(BATTERY0)), {BSB: (BATTERY, params)})
    refused_configure(cm, BSB)
