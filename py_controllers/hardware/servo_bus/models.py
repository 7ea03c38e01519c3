"""The servo models supported: control table addresses, register encodings and units.

Sources, per model (numbers written as the manuals give them):
- ROBOTIS e-manual, X series control tables (emanual.robotis.com/docs/en/dxl/x/<model>/):
  Present/Goal Position 0.088 deg per tick (4096 per revolution, 2048 the centre),
  Present/Goal Velocity 0.229 rev/min per unit, Present/Goal Current about 2.69 mA per unit
  on XM430 and XM540 and 1 mA on XL330; XL430 has no current sensor (126 is Present Load,
  0.1 %) and no current control mode. Operating Mode (11): 0 current, 1 velocity,
  3 position. Hardware Error Status (70): bit 0 input voltage, 2 overheating, 3 motor
  encoder, 4 electrical shock, 5 overload. Model numbers as in ROBOTIS's `dynamixel-sdk`
  model list (XL330-M077 1190, XL330-M288 1200, XL430-W250 1060, XM430-W210 1030,
  XM430-W350 1020, XM540-W150 1130, XM540-W270 1120).
- Feetech STS/SMS memory table (doc.feetech.cn, FT-SMS-STS e-manual; the same addresses as
  LeRobot's `STS_SMS_SERIES_CONTROL_TABLE`): Present_Position 56, Present_Velocity 58 (bit 15
  the sign), Present_Current 69 (6.5 mA per unit, bit 15 the sign), Goal_Position 42,
  Goal_Velocity 46 (bit 15 the sign), Torque_Enable 40, Operating_Mode 33 (0 position,
  1 constant speed), Status 65 and the status packet's error byte: bit 0 voltage, 1 angle
  sensor, 2 overheating, 3 overcurrent, 5 overload. 4096 steps per revolution, velocity in
  steps/s (50 steps/s = 0.732 rev/min). Model numbers: STS3215 777, STS3250 2825.

The `sim_*` figures (stall torque and current, no-load speed from the datasheets) drive the
simulated bus only; the hardware components never read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DYNAMIXEL = 'dynamixel'
FEETECH = 'feetech'


@dataclass(frozen=True)
class Register:
    """One control table item: address, size in bytes and how a negative value is stored
    (`sign_bit` None: two's complement when `signed`, else unsigned; an int: sign and
    magnitude with that bit the sign, as Feetech stores velocities)."""

    address: int
    size: int
    signed: bool = False
    sign_bit: int | None = None

    def encode(self, value: int) -> int:
        """`value` as the unsigned integer the register holds (ValueError when out of range)."""
        bits = 8 * self.size
        if self.sign_bit is not None:
            magnitude = abs(value)
            if magnitude >= 1 << self.sign_bit:
                raise ValueError(f'{value} does not fit register {self.address}')
            return magnitude | (1 << self.sign_bit) if value < 0 else magnitude
        if self.signed:
            if not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
                raise ValueError(f'{value} does not fit register {self.address}')
            return value & ((1 << bits) - 1)
        if not 0 <= value < 1 << bits:
            raise ValueError(f'{value} does not fit register {self.address}')
        return value

    def decode(self, raw: int) -> int:
        """The register's unsigned content as the signed value it stands for."""
        bits = 8 * self.size
        raw &= (1 << bits) - 1
        if self.sign_bit is not None:
            magnitude = raw & ((1 << self.sign_bit) - 1)
            return -magnitude if raw & (1 << self.sign_bit) else magnitude
        if self.signed and raw & (1 << (bits - 1)):
            return raw - (1 << bits)
        return raw


@dataclass(frozen=True)
class ServoModel:
    """What the components need to know of one servo model (see the module docstring)."""

    name: str
    family: str
    model_number: int
    ticks_per_rev: int
    zero_tick: int
    velocity_unit_rpm: float  # rev/min per raw unit
    current_unit_ma: float | None  # mA per raw unit; None: no current sensing
    modes: dict[str, int]  # command interface kind -> Operating Mode value
    torque_enable: Register
    operating_mode: Register
    goal_position: Register
    goal_velocity: Register
    goal_current: Register | None
    present_position: Register
    present_velocity: Register
    present_current: Register | None
    min_position_limit: Register
    max_position_limit: Register
    error_status: Register  # Hardware Error Status (Dynamixel) / Status (Feetech)
    error_bits: dict[int, str]
    model_number_register: Register
    firmware: Register
    return_delay: Register
    # the block one sync read covers: current (or load), velocity and position
    read_start: int
    read_length: int
    sim_stall_torque_nm: float
    sim_stall_current_a: float
    sim_no_load_rpm: float
    sim_defaults: dict[int, tuple[int, int]] = field(default_factory=dict)  # address: (size, value)
    # the first firmware version that answers Fast Sync Read (0x8A); None: never
    fast_sync_read_firmware: int | None = None


