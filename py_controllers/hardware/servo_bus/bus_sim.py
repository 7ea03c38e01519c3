"""A simulated servo bus on a pseudo-terminal: the real protocol bytes, servo by servo.

`PtyServoBus` serves `SimServo`s of one family (Dynamixel Protocol 2.0 or Feetech) on the
master end of a pty; a component opens the slave end (or the `link` made to it) exactly as
it opens /dev/ttyUSB0, through the vendor's SDK. Every instruction is answered as the servos
would: ping, read, write, reboot, sync read (each servo's status packet in the order of the
ids asked), fast sync read (Dynamixel: one packet for all), sync write (no answer), CRC and
checksums on everything, byte stuffing on Protocol 2.0. Timing: a status packet leaves at
the moment its last byte would arrive at the baud rate, after the servo's Return Delay Time;
`time_scale` scales every delay (0: none, for tests where timing does not matter). A host's
timeout runs on the simulator's time (`sim_progress`): it starts once the simulator has
answered, so a busy machine delaying this thread never makes a present servo look silent.

The servos move in wall-clock time, or with `step_s` on stepped time: each sync read (one
per bus round) first moves them on by `step_s`, and the time they are at is shared with the
host (`sim_progress`): a component on this bus reports it as its simulation time, and a
manager with `use_sim_time` runs in step with the bus however late its rounds come.

Faults on demand: `silence(id)` (the servo stops answering), `garble(id)` (it answers
noise), `lose(id, count)` (its next `count` status packets lost: a fast sync read carrying
its part is one of them), `loss_rate` (each status packet lost with that probability,
seeded), `answer_delay_s` (the thread answers that late, as a starved thread on a busy
machine would: hosts still get every answer), `unplug()` (the
cable cut: the master closes) and `servo(id).inject_error(bits)` (a hardware error bit).

    python -m py_controllers.hardware.servo_bus.bus_sim --arm so101 --link /tmp/ttySO101

serves one of the arms in `sim_arms` until interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import select
import signal
import sys
import threading
import time
import tty
from pathlib import Path

from py_controllers.hardware.servo_bus import packets
from py_controllers.hardware.servo_bus.models import DYNAMIXEL
from py_controllers.hardware.servo_bus.sim_progress import SimSide
from py_controllers.hardware.servo_bus.sim_servo import SimServo

BITS_PER_BYTE = 10  # start, 8 data, stop
# A manager run in step with a bus on stepped time (the servo tests): its loop waits for
# each round, and the servos' time only moves with it. The watchdog's automatic floor is
# 2 s there (the loop drives a simulator): the threads that answer a round run at normal
# priority and a busy host can starve them for 0.4 s, which moves nothing.
LOCKSTEP_MANAGER_PARAMS = {'use_sim_time': True}


class PtyServoBus:
    """Serves simulated servos on a pty from a background thread (see the module docstring)."""

    def __init__(
        self,
        servos: list[SimServo],
        baud_rate: int = 1_000_000,
        link: str | Path | None = None,
        time_scale: float = 1.0,
        seed: int = 0,
        step_s: float | None = None,
    ) -> None:
        families = {s.model.family for s in servos}
        if len(families) != 1:
            raise ValueError(f'one bus carries one protocol, got {sorted(families)}')
        self.family = families.pop()
        self.servos = {s.id: s for s in servos}
        self.baud_rate = baud_rate
        self.time_scale = time_scale
        self.loss_rate = 0.0
        self.answer_delay_s = 0.0
        self.silent: set[int] = set()
        self.garbled: set[int] = set()
        self.lost: dict[int, int] = {}  # servo id -> status packets still to lose
        self.instructions: dict[int, int] = {}  # instruction -> count
        self._random = random.Random(seed)
        dxl = self.family == DYNAMIXEL
        self._parser = packets.DxlParser() if dxl else packets.ScsParser()
        self._lock = threading.Lock()
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.device = os.ttyname(self._slave)
        self.step_ns = round(step_s * 1e9) if step_s else 0
        self._progress = SimSide(self.device, self.step_ns)
        self.time_ns = time.monotonic_ns()  # the servos' time, on stepped time
        if self.step_ns:
            for servo in self.servos.values():
                servo.advance_to(self.time_ns * 1e-9)
            self._progress.set_time(self.time_ns)
        self.link = Path(link) if link is not None else None
        if self.link is not None:
            self.link.unlink(missing_ok=True)
            self.link.symlink_to(self.device)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name='servo_bus_sim', daemon=True)
        self._thread.start()

    @property
    def path(self) -> str:
        return str(self.link) if self.link is not None else self.device

    @property
    def dropped(self) -> int:
        """Instruction packets that failed their CRC or checksum, and stray bytes."""
        return self._parser.dropped

    def servo(self, servo_id: int) -> SimServo:
        return self.servos[servo_id]

    def silence(self, servo_id: int, silent: bool = True) -> None:
        (self.silent.add if silent else self.silent.discard)(servo_id)

    def garble(self, servo_id: int, garbled: bool = True) -> None:
        (self.garbled.add if garbled else self.garbled.discard)(servo_id)

    def lose(self, servo_id: int, count: int = 1) -> None:
        """Lose the servo's next `count` status packets (a sync read fails each time)."""
        with self._lock:
            self.lost[servo_id] = self.lost.get(servo_id, 0) + count

    def _take_loss(self, servo_id: int) -> bool:
        if not self.lost.get(servo_id):
            return False
        self.lost[servo_id] -= 1
        return True

    # --- serving ---------------------------------------------------------------------
    def _serve(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    readable, _, _ = select.select([self._master], [], [], 0.02)
                    data = os.read(self._master, 4096) if readable else b''
                except OSError:
                    if self._stop.is_set():
                        return
                    time.sleep(0.01)
                    continue
                if data and self.answer_delay_s:
                    time.sleep(self.answer_delay_s)
                now = time.monotonic()
                with self._lock:
                    if not self.step_ns:
                        for servo in self.servos.values():
                            servo.advance_to(now)
                    if not data:
                        continue
                    for instruction in self._parser.feed(data):
                        self._answer(instruction, now)
                self._progress.done(len(data))  # every answer to these bytes is on the wire
        finally:
            self._progress.close()

    def _answer(self, ins: packets.Instruction, received: float) -> None:
        self.instructions[ins.instruction] = self.instructions.get(ins.instruction, 0) + 1
        if self.step_ns and ins.instruction in (packets.SYNC_READ, packets.FAST_SYNC_READ):
            self.time_ns += self.step_ns
            for servo in self.servos.values():
                servo.advance_to(self.time_ns * 1e-9)
            self._progress.set_time(self.time_ns)
        replies = self._dispatch(ins)
        due = received + self._bytes_s(ins.wire_length)
        for servo_id, packet in replies:
            servo = self.servos.get(servo_id)
            delay_s = 2e-6 * servo.get(servo.model.return_delay) if servo is not None else 0.0
            due += self.time_scale * delay_s + self._bytes_s(len(packet))
            if servo_id in self.silent:
                continue  # the next servo in a sync read answers in its own turn
            if ins.instruction != packets.FAST_SYNC_READ and self._take_loss(servo_id):
                continue
            if self.loss_rate and self._random.random() < self.loss_rate:
                continue
            if servo_id in self.garbled and ins.instruction != packets.FAST_SYNC_READ:
                packet = bytes(self._random.randrange(256) for _ in packet)
            self._send_at(due, packet)

    def _bytes_s(self, count: int) -> float:
        return self.time_scale * count * BITS_PER_BYTE / self.baud_rate

    def _send_at(self, due: float, packet: bytes) -> None:
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        with contextlib.suppress(OSError):
            os.write(self._master, packet)

    def _dispatch(self, ins: packets.Instruction) -> list[tuple[int, bytes]]:
        """(servo id, status packet) in the order they go on the wire."""
        if self.family == DYNAMIXEL:
            return self._dynamixel(ins)
        return self._feetech(ins)

    def _dynamixel(self, ins: packets.Instruction) -> list[tuple[int, bytes]]:
        p, code = ins.params, ins.instruction
        if (
            code in (packets.SYNC_READ, packets.FAST_SYNC_READ)
            and ins.servo_id == packets.BROADCAST
        ):
            address, length = p[0] | p[1] << 8, p[2] | p[3] << 8
            ids = [i for i in p[4:] if i in self.servos]
            if code == packets.SYNC_READ:
                return [(i, self._dxl_read(i, address, length)) for i in ids]
            return self._fast_sync_read(ids, address, length)
        if code == packets.SYNC_WRITE and ins.servo_id == packets.BROADCAST:
            address, length = p[0] | p[1] << 8, p[2] | p[3] << 8
            for k in range(4, len(p) - length, length + 1):
                servo = self.servos.get(p[k])
                if servo is not None:
                    servo.write(address, p[k + 1 : k + 1 + length])
            return []
        targets = list(self.servos) if ins.servo_id == packets.BROADCAST else [ins.servo_id]
        replies = []
        for servo_id in targets:
            servo = self.servos.get(servo_id)
            if servo is None:
                continue
            if code == packets.PING:
                m = servo.model
                params = m.model_number.to_bytes(2, 'little') + bytes([servo.get(m.firmware)])
                replies.append(
                    (servo_id, packets.dxl_status(servo_id, servo.status_error(), params))
                )
            elif code == packets.READ and len(p) == 4:
                replies.append(
                    (servo_id, self._dxl_read(servo_id, p[0] | p[1] << 8, p[2] | p[3] << 8))
                )
            elif code == packets.WRITE and len(p) >= 3:
                error = servo.write(p[0] | p[1] << 8, p[2:])
                reply = packets.dxl_status(servo_id, error | servo.status_error())
                replies.append((servo_id, reply))
            elif code == packets.REBOOT:
                replies.append((servo_id, packets.dxl_status(servo_id, 0)))
                servo.reboot()
            else:
                error = packets.ERR_INSTRUCTION | servo.status_error()
                replies.append((servo_id, packets.dxl_status(servo_id, error)))
        return [] if ins.servo_id == packets.BROADCAST and code != packets.PING else replies

    def _dxl_read(self, servo_id: int, address: int, length: int) -> bytes:
        servo = self.servos[servo_id]
        return packets.dxl_status(servo_id, servo.status_error(), servo.read(address, length))

    def _fast_sync_read(self, ids: list[int], address: int, length: int) -> list[tuple[int, bytes]]:
        """One packet: each servo's error, id, data and a CRC; the last CRC is the packet's."""
        if not ids or any(i in self.silent for i in ids):
            return []  # a missing servo leaves the packet incomplete: the host times out
        if any([self._take_loss(i) for i in ids]):
            return []  # each servo whose part is lost loses one packet
        body_length = 1 + len(ids) * (length + 4)
        packet = bytearray([0xFF, 0xFF, 0xFD, 0x00, packets.BROADCAST])
        packet += bytes([body_length & 0xFF, body_length >> 8, packets.STATUS])
        noisy = []
        for servo_id in ids:
            servo = self.servos[servo_id]
            packet += bytes([servo.status_error(), servo_id]) + servo.read(address, length)
            if servo_id in self.garbled:
                noisy.append(len(packet) - length)
            crc = packets.crc16(packet)
            packet += bytes([crc & 0xFF, crc >> 8])
        for start in noisy:  # its part is noise on the wire: the packet's CRC fails
            packet[start : start + length] = bytes(
                self._random.randrange(256) for _ in range(length)
            )
        return [(ids[-1], bytes(packet))]

    def _feetech(self, ins: packets.Instruction) -> list[tuple[int, bytes]]:
        p, code = ins.params, ins.instruction
        if code == packets.SYNC_READ and len(p) >= 2:
            address, length = p[0], p[1]
            return [(i, self._scs_read(i, address, length)) for i in p[2:] if i in self.servos]
        if code == packets.SYNC_WRITE and len(p) >= 2:
            address, length = p[0], p[1]
            for k in range(2, len(p) - length, length + 1):
                servo = self.servos.get(p[k])
                if servo is not None:
                    servo.write(address, p[k + 1 : k + 1 + length])
            return []
        servo = self.servos.get(ins.servo_id)
        if servo is None:
            return []
        if code == packets.PING:
            return [(servo.id, packets.scs_packet(servo.id, servo.status_error(), b''))]
        if code == packets.READ and len(p) == 2:
            return [(servo.id, self._scs_read(servo.id, p[0], p[1]))]
        if code == packets.WRITE and len(p) >= 2:
            servo.write(p[0], p[1:])
            return [(servo.id, packets.scs_packet(servo.id, servo.status_error(), b''))]
        return []

    def _scs_read(self, servo_id: int, address: int, length: int) -> bytes:
        servo = self.servos[servo_id]
        return packets.scs_packet(servo_id, servo.status_error(), servo.read(address, length))

    # --- the cable -------------------------------------------------------------------
    def unplug(self) -> None:
        """Close the master end: whoever has the device open has lost the bus."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join()
        os.close(self._master)
        os.close(self._slave)
        if self.link is not None:
            self.link.unlink(missing_ok=True)

    close = unplug

    def __enter__(self) -> PtyServoBus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.unplug()


def main(argv: list[str] | None = None) -> int:
    from py_controllers.hardware.servo_bus.sim_arms import ARMS, make_servos

    parser = argparse.ArgumentParser(prog='bus_sim', description=__doc__.splitlines()[0])
    parser.add_argument('--arm', choices=sorted(ARMS), required=True)
    parser.add_argument('--link', help='also make this symlink to the device, e.g. /tmp/ttySO101')
    parser.add_argument('--baud', type=int, default=1_000_000)
    parser.add_argument('--time-scale', type=float, default=1.0, help='0: no byte timing')
    parser.add_argument(
        '--step', type=float, help='stepped time: s per sync read (for use_sim_time)'
    )
    args = parser.parse_args(argv)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    servos = make_servos(args.arm)
    with PtyServoBus(servos, args.baud, args.link, args.time_scale, step_s=args.step) as bus:
        print(bus.path, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            # with a timeout: a signal that comes just before the wait blocks is handled
            # when it returns (a handler runs between bytecodes), not never
            while not done.wait(0.5):
                pass
    return 0


if __name__ == '__main__':
    sys.exit(main())
