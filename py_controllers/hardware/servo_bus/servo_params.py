"""The `<hardware>` and per-joint `<param>`s of the servo bus systems (no rclpy).

Hardware parameters (every one implemented; any other name is refused with one line):

    usb_port                the serial device (/dev/ttyUSB0, /dev/ttyACM0, a pty's link)
    baud_rate               default 1000000
    use_dummy               true: no bus, states mirror the commands (upstream's dummy)
    torque_off_on_shutdown  default false: the servos keep holding after shutdown
    read_only               default false; true: torque off, state interfaces only (a
                            leader arm moved by hand)
    fast_sync_read          Dynamixel, default true: one status packet for all servos when
                            every servo's firmware has it (X430/X540: v45 on, X330: v46 on)
    max_consecutive_errors  failed bus rounds in a row before read() fails, default 3
    hold_tolerance          rad at the servo, default 0.02: a position-commanded servo
                            released within this of its last goal keeps that goal

Per joint: `id` (required), `offset` (joint units at the servo's centre, default 0),
`reverse` (default false), `gear_ratio` (servo radians per joint unit, default 1, not 0),
`model` (optional: refuse to run if the servo found is another model). Dynamixel joints
also take upstream dynamixel_hardware's raw control table values, written at configure:
Profile_Velocity, Profile_Acceleration, Position_P_Gain, Position_I_Gain, Position_D_Gain,
Velocity_P_Gain, Velocity_I_Gain.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from py_controllers.hardware.component_params import bool_param, float_param
from py_controllers.hardware.servo_bus.models import DYNAMIXEL, MODELS, Register, model_names
from py_controllers.hardware.servo_bus.units import JointTransform

HARDWARE_PARAMS = (
    'usb_port',
    'baud_rate',
    'use_dummy',
    'torque_off_on_shutdown',
    'read_only',
    'fast_sync_read',
    'max_consecutive_errors',
    'hold_tolerance',
)
JOINT_PARAMS = ('id', 'offset', 'reverse', 'gear_ratio', 'model')
# upstream dynamixel_hardware's extra joint parameters: X-series control table registers
DYNAMIXEL_EXTRAS = {
    'Profile_Velocity': Register(112, 4),
    'Profile_Acceleration': Register(108, 4),
    'Position_P_Gain': Register(84, 2),
    'Position_I_Gain': Register(82, 2),
    'Position_D_Gain': Register(80, 2),
    'Velocity_P_Gain': Register(78, 2),
    'Velocity_I_Gain': Register(76, 2),
}
KINDS = {DYNAMIXEL: ('position', 'velocity', 'effort'), 'feetech': ('position', 'velocity')}
STATES = ('position', 'velocity', 'effort')


@dataclass
class BusParams:
    usb_port: str = ''
    baud_rate: int = 1_000_000
    use_dummy: bool = False
    torque_off_on_shutdown: bool = False
    read_only: bool = False
    fast_sync_read: bool = True
    max_consecutive_errors: int = 3
    hold_tolerance: float = 0.02


@dataclass
class JointParams:
    name: str
    id: int
    transform: JointTransform
    model: str | None = None
    extras: dict[str, int] = field(default_factory=dict)
    commands: tuple[str, ...] = ()
    states: tuple[str, ...] = ()


def _unknown(given: Mapping[str, Any], known: tuple[str, ...] | list[str], where: str) -> None:
    for name in given:
        if name not in known:
            raise ValueError(
                f"{where}: parameter '{name}' is not supported (known: {', '.join(known)})"
            )


def parse_bus(hw: Mapping[str, str], family: str, where: str) -> BusParams:
    """The hardware parameters, checked; ValueError with one line when one is wrong."""
    _unknown(hw, HARDWARE_PARAMS, where)
    p = BusParams(
        usb_port=str(hw.get('usb_port', '')).strip(),
        baud_rate=int(float_param(hw, 'baud_rate', 1_000_000, where)),
        use_dummy=bool_param(hw, 'use_dummy', False, where),
        torque_off_on_shutdown=bool_param(hw, 'torque_off_on_shutdown', False, where),
        read_only=bool_param(hw, 'read_only', False, where),
        fast_sync_read=bool_param(hw, 'fast_sync_read', True, where),
        max_consecutive_errors=int(float_param(hw, 'max_consecutive_errors', 3, where)),
        hold_tolerance=float_param(hw, 'hold_tolerance', 0.02, where),
    )
    if 'fast_sync_read' in hw and family != DYNAMIXEL:
        raise ValueError(f"{where}: 'fast_sync_read' is a Dynamixel Protocol 2.0 instruction")
    if not p.use_dummy and not p.usb_port:
        raise ValueError(f"{where}: parameter 'usb_port' is required (or use_dummy true)")
    if p.baud_rate <= 0 or p.max_consecutive_errors < 1 or not p.hold_tolerance >= 0:
        raise ValueError(
            f"{where}: 'baud_rate' and 'max_consecutive_errors' must be > 0, 'hold_tolerance' >= 0"
        )
    return p


def parse_joint(joint: Any, family: str, read_only: bool, where: str) -> JointParams:
    """One joint's parameters and interfaces, checked against what the family offers."""
    here = f"{where}, joint '{joint.name}'"
    given = dict(joint.parameters)
    extras_known = list(DYNAMIXEL_EXTRAS) if family == DYNAMIXEL else []
    _unknown(given, [*JOINT_PARAMS, *extras_known], here)
    if 'id' not in given:
        raise ValueError(f"{here}: parameter 'id' is required")
    servo_id = int(float_param(given, 'id', 0, here))
    if not 0 <= servo_id <= 252:
        raise ValueError(f'{here}: id {servo_id} is not a servo id (0..252)')
    gear = float_param(given, 'gear_ratio', 1.0, here)
    offset = float_param(given, 'offset', 0.0, here)
    if gear == 0.0 or not math.isfinite(gear) or not math.isfinite(offset):
        raise ValueError(f"{here}: 'gear_ratio' must be finite and not 0, 'offset' finite")
    model = given.get('model')
    if model is not None and (model not in MODELS or MODELS[model].family != family):
        raise ValueError(f"{here}: model '{model}' is not one of {model_names(family)}")
    extras = {}
    for name in extras_known:
        if name in given:
            value = int(float_param(given, name, 0, here))
            try:
                DYNAMIXEL_EXTRAS[name].encode(value)
            except ValueError:
                raise ValueError(f'{here}: {name} {value} does not fit its register') from None
            extras[name] = value
    commands = tuple(itf.name for itf in joint.command_interfaces)
    states = tuple(itf.name for itf in joint.state_interfaces)
    allowed = () if read_only else KINDS[family]
    for kind in commands:
        if kind not in allowed:
            what = 'a read_only bus takes none' if read_only else f'supported: {", ".join(allowed)}'
            raise ValueError(f"{here}: command interface '{kind}' ({what})")
    for kind in states:
        if kind not in STATES:
            raise ValueError(f"{here}: state interface '{kind}' (supported: {', '.join(STATES)})")
    if 'position' not in states:
        raise ValueError(f"{here}: needs a 'position' state interface (the hold reads it)")
    transform = JointTransform(offset, bool_param(given, 'reverse', False, here), gear)
    return JointParams(joint.name, servo_id, transform, model, extras, commands, states)
