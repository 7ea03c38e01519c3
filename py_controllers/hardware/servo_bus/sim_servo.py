"""One simulated servo: its control table and its motor driving a load (no rclpy, no I/O).

The control table is the model's (`models`): registers are read and written as bytes, and
what the real servo does on a write is done here: torque on and off, operating mode (only
with torque off on a Dynamixel: an access error otherwise), goals beyond the position limits
refused with a data limit error, a hardware error that turns the torque off (Dynamixel's
Shutdown defaults: overheating, electrical shock, overload) and shows in every status packet
(Dynamixel: the Alert bit; Feetech: the error byte), reboot clearing it.

The motor: position mode is a PD loop towards a setpoint that moves to the goal at the
profile velocity (0: at once), with the stiffness scaled by Position P Gain (the default gain
gives stall torque at 20 mrad); velocity mode a PI loop; current mode the goal current times
the torque constant (stall torque / stall current). The torque available falls linearly to
0 at the no-load speed. The load: inertia, a gravity-like torque -gravity_nm * sin(angle +
phase), viscous and Coulomb friction. Present current is the motor's torque over the torque
constant. Time advances in fixed 1 ms steps up to the moment asked.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from py_controllers.hardware.servo_bus import packets
from py_controllers.hardware.servo_bus.models import DYNAMIXEL, Register, ServoModel
from py_controllers.hardware.servo_bus.units import (
    RPM_TO_RAD_S,
    amperes_to_raw,
    rad_s_to_raw,
    rad_to_ticks,
    raw_to_amperes,
    raw_to_rad_s,
    ticks_to_rad,
)

STEP_S = 0.001
_DXL_SHUTDOWN = 0b110100  # Shutdown (63) initial value: overheating, electrical shock, overload
_DXL_PROFILE_VELOCITY = Register(112, 4)
_DXL_POSITION_P = Register(84, 2)
_DXL_CURRENT_LIMIT = Register(38, 2)
_SCS_P_COEFFICIENT = Register(21, 1)


@dataclass
class Load:
    """What the servo's output drives (SI, at the output shaft)."""

    inertia: float = 0.01
    gravity_nm: float = 0.0
    phase: float = 0.0
    viscous: float = 0.02
    coulomb: float = 0.01


