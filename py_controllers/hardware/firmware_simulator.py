"""A stand-in for an Arduino running ROSArduinoBridge, on a pseudo-terminal.

`BridgeFirmware` is the firmware side of the protocol (see `arduino_protocol`): the
encoders count the commanded ticks per PID frame continuously in time, the motors stop
2 s after the last `m` command, unknown letters answer `Invalid Command`. `PtyFirmware`
serves it from a child process on the master end of a pty, so a component opens the slave
end like a real board's /dev/ttyUSB0 and the board answers on its own, as a real one does,
whatever the process that drives it is busy with; `unplug()` closes the master, which is
what pulling the cable does.

    python -m py_controllers.hardware.firmware_simulator [--link /tmp/ttyARDUINO]

prints the device to open and serves until interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import select
import signal
import subprocess
import sys
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from py_controllers.hardware.arduino_protocol import INVALID, OK, REPLY_END, PidGains


@dataclass
class FirmwareState:
    """What the board holds at one moment: its encoders, motor targets, gains and tallies."""

    counts: list[float] = field(default_factory=lambda: [0.0, 0.0])
    targets: list[int] = field(default_factory=lambda: [0, 0])
    pid: PidGains = field(default_factory=PidGains)
    commands: dict[str, int] = field(default_factory=dict)
    """How many command lines of each letter came in."""
    auto_stops: int = 0
    reads: int = 0
    """Encoder reads (`e` lines)."""

    def encoder_counts(self) -> tuple[int, int]:
        return math.floor(self.counts[0]), math.floor(self.counts[1])


class BridgeFirmware(FirmwareState):
    """The firmware's command handling and wheel/encoder state, driven by a clock.

    `garble_every` > 0 answers every that-many-th encoder read with garbage instead of the
    counts (a noisy line), for fault tests."""

    def __init__(
        self,
        baud_rate: int = 57600,
        pid_rate: float = 30.0,
        auto_stop_s: float = 2.0,
        garble_every: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.baud_rate = baud_rate
        self.pid_rate = pid_rate
        self.auto_stop_s = auto_stop_s
        self.garble_every = garble_every
        self.clock = clock
        self._now = clock()
        self._last_motor_command = self._now
        self._line = bytearray()

    def advance(self) -> None:
        """Integrate the encoders up to now; stop the motors after the auto-stop interval."""
        now = self.clock()
        if any(self.targets) and now - self._last_motor_command > self.auto_stop_s:
            stop_at = self._last_motor_command + self.auto_stop_s
            self._integrate(stop_at - self._now)
            self._now = stop_at
            self.targets = [0, 0]
            self.auto_stops += 1
        self._integrate(now - self._now)
        self._now = now

    def _integrate(self, dt: float) -> None:
        if dt > 0.0:
            for i, target in enumerate(self.targets):
                self.counts[i] += target * self.pid_rate * dt

    def state(self) -> FirmwareState:
        """A copy of the state as of now (the encoders integrated up to now)."""
        self.advance()
        return FirmwareState(
            list(self.counts),
            list(self.targets),
            self.pid,
            dict(self.commands),
            self.auto_stops,
            self.reads,
        )

    def feed(self, data: bytes) -> bytes:
        """Bytes from the host in, reply bytes out (one CRLF line per complete command)."""
        out = bytearray()
        for byte in data:
            if byte == 0x0D:
                out += self.execute(self._line.decode('ascii', 'replace')).encode() + REPLY_END
                self._line.clear()
            elif byte != 0x0A:
                self._line.append(byte)
        return bytes(out)

    def execute(self, line: str) -> str:
        """One command line (without its CR) -> its reply (without CRLF)."""
        self.advance()
        fields = line.split()
        letter = fields[0] if fields else ''
        args = fields[1:]
        self.commands[letter] = self.commands.get(letter, 0) + 1
        try:
            if letter == 'b' and not args:
                return str(self.baud_rate)
            if letter == 'e' and not args:
                self.reads += 1
                if self.garble_every and self.reads % self.garble_every == 0:
                    return 'garbage!'
                left, right = self.encoder_counts()
                return f'{left} {right}'
            if letter == 'r' and not args:
                self.counts = [0.0, 0.0]
                return OK
            if letter == 'm' and len(args) == 2:
                self.targets = [int(args[0]), int(args[1])]
                self._last_motor_command = self._now
                return OK
            if letter == 'u' and len(args) == 1:
                gains = [int(g) for g in args[0].split(':')]
                if len(gains) == 4:
                    self.pid = PidGains(*gains)
                    return OK
        except ValueError:
            pass
        return INVALID


class PtyFirmware:
    """A `BridgeFirmware` served on a pseudo-terminal by a child process.

    The child (this module with `--control`) prints the device's name, then answers
    `state` lines on its stdin with the board's state as JSON and ends at `unplug` or at
    the end of its stdin, so a board outlives no test that forgot to unplug it."""

    def __init__(
        self,
        link: str | Path | None = None,
        *,
        baud_rate: int = 57600,
        pid_rate: float = 30.0,
        auto_stop_s: float = 2.0,
        garble_every: int = 0,
    ) -> None:
        command = [sys.executable, '-m', 'py_controllers.hardware.firmware_simulator', '--control']
        command += [f'--baud={baud_rate}', f'--pid-rate={pid_rate}']
        command += [f'--auto-stop={auto_stop_s}', f'--garble-every={garble_every}']
        self._child = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self._lock = threading.Lock()
        self.device = self._line()
        self.link = Path(link) if link is not None else None
        if self.link is not None:
            self.link.unlink(missing_ok=True)
            self.link.symlink_to(self.device)

    @property
    def path(self) -> str:
        """What to put in the `device` parameter: the link if there is one, else the pty."""
        return str(self.link) if self.link is not None else self.device

    def _line(self) -> str:
        assert self._child.stdout is not None
        line = self._child.stdout.readline()
        if not line:
            raise RuntimeError(f'the firmware simulator exited ({self._child.wait()})')
        return line.rstrip('\n')

    def state(self) -> FirmwareState:
        """The board's state now, asked of the child."""
        with self._lock:
            assert self._child.stdin is not None
            if self._child.stdin.closed:
                raise RuntimeError('the board was unplugged')
            self._child.stdin.write('state\n')
            self._child.stdin.flush()
            fields = json.loads(self._line())
        fields['pid'] = PidGains(**fields['pid'])
        return FirmwareState(**fields)

    def unplug(self) -> None:
        """Close the master end: the board is gone for whoever has the device open."""
        with self._lock:
            stdin, stdout = self._child.stdin, self._child.stdout
            assert stdin is not None and stdout is not None
            if not stdin.closed:
                with contextlib.suppress(OSError):  # a child already gone: a broken pipe
                    stdin.write('unplug\n')
                with contextlib.suppress(OSError):
                    stdin.close()
            try:
                self._child.wait(10.0)
            except subprocess.TimeoutExpired:
                self._child.kill()
                self._child.wait()
            stdout.close()
        if self.link is not None:
            self.link.unlink(missing_ok=True)

    close = unplug

    def __enter__(self) -> PtyFirmware:
        return self

    def __exit__(self, *exc: object) -> None:
        self.unplug()


