"""Servo bus arithmetic against the manuals' worked numbers: units, registers, CRC, checksum."""

import math

import pytest

from py_controllers.hardware.servo_bus import packets
from py_controllers.hardware.servo_bus.models import (
    MODELS,
    Register,
    by_number,
    error_text,
    fast_sync_read_supported,
)
from py_controllers.hardware.servo_bus.units import (
    JointTransform,
    amperes_to_raw,
    rad_s_to_raw,
    rad_to_ticks,
    raw_to_amperes,
    raw_to_rad_s,
    ticks_to_rad,
)

XM430, XL330, XL430, XM540 = (
    MODELS[n] for n in ('XM430-W350', 'XL330-M288', 'XL430-W250', 'XM540-W270')
)
STS3215 = MODELS['STS3215']


@pytest.mark.parametrize('model', [XM430, XL330, XL430, XM540, STS3215])
def test_position_ticks_are_0_088_degrees_around_the_centre(model):
    # e-manual: 0.088 deg per tick, 1 rev = 0..4095; Feetech: 4096 steps per revolution
    assert math.degrees(ticks_to_rad(model, 2049)) == pytest.approx(0.087890625)
    assert ticks_to_rad(model, 2048) == 0.0
    assert ticks_to_rad(model, 3072) == pytest.approx(math.pi / 2)
    assert ticks_to_rad(model, 0) == pytest.approx(-math.pi)
    assert rad_to_ticks(model, -math.pi / 2) == 1024
    assert rad_to_ticks(model, math.radians(0.088 * 100)) == 2148


def test_dynamixel_velocity_units_are_0_229_rpm():
    # e-manual: Goal/Present Velocity unit 0.229 rev/min: 100 units = 22.9 rpm = 2.398 rad/s
    assert raw_to_rad_s(XM430, 100) == pytest.approx(22.9 * 2 * math.pi / 60)
    assert raw_to_rad_s(XM430, -1) == pytest.approx(-0.0239808)
    assert rad_s_to_raw(XM430, 2 * math.pi) == 262  # 60 rpm / 0.229 = 262.0
    assert raw_to_rad_s(XL330, 100) == raw_to_rad_s(XM430, 100)


def test_feetech_velocity_is_steps_per_second():
    # Feetech: 50 steps/s = 0.732 rev/min
    assert raw_to_rad_s(STS3215, 50) * 60 / (2 * math.pi) == pytest.approx(0.732, abs=5e-4)
    assert rad_s_to_raw(STS3215, 2 * math.pi) == 4096


def test_current_units_per_model():
    # XM430/XM540: about 2.69 mA per unit; XL330: 1 mA; STS3215: 6.5 mA; XL430: none
    assert raw_to_amperes(XM430, 1000) == pytest.approx(2.69)
    assert raw_to_amperes(XM540, -100) == pytest.approx(-0.269)
    assert raw_to_amperes(XL330, 1000) == pytest.approx(1.0)
    assert raw_to_amperes(STS3215, 100) == pytest.approx(0.65)
    assert amperes_to_raw(XM430, 1.0) == 372  # 1000 / 2.69 = 371.7
    assert math.isnan(raw_to_amperes(XL430, 5))
    with pytest.raises(ValueError, match='no current control'):
        amperes_to_raw(XL430, 0.1)
    assert 'effort' not in XL430.modes and XM430.modes == {
        'position': 3,
        'velocity': 1,
        'effort': 0,
    }


def test_registers_encode_twos_complement_and_sign_magnitude():
    dxl_velocity = Register(128, 4, signed=True)
    assert dxl_velocity.encode(-1) == 0xFFFFFFFF
    assert dxl_velocity.decode(0xFFFFFFFF) == -1
    sts_velocity = STS3215.present_velocity  # bit 15 is the sign (Feetech, LeRobot's table)
    assert sts_velocity.encode(-50) == 0x8032
    assert sts_velocity.decode(0x8032) == -50
    assert sts_velocity.decode(50) == 50
    with pytest.raises(ValueError):
        Register(64, 1).encode(256)
    with pytest.raises(ValueError):
        sts_velocity.encode(1 << 15)