class SimServo:
    """A servo on the simulated bus; `handle` answers one instruction addressed to it."""

    def __init__(
        self, servo_id: int, model: ServoModel, load: Load | None = None, angle: float = 0.0
    ):
        self.id = servo_id
        self.model = model
        self.load = load or Load()
        self.dynamixel = model.family == DYNAMIXEL
        self.mem = bytearray(700 if self.dynamixel else 128)
        self.angle = angle
        self.velocity = 0.0
        self.torque = 0.0  # the motor's, N m
        self.setpoint = angle
        self.integral = 0.0
        self.persistent_error = 0  # bits that come back after a reboot
        self.time_s: float | None = None
        self.writes: list[tuple[int, int]] = []  # (address, first byte) of every write: tests
        # a hand moving the unpowered servo: angle at a time in s (a leader arm's operator)
        self.hand: Callable[[float], float] | None = None
        self._reset_table()

    # --- the control table -----------------------------------------------------------
    def _reset_table(self) -> None:
        m = self.model
        self.mem[:] = bytes(len(self.mem))
        self.set(m.model_number_register, m.model_number)
        id_address = 7 if self.dynamixel else 5
        self.mem[id_address] = self.id
        for address, (size, value) in m.sim_defaults.items():
            self.set(Register(address, size), value)
        if self.dynamixel:
            self.mem[63] = _DXL_SHUTDOWN
            self.set(_DXL_CURRENT_LIMIT, 1193)
        self.set(m.goal_position, self._ticks(self.angle))
        self.setpoint = self.angle
        self._refresh()

    def get(self, reg: Register) -> int:
        raw = int.from_bytes(self.mem[reg.address : reg.address + reg.size], 'little')
        return reg.decode(raw)

    def set(self, reg: Register, value: int) -> None:
        self.mem[reg.address : reg.address + reg.size] = reg.encode(value).to_bytes(
            reg.size, 'little'
        )

    def _ticks(self, angle: float) -> int:
        return rad_to_ticks(self.model, angle)

    @property
    def torque_on(self) -> bool:
        return bool(self.mem[self.model.torque_enable.address])

    @property
    def mode(self) -> int:
        return self.mem[self.model.operating_mode.address]

    @property
    def error_bits(self) -> int:
        return self.mem[self.model.error_status.address]

    def status_error(self) -> int:
        """The error byte of this servo's status packets."""
        if self.dynamixel:
            return packets.ALERT if self.error_bits else 0
        return self.error_bits

    def inject_error(self, bits: int, persistent: bool = True) -> None:
        """Raise hardware error `bits`: the torque goes off, as the real servo's shutdown."""
        self.mem[self.model.error_status.address] |= bits
        if persistent:
            self.persistent_error |= bits
        self.mem[self.model.torque_enable.address] = 0
        self._refresh()

    def clear_error(self) -> None:
        self.persistent_error = 0
        self.mem[self.model.error_status.address] = 0

    def reboot(self) -> None:
        """Dynamixel's Reboot: RAM back to its initial values, errors cleared unless persistent."""
        angle, velocity, load, persistent = (
            self.angle,
            self.velocity,
            self.load,
            self.persistent_error,
        )
        eeprom = bytes(self.mem[:64])
        self._reset_table()
        self.mem[:64] = eeprom
        self.angle, self.velocity, self.load = angle, velocity, load
        self.set(self.model.goal_position, self._ticks(angle))
        self.setpoint = angle
        self.persistent_error = persistent
        self.mem[self.model.error_status.address] = persistent
        self._refresh()

    # --- instructions ----------------------------------------------------------------
    def read(self, address: int, length: int) -> bytes:
        self._publish_present()
        return bytes(self.mem[address : address + length])

    def write(self, address: int, data: bytes) -> int:
        """Apply a write; returns the status error number (0: done)."""
        m = self.model
        end = address + len(data)
        if end > len(self.mem):
            return packets.ERR_DATA_LENGTH
        if self.dynamixel and address < 64 and self.torque_on and address != 64:
            return packets.ERR_ACCESS  # EEPROM is locked while the torque is on
        staged = bytearray(self.mem)
        staged[address:end] = data

        def value(reg: Register) -> int:
            raw = int.from_bytes(staged[reg.address : reg.address + reg.size], 'little')
            return reg.decode(raw)

        goal = m.goal_position
        if address <= goal.address < end and self.mode == m.modes['position']:
            lo, hi = self.get(m.min_position_limit), self.get(m.max_position_limit)
            if not lo <= value(goal) <= hi:
                return packets.ERR_DATA_LIMIT
        current = m.goal_current
        if current is not None and address <= current.address < end:  # noqa: SIM102
            if abs(value(current)) > self.get(_DXL_CURRENT_LIMIT):
                return packets.ERR_DATA_LIMIT
        torque_address = m.torque_enable.address
        if address <= torque_address < end and staged[torque_address] and self.error_bits:
            staged[torque_address] = 0  # no torque while a hardware error stands
        was_on, old_mode = self.torque_on, self.mode
        self.mem[:] = staged
        self.writes.append((address, data[0] if data else 0))
        if (self.torque_on and not was_on) or self.mode != old_mode:
            self.setpoint, self.integral = self.angle, 0.0
        self._refresh()
        return 0

    # --- the motor and its load --------------------------------------------------------
    def advance_to(self, now_s: float) -> None:
        """Integrate in fixed steps up to `now_s` (at most 2 s at a time); a hand moves an
        unpowered servo where it wants it."""
        if self.hand is not None and not self.torque_on:
            angle = self.hand(now_s)
            if self.time_s is not None and now_s > self.time_s:
                self.velocity = (angle - self.angle) / (now_s - self.time_s)
            self.angle, self.time_s = angle, now_s
            return
        if self.time_s is None or now_s - self.time_s > 2.0:
            self.time_s = now_s
            return
        while self.time_s + STEP_S <= now_s:
            self.step(STEP_S)
            self.time_s += STEP_S

    def _kt(self) -> float:
        return self.model.sim_stall_torque_nm / self.model.sim_stall_current_a

    def _refresh(self) -> None:
        """What the motor loop needs from the table, worked out once per change of it."""
        m = self.model
        mode = self.mode
        kind = next((k for k, v in m.modes.items() if v == mode), None)
        self._kind = kind if self.torque_on else None
        self._goal = ticks_to_rad(m, self.get(m.goal_position))
        self._goal_velocity = raw_to_rad_s(m, self.get(m.goal_velocity))
        self._goal_torque = (
            raw_to_amperes(m, self.get(m.goal_current)) * self._kt() if m.goal_current else 0.0
        )
        inertia = max(self.load.inertia, 0.002)  # the PD loop stays stable at 1 ms steps
        scale = (
            self.get(_DXL_POSITION_P) / 800.0
            if self.dynamixel
            else self.get(_SCS_P_COEFFICIENT) / 32.0
        )
        self._kp = max(scale, 0.01) * m.sim_stall_torque_nm / 0.02
        self._kd = 2.0 * math.sqrt(self._kp * inertia)
        if self.dynamixel:
            limit_raw = self.get(_DXL_PROFILE_VELOCITY)
            self._profile_limit = limit_raw * 0.229 * RPM_TO_RAD_S if limit_raw else math.inf
        else:
            limit_raw = abs(self.get(m.goal_velocity))  # STS: the speed of a position move
            self._profile_limit = raw_to_rad_s(m, limit_raw) if limit_raw else math.inf

    def step(self, dt: float) -> None:
        m, load = self.model, self.load
        kind = self._kind
        gravity = -load.gravity_nm * math.sin(self.angle + load.phase) if load.gravity_nm else 0.0
        if kind is None and self.velocity == 0.0 and abs(gravity) <= load.coulomb:
            self.torque = 0.0
            return  # at rest, unpowered, held by friction
        stall = m.sim_stall_torque_nm
        omega0 = m.sim_no_load_rpm * RPM_TO_RAD_S
        u = 0.0
        if kind == 'position':
            step = self._profile_limit * dt
            error = self._goal - self.setpoint
            self.setpoint = (
                self._goal if abs(error) <= step else self.setpoint + math.copysign(step, error)
            )
            u = self._kp * (self.setpoint - self.angle) - self._kd * self.velocity
        elif kind == 'velocity':
            kv = stall / (0.1 * omega0)
            error = self._goal_velocity - self.velocity
            self.integral = max(-stall, min(stall, self.integral + 20.0 * kv * error * dt))
            u = kv * error + self.integral
        elif kind == 'effort':
            u = self._goal_torque
        available = stall * max(0.0, 1.0 - self.velocity * math.copysign(1.0, u) / omega0)
        u = max(-available, min(available, u))
        self.torque = u
        drive = u + gravity
        if abs(self.velocity) < 1e-4 and abs(drive) <= load.coulomb:
            self.velocity = 0.0  # static friction holds
        else:
            drive -= load.coulomb * math.copysign(1.0, self.velocity or drive)
            inertia = max(load.inertia, 0.002)
            # viscous friction implicitly: stable whatever its value
            self.velocity = (self.velocity + drive * dt / inertia) / (
                1.0 + load.viscous * dt / inertia
            )
        self.angle += self.velocity * dt

    def _publish_present(self) -> None:
        m = self.model
        ticks = self._ticks(self.angle)
        if not self.dynamixel:
            ticks %= m.ticks_per_rev  # STS reports the angle within one turn
        self.set(m.present_position, ticks)
        velocity = rad_s_to_raw(m, self.velocity)
        limit = (1 << 15) - 1 if not self.dynamixel else (1 << 31) - 1
        self.set(m.present_velocity, max(-limit, min(limit, velocity)))
        if m.present_current is not None:
            current = amperes_to_raw(m, self.torque / self._kt())
            self.set(m.present_current, max(-32767, min(32767, current)))
        elif self.dynamixel:  # XL430: Present Load, 0.1 % of the stall torque
            load_permille = round(1000.0 * self.torque / m.sim_stall_torque_nm)
            self.set(Register(126, 2, signed=True), load_permille)