def serve(firmware: BridgeFirmware, master: int, control: int | None) -> None:
    """Answer the host on `master`, and the `control` file descriptor's lines if given
    (`state`: print the state as JSON; `unplug` or the end of input: return)."""
    watched = [master] if control is None else [master, control]
    pending = b''
    while True:
        readable, _, _ = select.select(watched, [], [])
        if master in readable:
            try:
                data = os.read(master, 4096)
            except OSError:
                data = b''
            if not data:  # nobody has the slave end open (EIO): wait for one
                select.select([], [], [], 0.01)
            reply = firmware.feed(data)
            if reply:
                with contextlib.suppress(OSError):
                    os.write(master, reply)
        if control is not None and control in readable:
            chunk = os.read(control, 4096)
            pending += chunk
            *requests, pending = pending.split(b'\n')
            for request in requests:
                if request.strip() == b'unplug':
                    return
                if request.strip() == b'state':
                    print(json.dumps(asdict(firmware.state())), flush=True)
            if not chunk:
                return


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog='firmware_simulator', description='ROSArduinoBridge firmware on a pseudo-terminal'
    )
    parser.add_argument('--link', help='also make this symlink to the device, e.g. /tmp/ttyACM9')
    parser.add_argument('--baud', type=int, default=57600, help='baud rate `b` reports')
    parser.add_argument('--pid-rate', type=float, default=30.0, help='PID frames per second')
    parser.add_argument(
        '--auto-stop', type=float, default=2.0, help='seconds after the last `m` the motors stop'
    )
    parser.add_argument(
        '--garble-every', type=int, default=0, help='garble every n-th encoder reply (0: none)'
    )
    parser.add_argument(
        '--control',
        action='store_true',
        help='answer `state` lines on stdin with JSON; stop at `unplug` or end of input',
    )
    args = parser.parse_args(argv)
    firmware = BridgeFirmware(args.baud, args.pid_rate, args.auto_stop, args.garble_every)
    master, slave = os.openpty()
    tty.setraw(slave)  # no echo or CR/LF translation before a client opens it
    device = os.ttyname(slave)
    link = Path(args.link) if args.link else None
    if link is not None:
        link.unlink(missing_ok=True)
        link.symlink_to(device)
    print(link or device, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        with contextlib.suppress(KeyboardInterrupt):
            serve(firmware, master, sys.stdin.fileno() if args.control else None)
    finally:
        os.close(master)
        os.close(slave)
        if link is not None:
            link.unlink(missing_ok=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