def _dynamixel_x(
    name: str,
    number: int,
    current_ma: float | None,
    stall_nm: float,
    stall_a: float,
    rpm: float,
) -> ServoModel:
    """An X-series model: they share one control table layout (e-manual, 'Control Table')."""
    has_current = current_ma is not None
    modes = {'position': 3, 'velocity': 1}
    if has_current:
        modes['effort'] = 0
    return ServoModel(
        name=name,
        family=DYNAMIXEL,
        model_number=number,
        ticks_per_rev=4096,
        zero_tick=2048,
        velocity_unit_rpm=0.229,
        current_unit_ma=current_ma,
        modes=modes,
        torque_enable=Register(64, 1),
        operating_mode=Register(11, 1),
        goal_position=Register(116, 4, signed=True),
        goal_velocity=Register(104, 4, signed=True),
        goal_current=Register(102, 2, signed=True) if has_current else None,
        present_position=Register(132, 4, signed=True),
        present_velocity=Register(128, 4, signed=True),
        present_current=Register(126, 2, signed=True) if has_current else None,
        min_position_limit=Register(52, 4),
        max_position_limit=Register(48, 4),
        error_status=Register(70, 1),
        error_bits={
            0: 'input voltage',
            2: 'overheating',
            3: 'motor encoder',
            4: 'electrical shock',
            5: 'overload',
        },
        model_number_register=Register(0, 2),
        firmware=Register(6, 1),
        return_delay=Register(9, 1),
        read_start=126,
        read_length=10,
        sim_stall_torque_nm=stall_nm,
        sim_stall_current_a=stall_a,
        sim_no_load_rpm=rpm,
        fast_sync_read_firmware=46 if name.startswith('XL330') else 45,
        # Return Delay Time 250 (x 2 us), Max/Min Position Limit 4095/0, Position P Gain 800
        # (XL330: 400), Velocity P/I Gain 100/1920, Firmware 46 (e-manual initial values)
        sim_defaults={
            9: (1, 250),
            48: (4, 4095),
            52: (4, 0),
            84: (2, 400 if name.startswith('XL330') else 800),
            78: (2, 100),
            76: (2, 1920),
            6: (1, 46),
            11: (1, 3),
            44: (4, round(rpm / 0.229)),  # Velocity Limit: the no-load speed
        },
    )


def _feetech_sts(name: str, number: int, stall_nm: float, stall_a: float, rpm: float) -> ServoModel:
    """An STS/SMS model: one memory table (Feetech STS/SMS e-manual)."""
    return ServoModel(
        name=name,
        family=FEETECH,
        model_number=number,
        ticks_per_rev=4096,
        zero_tick=2048,
        velocity_unit_rpm=60.0 / 4096.0,  # one step per second
        current_unit_ma=6.5,
        modes={'position': 0, 'velocity': 1},
        torque_enable=Register(40, 1),
        operating_mode=Register(33, 1),
        goal_position=Register(42, 2, sign_bit=15),
        goal_velocity=Register(46, 2, sign_bit=15),
        goal_current=None,
        present_position=Register(56, 2, sign_bit=15),
        present_velocity=Register(58, 2, sign_bit=15),
        present_current=Register(69, 2, sign_bit=15),
        min_position_limit=Register(9, 2),
        max_position_limit=Register(11, 2),
        error_status=Register(65, 1),
        error_bits={
            0: 'input voltage',
            1: 'angle sensor',
            2: 'overheating',
            3: 'overcurrent',
            5: 'overload',
        },
        model_number_register=Register(3, 2),
        firmware=Register(0, 1),
        return_delay=Register(7, 1),
        read_start=56,
        read_length=15,  # 56..70: position, velocity, load, voltage, temperature, ..., current
        sim_stall_torque_nm=stall_nm,
        sim_stall_current_a=stall_a,
        sim_no_load_rpm=rpm,
        # Return Delay 0 (LeRobot sets it so), limits 0..4095, P coefficient 32, firmware 3
        sim_defaults={7: (1, 0), 9: (2, 0), 11: (2, 4095), 21: (1, 32), 0: (1, 3), 55: (1, 1)},
    )


MODELS: dict[str, ServoModel] = {
    m.name: m
    for m in (
        _dynamixel_x('XL330-M077', 1190, 1.0, 0.215, 1.47, 383.0),
        _dynamixel_x('XL330-M288', 1200, 1.0, 0.52, 1.47, 103.0),
        _dynamixel_x('XL430-W250', 1060, None, 1.4, 1.3, 57.0),
        _dynamixel_x('XM430-W210', 1030, 2.69, 3.0, 2.3, 77.0),
        _dynamixel_x('XM430-W350', 1020, 2.69, 4.1, 2.3, 46.0),
        _dynamixel_x('XM540-W150', 1130, 2.69, 7.3, 4.4, 53.0),
        _dynamixel_x('XM540-W270', 1120, 2.69, 10.6, 4.4, 30.0),
        _feetech_sts('STS3215', 777, 1.9, 2.7, 45.0),
        _feetech_sts('STS3250', 2825, 4.9, 3.0, 40.0),
    )
}


def fast_sync_read_supported(servos: list[tuple[ServoModel, int]]) -> bool:
    """Does every (model, firmware version) on the bus answer Fast Sync Read? The e-manual's
    Protocol 2.0 page, 'Fast Sync Read (0x8A)': X430/540 from firmware v45, X330 from v46
    (2XL/2XC never; Feetech has no such instruction)."""
    return bool(servos) and all(
        m.fast_sync_read_firmware is not None and firmware >= m.fast_sync_read_firmware
        for m, firmware in servos
    )


def by_number(family: str, number: int) -> ServoModel | None:
    """The model of `family` whose model number is `number`, None if not supported."""
    for model in MODELS.values():
        if model.family == family and model.model_number == number:
            return model
    return None


def model_names(family: str) -> list[str]:
    return [m.name for m in MODELS.values() if m.family == family]


def error_text(model: ServoModel, bits: int) -> str:
    """The set error bits named, e.g. 'overload (bit 5), overheating (bit 2)'."""
    names = [
        f'{model.error_bits.get(bit, "unknown")} (bit {bit})'
        for bit in range(8)
        if bits & (1 << bit)
    ]
    return ', '.join(names) if names else 'none'
