"""The ROSArduinoBridge serial protocol, host side (no rclpy, no threads).

The firmware reads one ASCII command per carriage return: a letter, then arguments
separated by spaces. Every command gets one reply line ending in CRLF:

    b            -> the baud rate, e.g. `57600`
    e            -> encoder counts, `<left> <right>`
    m <l> <r>    -> `OK`; wheel targets in encoder ticks per PID frame (0 0 stops)
    r            -> `OK`; encoder counts back to zero
    u Kp:Kd:Ki:Ko -> `OK`; the firmware PID gains (integers)
    anything else -> `Invalid Command`

`ArduinoLink` works over any port object with pyserial's `write`, `read_until`,
`reset_input_buffer` (a `serial.Serial`, or a test double for the parser).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

TERMINATOR = b'\r'
REPLY_END = b'\r\n'
OK = 'OK'
INVALID = 'Invalid Command'


class ProtocolError(RuntimeError):
    """A request got no reply in time, or a reply that does not parse."""


@dataclass(frozen=True)
class PidGains:
    """The firmware's integer PID gains, in the order the `u` command takes them."""

    kp: int = 20
    kd: int = 12
    ki: int = 0
    ko: int = 50

    def command(self) -> str:
        return f'u {self.kp}:{self.kd}:{self.ki}:{self.ko}'


def ticks_per_frame(wheel_velocity: float, counts_per_rev: float, loop_rate: float) -> int:
    """A wheel velocity in rad/s as the firmware's target: whole encoder ticks per PID frame."""
    if not math.isfinite(wheel_velocity):
        return 0
    return round(wheel_velocity * counts_per_rev / (2.0 * math.pi * loop_rate))


def parse_encoders(reply: str) -> tuple[int, int]:
    """`'<left> <right>'` as two integers; ProtocolError for anything else."""
    fields = reply.split()
    if len(fields) != 2:
        raise ProtocolError(f'expected two encoder counts, got {reply!r}')
    try:
        return int(fields[0]), int(fields[1])
    except ValueError:
        raise ProtocolError(f'encoder counts are not integers: {reply!r}') from None


class ArduinoLink:
    """Request/reply over a serial port: one command out, one CRLF-terminated line back."""

    def __init__(self, port: Any) -> None:
        self.port = port
        self._dirty = False

    def request(self, command: str, expected: Callable[[str], bool] | None = None) -> str:
        """Send `command`, return its reply line without CRLF (ProtocolError on timeout).

        After a round that went wrong, the input is flushed first, and a reply that is not
        `expected` is taken for that round's late answer (it can arrive after the flush)
        and the next line is read instead."""
        stale = self._dirty
        if stale:
            # A reply that came after its timeout would otherwise answer the next request.
            self.port.reset_input_buffer()
            self._dirty = False
        self.port.write(command.encode('ascii') + TERMINATOR)
        reply = self._reply(command)
        if stale and expected is not None and reply != INVALID and not expected(reply):
            reply = self._reply(command)
        if reply == INVALID:
            raise ProtocolError(f'{command!r}: the firmware answered {INVALID!r}')
        return reply

    def _reply(self, command: str) -> str:
        raw = self.port.read_until(REPLY_END)
        if not raw.endswith(REPLY_END):
            self._dirty = True
            what = 'no reply' if not raw else f'incomplete reply {raw!r}'
            raise ProtocolError(f'{command!r}: {what} before the timeout')
        try:
            return raw[: -len(REPLY_END)].decode('ascii')
        except UnicodeDecodeError:
            self._dirty = True
            raise ProtocolError(f'{command!r}: garbled reply {raw!r}') from None

    def expect_ok(self, command: str) -> None:
        reply = self.request(command, lambda r: r == OK)
        if reply != OK:
            self._dirty = True
            raise ProtocolError(f'{command!r}: expected {OK!r}, got {reply!r}')

    def baud_rate(self) -> int:
        """The `b` handshake: the baud rate the firmware was built for."""
        reply = self.request('b', str.isdigit)
        try:
            return int(reply)
        except ValueError:
            self._dirty = True
            raise ProtocolError(f"'b': expected the baud rate, got {reply!r}") from None

    def read_encoders(self) -> tuple[int, int]:
        reply = self.request('e', lambda r: len(r.split()) == 2)
        try:
            return parse_encoders(reply)
        except ProtocolError:
            self._dirty = True
            raise

    def set_motor_speeds(self, left_ticks: int, right_ticks: int) -> None:
        self.expect_ok(f'm {left_ticks} {right_ticks}')

    def reset_encoders(self) -> None:
        self.expect_ok('r')

    def set_pid(self, gains: PidGains) -> None:
        self.expect_ok(gains.command())
