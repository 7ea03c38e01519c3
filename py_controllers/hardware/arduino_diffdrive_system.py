"""`py_controllers/ArduinoDiffDriveSystem`: a two-wheel base on an Arduino running ROSArduinoBridge.

The serial link is slow and can fail, so it never runs in the control loop: a background
I/O thread polls the board at `io_rate` (`m <l> <r>` while active, then `e`), and
read()/write() only swap numbers with it. Wheel velocities become the firmware's targets in
encoder ticks per PID frame (`loop_rate`), and encoder counts come back as wheel positions
(rad) and velocities (rad/s, differentiated over at least one PID frame).

Faults: a timeout, a garbled reply or an OS error fails that round (counted, logged at most
once a second); `max_consecutive_errors` failed rounds in a row stop the thread and read()
returns ERROR, so the manager deactivates the controllers and takes the component down. A
later activation opens the port again. Positions continue across reconnections. While
active, every round commands the motors (the firmware stops them after 2 s without a
command); deactivation sends `m 0 0`.

`<hardware>` parameters (upstream diffdrive_arduino's names, plus the last four):

    device                  /dev/ttyUSB0   serial device of the board
    baud_rate               57600
    timeout_ms              100            per reply
    enc_counts_per_rev      3436           encoder counts per wheel revolution
    loop_rate               30             firmware PID frames per second
    pid_p, pid_d, pid_i, pid_o             firmware PID gains (`u`), sent when pid_p > 0
    left_wheel_name         first joint    each wheel joint has a `velocity` command and
    right_wheel_name        second joint   `position` + `velocity` states
    startup_delay_s         2.0            the board resets when the port opens
    io_rate                 50             polling rounds per second
    max_consecutive_errors  5
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import Any

from py_controllers.hardware.arduino_protocol import (
    ArduinoLink,
    PidGains,
    ProtocolError,
    ticks_per_frame,
)
from py_controllers.hardware.component_params import float_param, initial_state
from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import (
    HW_IF_POSITION,
    HW_IF_VELOCITY,
    RETURN_OK,
    CallbackReturn,
    LifecycleStateId,
    ReturnType,
)

try:
    import serial
except ImportError:  # pragma: no cover - pyserial is a dependency; keep the import error late
    serial = None

_LINK_ERRORS: tuple[type[BaseException], ...] = (ProtocolError, OSError)
if serial is not None:
    _LINK_ERRORS += (serial.SerialException,)


@dataclass
class ArduinoParams:
    """The component's settings, read from the `<hardware>` parameters."""

    device: str = '/dev/ttyUSB0'
    baud_rate: int = 57600
    timeout_s: float = 0.1
    enc_counts_per_rev: float = 3436.0
    loop_rate: float = 30.0
    pid: PidGains | None = None
    startup_delay_s: float = 2.0
    io_rate: float = 50.0
    max_consecutive_errors: int = 5

    @classmethod
    def from_hardware(cls, hw: dict[str, str], where: str) -> ArduinoParams:
        """Parse and check; ValueError naming `where` and the parameter when one is bad."""
        p = cls(
            device=str(hw.get('device', cls.device)).strip(),
            baud_rate=int(float_param(hw, 'baud_rate', cls.baud_rate, where)),
            timeout_s=float_param(hw, 'timeout_ms', cls.timeout_s * 1e3, where) / 1e3,
            enc_counts_per_rev=float_param(hw, 'enc_counts_per_rev', cls.enc_counts_per_rev, where),
            loop_rate=float_param(hw, 'loop_rate', cls.loop_rate, where),
            startup_delay_s=float_param(hw, 'startup_delay_s', cls.startup_delay_s, where),
            io_rate=float_param(hw, 'io_rate', cls.io_rate, where),
            max_consecutive_errors=int(
                float_param(hw, 'max_consecutive_errors', cls.max_consecutive_errors, where)
            ),
        )
        gains = [int(float_param(hw, f'pid_{k}', 0, where)) for k in 'pdio']
        if gains[0] > 0:
            p.pid = PidGains(*gains)
        positive = {
            'baud_rate': p.baud_rate,
            'timeout_ms': p.timeout_s,
            'enc_counts_per_rev': p.enc_counts_per_rev,
            'loop_rate': p.loop_rate,
            'io_rate': p.io_rate,
            'max_consecutive_errors': p.max_consecutive_errors,
        }
        for name, value in positive.items():
            if not value > 0:
                raise ValueError(f"{where}: parameter '{name}' must be > 0, got {value}")
        if p.startup_delay_s < 0:
            raise ValueError(f"{where}: parameter 'startup_delay_s' must be >= 0")
        if not p.device:
            raise ValueError(f"{where}: parameter 'device' is empty")
        return p


