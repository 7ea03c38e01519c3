"""A stand-in for an Arduino running ROSArduinoBridge, on a pseudo-terminal.

`BridgeFirmware` is the firmware side of the protocol (see `arduino_protocol`): the
encoders count the commanded ticks per PID frame continuously in time, the motors stop
2 s after the last `m` command, unknown letters answer `Invalid Command`. `PtyFirmware`
serves it on the master end of a pty, so a component opens the slave end like a real
board's /dev/ttyUSB0; `unplug()` closes the master, which is what pulling the cable does.

    python -m py_controllers.hardware.firmware_simulator [--link /tmp/ttyARDUINO]

prints the device to open and serves until interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import select
import signal
import sys
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path

from py_controllers.hardware.arduino_protocol import INVALID, OK, REPLY_END, PidGains


class BridgeFirmware:
    """The firmware's command handling and wheel/encoder state, driven by a clock."""

    def __init__(
        self,
        baud_rate: int = 57600,
        pid_rate: float = 30.0,
        auto_stop_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.baud_rate = baud_rate
        self.pid_rate = pid_rate
        self.auto_stop_s = auto_stop_s
        self.clock = clock
        self.counts = [0.0, 0.0]
        self.targets = [0, 0]
        self.pid = PidGains()
        self.commands: dict[str, int] = {}
        self.auto_stops = 0
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

    def encoder_counts(self) -> tuple[int, int]:
        return math.floor(self.counts[0]), math.floor(self.counts[1])

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
    """Serves a `BridgeFirmware` on a pseudo-terminal from a background thread."""

    def __init__(self, firmware: BridgeFirmware | None = None, link: str | Path | None = None):
        self.firmware = firmware or BridgeFirmware()
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo or CR/LF translation before a client opens it
        self.device = os.ttyname(self._slave)
        self.link = Path(link) if link is not None else None
        if self.link is not None:
            self.link.unlink(missing_ok=True)
            self.link.symlink_to(self.device)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name='firmware_sim', daemon=True)
        self._thread.start()

    @property
    def path(self) -> str:
        """What to put in the `device` parameter: the link if there is one, else the pty."""
        return str(self.link) if self.link is not None else self.device

    def _serve(self) -> None:
        while not self._stop.is_set():
            readable, _, _ = select.select([self._master], [], [], 0.02)
            if not readable:
                continue
            try:
                data = os.read(self._master, 4096)
            except OSError:
                continue
            reply = self.firmware.feed(data)
            if reply:
                try:
                    os.write(self._master, reply)
                except OSError:
                    continue

    def unplug(self) -> None:
        """Close the master end: the board is gone for whoever has the device open."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join()
        os.close(self._master)
        os.close(self._slave)
        if self.link is not None:
            self.link.unlink(missing_ok=True)

    close = unplug

    def __enter__(self) -> PtyFirmware:
        return self

    def __exit__(self, *exc: object) -> None:
        self.unplug()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog='firmware_simulator', description='ROSArduinoBridge firmware on a pseudo-terminal'
    )
    parser.add_argument('--link', help='also make this symlink to the device, e.g. /tmp/ttyACM9')
    parser.add_argument('--baud', type=int, default=57600, help='baud rate `b` reports')
    parser.add_argument('--pid-rate', type=float, default=30.0, help='PID frames per second')
    args = parser.parse_args(argv)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with PtyFirmware(BridgeFirmware(args.baud, args.pid_rate), args.link) as board:
        print(board.path, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            done.wait()
    return 0


if __name__ == '__main__':
    sys.exit(main())
