"""The host side of a servo bus, through the vendors' SDKs (no rclpy, no threads).

`SdkBus` speaks to one port with ROBOTIS's `dynamixel_sdk` (Protocol 2.0) or Feetech's
`scservo_sdk` (package `feetech-servo-sdk`, as LeRobot uses): both have the same
PortHandler / PacketHandler / GroupSyncRead / GroupSyncWrite shape. One sync read fetches
every servo's present current, velocity and position in one transaction (Dynamixel: a fast
sync read, one status packet for all, when `fast` and the firmware has it; a plain sync read
when that fails, which tells which servo is missing); one sync write per goal register sends
every servo's goal. Each servo's status error byte is kept: a hardware error there (the
Dynamixel Alert bit, Feetech's error bits) is read and named by the caller.

Failures raise `BusError` naming the servo when one is to blame.
"""

from __future__ import annotations

import contextlib
import select
from dataclasses import dataclass
from typing import Any

from py_controllers.hardware.servo_bus.models import DYNAMIXEL, Register, ServoModel
from py_controllers.hardware.servo_bus.sim_progress import STALL_S, SimProgress

ATTEMPTS = 3  # tries of a single register read or write before it fails


class BusError(RuntimeError):
    """The bus or one servo on it failed; `servo_id` names it when one is to blame."""

    def __init__(self, text: str, servo_id: int | None = None) -> None:
        super().__init__(text)
        self.servo_id = servo_id


@dataclass(frozen=True)
class Reading:
    """One servo's raw present values from a sync read, and its status error byte."""

    position: int
    velocity: int
    current: int | None
    error: int


def _load_sdk(family: str) -> Any:
    try:
        if family == DYNAMIXEL:
            import dynamixel_sdk as sdk
        else:
            import scservo_sdk as sdk
    except ImportError as exc:  # pragma: no cover - both are dependencies
        package = 'dynamixel-sdk' if family == DYNAMIXEL else 'feetech-servo-sdk'
        raise BusError(f'{exc}: pip install {package}') from None
    return sdk


def _quiet_port_class(sdk: Any) -> Any:
    """The SDK's PortHandler, waiting in select() (without the GIL) instead of spinning
    while a reply is on its way (the SDKs poll a non-blocking port in a busy loop), and
    timing out only when nothing is waiting to be read. On the simulated bus (`sim_progress`)
    a timeout starts once the simulator has answered the request: the bus's time, not the
    time the simulator's thread waited for a CPU."""

    class QuietPort(sdk.PortHandler):
        sim: SimProgress | None = None
        _request = 0  # bytes written up to the request being answered (simulated bus)
        _answered = True

        def setupPort(self, cflag_baud: int) -> bool:
            opened = super().setupPort(cflag_baud)
            self.sim = SimProgress.attach(self.port_name)
            return opened

        def clearPort(self) -> None:
            # stale bytes read and dropped rather than tcflush(): on a pseudo-terminal a
            # flush can also swallow the request written right after it
            while self.ser.in_waiting:
                self.ser.read(self.ser.in_waiting)

        def writePort(self, packet: Any) -> int:
            written = self.ser.write(packet)
            if self.sim is not None:
                self._request = self.sim.wrote(written)
            return written

        def readPort(self, length: int) -> Any:
            data = self.ser.read(length)
            if not data:
                select.select([self.ser.fileno()], [], [], 0.0005)
                data = self.ser.read(length)
            return data

        def setPacketTimeout(self, packet_length: int) -> None:
            super().setPacketTimeout(packet_length)
            self._answered = self.sim is None

        def setPacketTimeoutMillis(self, msec: float) -> None:
            super().setPacketTimeoutMillis(msec)
            self._answered = self.sim is None

        def isPacketTimeout(self) -> bool:
            if not self._answered:
                sim = self.sim
                if sim is not None and sim.answered(self._request):
                    self._answered = True  # the answer is on its way: the timeout from here
                    self.packet_start_time = self.getCurrentTime()
                elif sim is None or self.getTimeSinceStart() > 1000.0 * STALL_S:
                    self._answered = True
                elif self.getTimeSinceStart() > self.packet_timeout and not sim.alive():
                    self.sim, self._answered = None, True
                return False
            if self.ser.in_waiting:
                return False  # late, but here: read it
            return bool(super().isPacketTimeout())

    return QuietPort