class _ThrottledLog:
    """Log a repeating failure at most once per `interval_s`, saying how many were skipped."""

    def __init__(self, log: Any, interval_s: float = 1.0) -> None:
        self._log = log
        self._interval_s = interval_s
        self._last = -math.inf
        self._skipped = 0

    def warn(self, text: str) -> None:
        now = time.monotonic()
        if now - self._last < self._interval_s:
            self._skipped += 1
            return
        more = f' ({self._skipped} more since the last report)' if self._skipped else ''
        self._log().warning(text + more)
        self._last, self._skipped = now, 0


class _SerialWorker(threading.Thread):
    """Polls the board on its own thread; the loop reads `sample` and sets `targets`."""

    def __init__(
        self,
        link: ArduinoLink,
        lock: threading.Lock,
        params: ArduinoParams,
        offsets: tuple[float, float],
        log: Any,
    ) -> None:
        super().__init__(name='arduino_io', daemon=True)
        self.link = link
        self.lock = lock
        self.period_s = 1.0 / params.io_rate
        self.max_errors = params.max_consecutive_errors
        self.rad_per_count = 2.0 * math.pi / params.enc_counts_per_rev
        self.frame_s = 1.0 / params.loop_rate
        self.offsets = offsets
        self.log = log
        self.throttled = _ThrottledLog(log)
        self.targets: tuple[int, int] | None = None  # None: do not command the motors
        # (left position, right position, left velocity, right velocity); replaced whole.
        self.sample: tuple[float, float, float, float] | None = None
        self.failed = False
        self.consecutive_errors = 0
        self.rounds = 0
        self._last: tuple[float, int, int] | None = None
        self._stop_event = threading.Event()

    def poll_once(self) -> None:
        """One round: command the motors if driving, then read the encoders (raises on failure)."""
        with self.lock:
            targets = self.targets
            if targets is not None:
                self.link.set_motor_speeds(*targets)
            asked = time.monotonic()
            left, right = self.link.read_encoders()
        # the counts are of some moment of the round trip: its middle errs least
        now = 0.5 * (asked + time.monotonic())
        velocities = self.sample[2:] if self.sample is not None else (0.0, 0.0)
        if self._last is None:
            self._last = (now, left, right)
        elif now - self._last[0] >= self.frame_s:
            # differentiated over at least one PID frame: a round that follows a late one
            # closely would otherwise divide a frame's ticks by a sliver of time
            dt = now - self._last[0]
            velocities = (
                (left - self._last[1]) * self.rad_per_count / dt,
                (right - self._last[2]) * self.rad_per_count / dt,
            )
            self._last = (now, left, right)
        self.sample = (
            self.offsets[0] + left * self.rad_per_count,
            self.offsets[1] + right * self.rad_per_count,
            *velocities,
        )
        self.rounds += 1

    def run(self) -> None:
        deadline = time.monotonic()
        while not self._stop_event.is_set():
            try:
                self.poll_once()
                self.consecutive_errors = 0
            except _LINK_ERRORS as exc:
                self.consecutive_errors += 1
                self.throttled.warn(
                    f'serial round failed ({self.consecutive_errors} in a row): {exc}'
                )
                if self.consecutive_errors >= self.max_errors:
                    self.log().error(
                        f'{self.consecutive_errors} serial rounds failed in a row; '
                        f'giving up on the board (last error: {exc})'
                    )
                    self.failed = True
                    return
            deadline = max(deadline + self.period_s, time.monotonic())
            self._stop_event.wait(deadline - time.monotonic())

    def stop(self) -> None:
        self._stop_event.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join()