def test_joint_transform_offset_reverse_gear_ratio():
    t = JointTransform(offset=0.5, reverse=True, gear_ratio=2.0)
    # servo a quarter turn positive: the joint goes -pi/4 from its offset
    assert t.position(XM430, 3072) == pytest.approx(0.5 - math.pi / 4)
    assert t.position_ticks(XM430, 0.5 - math.pi / 4) == 3072
    assert t.velocity(XM430, 100) == pytest.approx(-2.398 / 2, rel=1e-3)
    assert t.effort(XM430, 1000) == pytest.approx(-2.69)
    assert t.effort_raw(XM430, -2.69) == 1000
    assert t.position_range(XM430, 0, 4095) == pytest.approx(
        (0.5 - math.pi / 2 + 0.000767, 0.5 + math.pi / 2), abs=1e-4
    )


def test_model_numbers_and_error_bits():
    assert by_number('dynamixel', 1020) is XM430
    assert by_number('dynamixel', 1200) is XL330
    assert by_number('feetech', 777) is STS3215
    assert by_number('feetech', 1020) is None
    assert error_text(XM430, 0b100001) == 'input voltage (bit 0), overload (bit 5)'
    assert error_text(STS3215, 0b1010) == 'angle sensor (bit 1), overcurrent (bit 3)'


def test_protocol_2_crc_and_stuffing():
    # e-manual Protocol 2.0, Ping example: FF FF FD 00 01 03 00 01 19 4E
    assert packets.crc16(bytes.fromhex('FFFFFD0001030001')) == 0x4E19
    assert packets.dxl_packet(1, packets.PING, b'') == bytes.fromhex(
        'FFFFFD000103000119 4E'.replace(' ', '')
    )
    body = bytes.fromhex('55 00 FF FF FD 01'.replace(' ', ''))
    assert packets.stuff(body) == bytes.fromhex('5500FFFFFDFD01')
    assert packets.unstuff(packets.stuff(body)) == body
    parser = packets.DxlParser()
    packet = packets.dxl_packet(3, packets.WRITE, bytes.fromhex('7400FFFFFD00'))
    (ins,) = parser.feed(b'\x00\x12' + packet[:5]) + parser.feed(packet[5:])
    assert (ins.servo_id, ins.instruction, ins.params) == (
        3,
        packets.WRITE,
        bytes.fromhex('7400FFFFFD00'),
    )
    assert parser.feed(packet[:-1] + bytes([packet[-1] ^ 1])) == []
    assert parser.dropped == 2  # the stray bytes, the bad CRC


def test_feetech_checksum():
    # Protocol 1.0 / SCS read example: FF FF 01 04 02 2B 01 CC
    assert packets.scs_packet(1, packets.READ, bytes([0x2B, 0x01])) == bytes.fromhex(
        'FFFF0104022B01CC'
    )
    parser = packets.ScsParser()
    (ins,) = parser.feed(bytes.fromhex('FFFF0104022B01CC'))
    assert (ins.servo_id, ins.instruction, ins.params) == (1, packets.READ, bytes([0x2B, 1]))
    assert parser.feed(bytes.fromhex('FFFF0104022B01CD')) == []
    assert parser.dropped == 1


def test_fast_sync_read_by_model_and_firmware_as_the_e_manual_lists_it():
    # Protocol 2.0, 'Fast Sync Read (0x8A)': X430/540 from v45, X330 from v46
    assert fast_sync_read_supported([(XM430, 45), (XM540, 45), (XL430, 45)])
    assert not fast_sync_read_supported([(XM430, 45), (XM430, 44)])  # one old servo: none
    assert not fast_sync_read_supported([(XL330, 45)])
    assert fast_sync_read_supported([(XL330, 46), (XM430, 45)])
    assert not fast_sync_read_supported([(STS3215, 99)])  # Feetech has no such instruction
    assert not fast_sync_read_supported([])