class SdkBus:
    """One serial bus of one servo family (see the module docstring)."""

    def __init__(self, family: str, port: str, baud_rate: int, fast: bool = False) -> None:
        self.family = family
        self.port_name = port
        self.baud_rate = baud_rate
        self.fast = fast and family == DYNAMIXEL
        self.sdk = _load_sdk(family)
        self.port: Any = None
        self.handler: Any = None
        self.fast_failures = 0
        self.transactions = 0  # answered or sent, in all: the bus's progress

    # --- the port --------------------------------------------------------------------
    def open(self) -> None:
        sdk = self.sdk
        port = _quiet_port_class(sdk)(self.port_name)
        port.baudrate = self.baud_rate
        try:
            opened = port.setBaudRate(self.baud_rate)
        except Exception as exc:  # serial.SerialException, OSError
            raise BusError(f"cannot open '{self.port_name}': {exc}") from None
        if not opened:
            raise BusError(f"'{self.port_name}': the SDK does not offer {self.baud_rate} baud")
        self.port = port
        # Protocol 2.0 for Dynamixel; Feetech STS/SMS store words little-endian (end 0)
        self.handler = sdk.PacketHandler(2.0 if self.family == DYNAMIXEL else 0)

    def stepped_time_ns(self) -> int | None:
        """On a simulated bus on stepped time, its servos' time at the last sync read;
        None on any other bus (`sim_progress`)."""
        sim = self.port.sim if self.port is not None else None
        if sim is None or not sim.step_ns():
            return None
        return sim.time_ns()

    def close(self) -> None:
        if self.port is not None:
            with contextlib.suppress(Exception):  # a vanished device: it is gone anyway
                self.port.closePort()
            self.port = None

    def _check(self, result: int, error: int, servo_id: int, what: str) -> None:
        if result != self.sdk.COMM_SUCCESS:
            raise BusError(
                f'servo {servo_id}: {what}: {self.handler.getTxRxResult(result)}', servo_id
            )
        if error & 0x7F and self.family == DYNAMIXEL:
            raise BusError(
                f'servo {servo_id}: {what}: {self.handler.getRxPacketError(error)}', servo_id
            )

    # --- one servo -------------------------------------------------------------------
    def ping(self, servo_id: int, model_register: Register) -> int:
        """The servo's model number (read from its control table; ping is not enough on
        Feetech)."""
        return self.read(servo_id, model_register)

    def read(self, servo_id: int, reg: Register) -> int:
        """One register; a lost or garbled reply is asked again (`ATTEMPTS` in all)."""
        for attempt in range(ATTEMPTS):
            data, result, error = self.handler.readTxRx(self.port, servo_id, reg.address, reg.size)
            answered = result == self.sdk.COMM_SUCCESS and len(data) == reg.size
            if answered or attempt == ATTEMPTS - 1:
                break
        self._check(result, error, servo_id, f'reading {reg.address}')
        if len(data) != reg.size:
            raise BusError(f'servo {servo_id}: short reply reading {reg.address}', servo_id)
        self.transactions += 1
        return reg.decode(int.from_bytes(bytes(data), 'little'))

    def write(self, servo_id: int, reg: Register, value: int) -> None:
        """One register, its status awaited; a lost status is written again (idempotent)."""
        data = list(reg.encode(value).to_bytes(reg.size, 'little'))
        for attempt in range(ATTEMPTS):
            result, error = self.handler.writeTxRx(self.port, servo_id, reg.address, reg.size, data)
            if result == self.sdk.COMM_SUCCESS or attempt == ATTEMPTS - 1:
                break
        self._check(result, error, servo_id, f'writing {value} to {reg.address}')
        self.transactions += 1

    def reboot(self, servo_id: int) -> None:
        """Dynamixel's Reboot instruction (clears a hardware error); Feetech has none."""
        if self.family != DYNAMIXEL:
            return
        result, _ = self.handler.reboot(self.port, servo_id)
        self._check(result, 0, servo_id, 'reboot')

    # --- the whole bus ---------------------------------------------------------------
    def sync_read(self, servos: list[tuple[int, ServoModel]]) -> dict[int, Reading]:
        """Every servo's present values in one transaction; BusError naming the first
        servo that did not answer (or answered garbage)."""
        model = servos[0][1]
        start, length = model.read_start, model.read_length
        ids = [servo_id for servo_id, _ in servos]
        raw: dict[int, tuple[int, bytes]] = {}
        if self.fast:
            raw = self._fast_sync_read(ids, start, length)
        if not raw:
            raw = self._plain_sync_read(ids, start, length)
        self.transactions += 1
        return {servo_id: _reading(m, *raw[servo_id]) for servo_id, m in servos}

    def _plain_sync_read(
        self, ids: list[int], start: int, length: int
    ) -> dict[int, tuple[int, bytes]]:
        group = self.sdk.GroupSyncRead(self.port, self.handler, start, length)
        for servo_id in ids:
            group.addParam(servo_id)
        result = group.txPacket()
        if result != self.sdk.COMM_SUCCESS:
            raise BusError(f'sync read: {self.handler.getTxRxResult(result)}')
        out = {}
        for servo_id in ids:
            data, result, error = self.handler.readRx(self.port, servo_id, length)
            if result != self.sdk.COMM_SUCCESS or len(data) != length:
                self.port.is_using = False
                what = self.handler.getTxRxResult(result) if result else 'short status packet'
                raise BusError(f'servo {servo_id} did not answer the sync read ({what})', servo_id)
            out[servo_id] = (error, bytes(data))
        return out

    def _fast_sync_read(
        self, ids: list[int], start: int, length: int
    ) -> dict[int, tuple[int, bytes]]:
        """Fast Sync Read: {} when it fails (the caller falls back to a plain one)."""
        handler, sdk = self.handler, self.sdk
        result = handler.syncReadTx(self.port, start, length, ids, len(ids), True)
        if result != sdk.COMM_SUCCESS:
            self.port.is_using = False
            self.fast_failures += 1
            return {}
        data, result, _ = handler.fastSyncReadRx(
            self.port, sdk.BROADCAST_ID, (length + 4) * len(ids)
        )
        if result != sdk.COMM_SUCCESS or len(data) != (length + 4) * len(ids):
            self.fast_failures += 1
            return {}
        out = {}
        for k in range(len(ids)):
            chunk = data[k * (length + 4) : (k + 1) * (length + 4)]
            out[chunk[1]] = (chunk[0], bytes(chunk[2 : 2 + length]))
        if sorted(out) != sorted(ids):
            self.fast_failures += 1
            return {}
        return out

    def sync_write(self, reg: Register, values: dict[int, int]) -> None:
        """Every servo's value of `reg` in one packet (no answer comes back)."""
        if not values:
            return
        group = self.sdk.GroupSyncWrite(self.port, self.handler, reg.address, reg.size)
        for servo_id, value in values.items():
            group.addParam(servo_id, list(reg.encode(value).to_bytes(reg.size, 'little')))
        result = group.txPacket()
        if result != self.sdk.COMM_SUCCESS:
            raise BusError(f'sync write of {reg.address}: {self.handler.getTxRxResult(result)}')
        self.transactions += 1


def _reading(model: ServoModel, error: int, data: bytes) -> Reading:
    def field(reg: Register | None) -> int | None:
        if reg is None:
            return None
        offset = reg.address - model.read_start
        return reg.decode(int.from_bytes(data[offset : offset + reg.size], 'little'))

    return Reading(
        position=field(model.present_position) or 0,
        velocity=field(model.present_velocity) or 0,
        current=field(model.present_current),
        error=error,
    )