class ArduinoDiffDriveSystem(SystemInterface):
    """Two velocity-commanded wheels behind a ROSArduinoBridge board on a serial port."""

    def on_init(self, info: Any) -> CallbackReturn:
        super().on_init(info)
        where = f"hardware '{info.name}'"
        try:
            self.params = ArduinoParams.from_hardware(info.hardware_parameters, where)
            self.wheels = self._wheel_names(info, where)
        except ValueError as exc:
            self._log().error(str(exc))
            return CallbackReturn.ERROR
        by_name = {joint.name: joint for joint in info.joints}
        self._positions = [initial_state(by_name[w], HW_IF_POSITION) for w in self.wheels]
        self._port: Any = None
        self._link: ArduinoLink | None = None
        self._lock = threading.Lock()
        self._worker: _SerialWorker | None = None
        self._reported_failure = False
        return CallbackReturn.SUCCESS

    @staticmethod
    def _wheel_names(info: Any, where: str) -> list[str]:
        hw = info.hardware_parameters
        joints = {joint.name: joint for joint in info.joints}
        order = list(joints)
        if len(order) != 2:
            raise ValueError(f'{where}: needs exactly two wheel joints, has {order}')
        names = [
            str(hw.get('left_wheel_name', order[0])).strip(),
            str(hw.get('right_wheel_name', order[1])).strip(),
        ]
        if sorted(names) != sorted(order):
            raise ValueError(f'{where}: left/right_wheel_name {names} must name the joints {order}')
        for name in names:
            commands = [itf.name for itf in joints[name].command_interfaces]
            states = sorted(itf.name for itf in joints[name].state_interfaces)
            if commands != [HW_IF_VELOCITY] or states != [HW_IF_POSITION, HW_IF_VELOCITY]:
                raise ValueError(
                    f"{where}: joint '{name}' needs a 'velocity' command interface and "
                    f"'position' + 'velocity' state interfaces (has {commands}, {states})"
                )
        return names

    def _log(self) -> Any:
        return self.logger if self.logger is not None else logging.getLogger(__name__)

    # --- connection ---------------------------------------------------------------
    def _connect(self) -> bool:
        """Open the port, wait out the board's reset, handshake, start polling."""
        p = self.params
        if serial is None:
            self._log().error('pyserial is not installed: pip install pyserial')
            return False
        try:
            self._port = serial.Serial(
                p.device, p.baud_rate, timeout=p.timeout_s, write_timeout=p.timeout_s
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            self._log().error(f"cannot open serial device '{p.device}': {exc}")
            return False
        time.sleep(p.startup_delay_s)
        link = ArduinoLink(self._port)
        try:
            self._port.reset_input_buffer()
            baud = self._handshake(link)
            if baud != p.baud_rate:
                self._log().warning(f'firmware reports {baud} baud, the port uses {p.baud_rate}')
            link.reset_encoders()
            if p.pid is not None:
                link.set_pid(p.pid)
        except _LINK_ERRORS as exc:
            self._log().error(f"no working ROSArduinoBridge firmware on '{p.device}': {exc}")
            self._close()
            return False
        self._link = link
        self._worker = _SerialWorker(link, self._lock, p, tuple(self._positions), self._log)
        try:
            self._worker.poll_once()
        except _LINK_ERRORS as exc:
            self._log().error(f"reading the encoders on '{p.device}' failed: {exc}")
            self._close()
            return False
        self._publish(self._worker.sample)
        self._reported_failure = False
        self._worker.start()
        self._log().info(f"connected to the board on '{p.device}' at {p.baud_rate} baud")
        return True

    @staticmethod
    def _handshake(link: ArduinoLink, attempts: int = 3) -> int:
        for attempt in range(attempts):
            try:
                return link.baud_rate()
            except ProtocolError:
                if attempt == attempts - 1:
                    raise
        raise AssertionError('unreachable')

    def _close(self) -> None:
        """Stop polling, remember where the wheels are, close the port."""
        if self._worker is not None:
            self._worker.stop()
            if self._worker.sample is not None:
                self._positions = list(self._worker.sample[:2])
            self._worker = None
        self._link = None
        if self._port is not None:
            try:
                self._port.close()
            except Exception as exc:  # closing a vanished device may fail; it is gone anyway
                self._log().debug(f'closing the port: {exc!r}')
            self._port = None

    def _stop_motors(self) -> None:
        """`m 0 0` now, best effort (the firmware's own timeout stops them otherwise)."""
        if self._worker is not None:
            self._worker.targets = None
        if self._link is None:
            return
        try:
            with self._lock:
                self._link.set_motor_speeds(0, 0)
        except _LINK_ERRORS as exc:
            self._log().warning(f'could not send the stop command: {exc}')

    # --- lifecycle ----------------------------------------------------------------
    def on_configure(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Open the port and start reading the encoders."""
        self._left_cmd = self.command_interfaces[f'{self.wheels[0]}/velocity']
        self._right_cmd = self.command_interfaces[f'{self.wheels[1]}/velocity']
        self._state_handles = [
            self.state_interfaces[f'{w}/{itf}']
            for itf in (HW_IF_POSITION, HW_IF_VELOCITY)
            for w in self.wheels
        ]
        return CallbackReturn.SUCCESS if self._connect() else CallbackReturn.FAILURE

    def on_activate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Reopen a lost port, then command the motors every round (0 until written)."""
        if self._worker is None or self._worker.failed or not self._worker.is_alive():
            self._close()
            if not self._connect():
                return CallbackReturn.FAILURE
        self._worker.targets = (0, 0)
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Stop commanding and send `m 0 0`."""
        self._stop_motors()
        return CallbackReturn.SUCCESS

    def on_cleanup(self, previous_state: LifecycleStateId) -> CallbackReturn:
        self._close()
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Try to stop the motors, close the port; recoverable by configuring again."""
        self._stop_motors()
        self._close()
        return CallbackReturn.SUCCESS

    def on_shutdown(self, previous_state: LifecycleStateId) -> CallbackReturn:
        self._stop_motors()
        self._close()
        return CallbackReturn.SUCCESS

    # --- the loop -----------------------------------------------------------------
    def read(self, time: Any, period: Any) -> ReturnType:
        """Latest encoder sample from the I/O thread; ERROR once it gave up on the board."""
        worker = self._worker
        if worker is None or worker.failed:
            if not self._reported_failure:
                self._reported_failure = True
                self.log_rt('error', f"lost the board on '{self.params.device}'")
            return ReturnType.ERROR
        self._publish(worker.sample)
        return RETURN_OK

    def _publish(self, sample: tuple[float, float, float, float] | None) -> None:
        if sample is None:
            return
        for handle, value in zip(self._state_handles, sample):
            handle.value = value

    def write(self, time: Any, period: Any) -> ReturnType:
        """Hand the wheel velocity commands to the I/O thread as ticks per PID frame."""
        worker = self._worker
        if worker is None or worker.targets is None:
            return RETURN_OK
        p = self.params
        worker.targets = (
            ticks_per_frame(self._left_cmd.value, p.enc_counts_per_rev, p.loop_rate),
            ticks_per_frame(self._right_cmd.value, p.enc_counts_per_rev, p.loop_rate),
        )
        return RETURN_OK
