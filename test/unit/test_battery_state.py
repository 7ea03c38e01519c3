"""The battery state rules (no ROS node): per-battery messages and their aggregate, with the
batteries and numbers of upstream's test_battery_state_broadcaster.cpp."""

import math

from sensor_msgs.msg import BatteryState

from py_controllers.controllers.sensor_broadcasters.battery_state import (
    BatterySpec,
    BatteryStates,
)
from py_controllers.hardware_interface.handle import StateInterface

LIPO = BatteryState.POWER_SUPPLY_TECHNOLOGY_LIPO
BATTERY0 = BatterySpec(
    'battery0',
    ('battery_temperature', 'battery_charge', 'battery_power_supply_status',
     'battery_power_supply_health'),
    0.0, 10.0, 12000.0, 13000.0, LIPO, 'slot0', 'serial_device_0',
)  # fmt: skip
BATTERY1 = BatterySpec(
    'battery1',
    ('battery_temperature', 'battery_current', 'battery_charge', 'battery_percentage',
     'battery_power_supply_status', 'battery_power_supply_health'),
    0.0, 15.0, 17000.0, 18000.0, LIPO, 'slot1', 'serial_device_1',
)  # fmt: skip
# upstream's itfs_values_, in the order the interfaces are claimed
VALUES = (5.0, 60.0, 6000.0, 3.0, 0.0, 10.0, 80.0, 2000.0, 5000.0, 66.0, 2.0, 4.0)


def two_batteries():
    states = BatteryStates([BATTERY0, BATTERY1])
    handles = {}
    for name, value in zip(states.interface_names(), VALUES):
        prefix, _, itf = name.partition('/')
        handles[name] = StateInterface(prefix, itf, value)
    states.bind(reversed(list(handles.values())))
    raw, total = [BatteryState(), BatteryState()], BatteryState()
    states.init_messages(raw, total)
    return states, handles, raw, total


def test_interfaces_claimed_in_upstream_order():
    # upstream: check_exported_interfaces
    assert BatteryStates([BATTERY0, BATTERY1]).interface_names() == [
        'battery0/battery_voltage',
        'battery0/battery_temperature',
        'battery0/battery_charge',
        'battery0/battery_power_supply_status',
        'battery0/battery_power_supply_health',
        'battery1/battery_voltage',
        'battery1/battery_temperature',
        'battery1/battery_current',
        'battery1/battery_charge',
        'battery1/battery_percentage',
        'battery1/battery_power_supply_status',
        'battery1/battery_power_supply_health',
    ]


def test_each_battery_and_the_aggregate():
    # upstream: publish_status_success
    states, _, raw, total = two_batteries()
    states.update_raw(raw)
    states.update_total(raw, total)
    b0, b1 = raw
    assert b0.header.frame_id == 'battery0'
    assert (b0.voltage, b0.temperature, b0.charge) == (5.0, 60.0, 6000.0)
    assert math.isnan(b0.current)  # not read
    assert (b0.capacity, b0.design_capacity) == (12000.0, 13000.0)
    assert b0.percentage == 50.0  # (5 - 0) * 100 / (10 - 0)
    assert (b0.power_supply_status, b0.power_supply_health) == (3, 0)
    assert b0.power_supply_technology == LIPO and b0.present
    assert (b0.location, b0.serial_number) == ('slot0', 'serial_device_0')
    assert b1.header.frame_id == 'battery1'
    assert (b1.voltage, b1.temperature, b1.current, b1.charge) == (10.0, 80.0, 2000.0, 5000.0)
    assert (b1.capacity, b1.design_capacity) == (17000.0, 18000.0)
    assert b1.percentage == 66.0  # read
    assert (b1.power_supply_status, b1.power_supply_health) == (2, 4)
    assert b1.power_supply_technology == LIPO and b1.present
    assert (b1.location, b1.serial_number) == ('slot1', 'serial_device_1')
    assert total.header.frame_id == ''
    assert (total.voltage, total.temperature) == (7.5, 70.0)  # means
    assert total.current == 2000.0  # battery1 alone reads it
    assert (total.charge, total.capacity, total.design_capacity) == (11000.0, 29000.0, 31000.0)
    assert total.percentage == 58.0  # mean of 50 and 66
    assert (total.power_supply_status, total.power_supply_health) == (3, 4)  # highest
    assert total.power_supply_technology == LIPO and total.present
    assert total.location == 'slot0, slot1, '
    assert total.serial_number == 'serial_device_0, serial_device_1, '


def test_a_new_voltage_moves_the_computed_percentage():
    # upstream: update_broadcasted_success
    states, handles, raw, total = two_batteries()
    handles['battery0/battery_voltage'].value = 10.0
    states.update_raw(raw)
    states.update_total(raw, total)
    assert (raw[0].voltage, raw[0].percentage, raw[0].present) == (10.0, 100.0, True)
    assert (raw[1].voltage, raw[1].percentage, raw[1].present) == (10.0, 66.0, True)
    assert (total.voltage, total.percentage, total.present) == (10.0, 83.0, True)


def test_a_nan_voltage_is_published_and_the_battery_absent():
    # upstream: publish_nan_voltage
    states, handles, raw, total = two_batteries()
    handles['battery0/battery_voltage'].value = math.nan
    states.update_raw(raw)
    states.update_total(raw, total)
    assert math.isnan(raw[0].voltage) and math.isnan(raw[0].percentage)
    assert not raw[0].present  # inferred from the voltage
    assert (raw[1].voltage, raw[1].percentage, raw[1].present) == (10.0, 66.0, True)
    assert math.isnan(total.voltage) and math.isnan(total.percentage)
    assert total.present


def test_unread_fields_and_mixed_technologies():
    plain = BatterySpec('a', power_supply_technology=LIPO)
    other = BatterySpec('b', ('battery_present',), power_supply_technology=2)
    states = BatteryStates([plain, other])
    hs = [StateInterface('a', 'battery_voltage', 0.0), StateInterface('b', 'battery_voltage', 12.0)]
    present = StateInterface('b', 'battery_present', 0.0, data_type='bool')
    states.bind([*hs, present])
    raw, total = [BatteryState(), BatteryState()], BatteryState()
    states.init_messages(raw, total)
    states.update_raw(raw)
    states.update_total(raw, total)
    assert not raw[0].present  # voltage 0
    assert not raw[1].present  # read: false although the voltage is 12
    for field in ('temperature', 'current', 'charge', 'percentage', 'capacity'):
        assert math.isnan(getattr(raw[0], field)), field
        assert math.isnan(getattr(total, field)), field
    assert total.voltage == 6.0
    assert total.power_supply_technology == BatteryState.POWER_SUPPLY_TECHNOLOGY_UNKNOWN
    assert (total.location, total.serial_number) == (', , ', ', , ')
    present.value = 1.0
    states.update_raw(raw)
    assert raw[1].present


def test_status_health_outside_uint8_are_unknown_and_float32_rounding():
    spec = BatterySpec('a', ('battery_power_supply_status', 'battery_power_supply_health'))
    states = BatteryStates([spec])
    voltage = StateInterface('a', 'battery_voltage', 0.1)
    status = StateInterface('a', 'battery_power_supply_status', 300.0)
    health = StateInterface('a', 'battery_power_supply_health', math.nan)
    states.bind([voltage, status, health])
    raw, total = [BatteryState()], BatteryState()
    states.init_messages(raw, total)
    states.update_raw(raw)
    assert (raw[0].power_supply_status, raw[0].power_supply_health) == (0, 0)
    assert raw[0].voltage == 0.10000000149011612  # float32(0.1)
    voltage.value = 1e300
    states.update_raw(raw)
    assert raw[0].voltage == math.inf  # beyond float32, as static_cast<float>


def test_spec_problems():
    assert BatterySpec('a', minimum_voltage=10.0, maximum_voltage=10.0).problem() == (
        "battery 'a': maximum_voltage (10.0) must be greater than minimum_voltage (10.0)"
    )
    assert 'finite' in BatterySpec('a', maximum_voltage=math.inf).problem()
    assert BatterySpec('a', minimum_voltage=1.0).problem() == ''  # one of them: no percentage
    assert not BatterySpec('a', minimum_voltage=1.0).has_percentage


def test_the_mean_percentage_leaves_out_batteries_without_one():
    with_range = BatterySpec('a', minimum_voltage=20.0, maximum_voltage=25.0)
    states = BatteryStates([with_range, BatterySpec('b')])
    states.bind(
        [StateInterface('a', 'battery_voltage', 24.0), StateInterface('b', 'battery_voltage', 12.0)]
    )
    raw, total = [BatteryState(), BatteryState()], BatteryState()
    states.init_messages(raw, total)
    states.update_raw(raw)
    states.update_total(raw, total)
    assert raw[0].percentage == 80.0 and math.isnan(raw[1].percentage)
    assert (total.percentage, total.voltage) == (80.0, 18.0)  # one battery's; both voltages
