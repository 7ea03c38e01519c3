"""Example 14's position sensor: receives the velocity the matching
RRBotActuatorWithoutFeedback sends over TCP and integrates it into the joint's position
(divided by `example_param_hw_slowdown`; the last velocity received is kept while none
comes).

The socket is bound in on_init and a thread started in on_configure accepts the actuator
and reads what it sends (up to 1024 bytes at a time, 1 kHz), as upstream, with two changes:
it listens from on_init on, so the actuator connects whichever of the two the manager
configures first (upstream relies on its hash map's order, sensors first), and it binds to
localhost only (upstream: every address) since the actuator connects to localhost.

`<hardware>` parameters (required): `example_param_hw_start_duration_sec`,
`example_param_hw_stop_duration_sec`, `example_param_hw_slowdown` (not 0),
`example_param_socket_port`.
"""

from __future__ import annotations

import math
import re
import socket
import threading
import time
from typing import Any

from py_controllers.hardware_interface.hardware_component import SensorInterface
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from ros2_control_demos_py.common import (
    Throttle,
    fixed2,
    logger_of,
    read_numbers,
    waiting_transition,
)

READ_RATE_HZ = 1000
READING_SIZE_BYTES = 1024
POLL_S = 0.1  # how soon the thread notices it is asked to stop
_LEADING_NUMBER = re.compile(
    r'\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf|nan)', re.I
)


def leading_number(text: str) -> float:
    """The number `text` starts with, as stod reads it ('0.50.5' -> 0.5); NaN if none."""
    match = _LEADING_NUMBER.match(text)
    return float(match.group(0)) if match else math.nan


class RRBotSensorPositionFeedback(SensorInterface):
    """ros2_control_demo_example_14/RRBotSensorPositionFeedback."""

    def on_init(self, info: Any) -> CallbackReturn:
        if super().on_init(info) != CallbackReturn.SUCCESS:
            return CallbackReturn.ERROR
        values = read_numbers(
            self,
            [
                'example_param_hw_start_duration_sec',
                'example_param_hw_stop_duration_sec',
                'example_param_hw_slowdown',
                'example_param_socket_port',
            ],
        )
        if values is None:
            return CallbackReturn.ERROR
        self.hw_start_sec, self.hw_stop_sec, self.hw_slowdown, port = values
        log = logger_of(self)
        if self.hw_slowdown == 0.0:
            log.fatal("hardware parameter 'example_param_hw_slowdown' must not be 0")
            return CallbackReturn.ERROR
        if not (port == int(port) and 0 < port < 65536):
            log.fatal(f"hardware parameter 'example_param_socket_port' is not a port: {port}")
            return CallbackReturn.ERROR
        self.socket_port = int(port)
        joint = info.joints[0] if info.joints else None
        states = [itf.name for itf in joint.state_interfaces] if joint else []
        if joint is None or len(states) != 1:
            name = joint.name if joint else '(none)'
            log.fatal(f"Joint '{name}' has {len(states)} state interface. 1 expected.")
            return CallbackReturn.ERROR
        if states[0] != 'position':
            log.fatal(
                f"Joint '{joint.name}' have {states[0]} state interface. 'position' expected."
            )
            return CallbackReturn.ERROR
        self.joint = joint.name
        self.position = f'{joint.name}/position'
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        log.info('Setting socket options.')
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        log.info('Binding to socket address.')
        try:
            self.server.bind(('127.0.0.1', self.socket_port))
            self.server.listen(1)
        except OSError as exc:
            log.fatal(f'Binding to socket failed: {exc.strerror or exc}')
            self.server.close()
            return CallbackReturn.ERROR
        self.server.settimeout(POLL_S)
        self.rt_incoming_data = math.nan  # one float: read and written whole
        self.stop = threading.Event()  # set: the receiving thread ends
        self.thread: threading.Thread | None = None
        self._no_data_log = Throttle()
        return CallbackReturn.SUCCESS

    # --- the receiving thread ------------------------------------------------------------
    def _receive(self) -> None:
        log = logger_of(self)
        log.info(f'Listening for connection on port {self.socket_port}.')
        conn = None
        while not self.stop.is_set() and conn is None:
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                if not self.stop.is_set():
                    log.fatal('Cannot accept on the server.')
                return
        if conn is None:
            return
        log.info('Accepting on socket.')
        log.info(
            f'Creating thread for incoming data and read them with {READ_RATE_HZ} Hz to not '
            'miss any data.'
        )
        conn.settimeout(POLL_S)
        time.sleep(1.0 / READ_RATE_HZ)
        log.info('Receiving data')
        with conn:
            while not self.stop.is_set():
                time.sleep(1.0 / READ_RATE_HZ)
                try:
                    data = conn.recv(READING_SIZE_BYTES)
                except TimeoutError:
                    continue  # upstream's recv() waits: nothing changes meanwhile
                except OSError:
                    data = b''
                if data:
                    log.debug(f"Read from buffer sockets data: '{data.decode(errors='replace')}'")
                    self.rt_incoming_data = leading_number(data.decode(errors='replace'))
                else:
                    if self._no_data_log.ready():
                        log.info('Data not yet received from socket.')
                    self.rt_incoming_data = math.nan
                    self.stop.wait(POLL_S)  # the actuator is gone: no busy loop meanwhile

    # --- lifecycle -----------------------------------------------------------------------
    def on_configure(self, previous_state: Any) -> CallbackReturn:
        log = logger_of(self)
        log.info('Configuring ...please wait...')
        self.stop.clear()
        self.thread = threading.Thread(
            target=self._receive, name=f'{self.joint}_socket', daemon=True
        )
        self.thread.start()
        self.set_state(self.position, 0.0)  # reset values always when configuring hardware
        self.last_measured_velocity = 0.0
        self.measured_velocity = 0.0
        self.last_timestamp_ns = time.monotonic_ns()  # readable once configured
        log.info('Configuration successful.')
        return CallbackReturn.SUCCESS

    def on_cleanup(self, previous_state: Any) -> CallbackReturn:
        self.stop.set()
        thread, self.thread = self.thread, None
        if thread is not None:
            thread.join()
        return CallbackReturn.SUCCESS

    def on_shutdown(self, previous_state: Any) -> CallbackReturn:
        self.on_cleanup(previous_state)
        self.server.close()
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        return waiting_transition(self, 'Activating', self.hw_start_sec, 'Successfully activated!')

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        return waiting_transition(
            self, 'Deactivating', self.hw_stop_sec, 'Successfully deactivated!'
        )

    def read(self, time: Any, period: Any) -> ReturnType:
        now_ns = _monotonic_ns()
        duration_s = (now_ns - self.last_timestamp_ns) * 1e-9
        self.last_timestamp_ns = now_ns
        self.measured_velocity = self.rt_incoming_data
        if not math.isnan(self.measured_velocity):
            self.last_measured_velocity = self.measured_velocity
        value = (
            self.get_state(self.position)
            + self.last_measured_velocity * duration_s / self.hw_slowdown
        )
        self.set_state(self.position, value)
        self.log_rt(
            'info',
            f'Reading...\nGot measured velocity {fixed2(self.measured_velocity)}\n'
            f"Got state(position) {fixed2(value)} for joint '{self.joint}'\n",
        )
        return ReturnType.OK


_monotonic_ns = time.monotonic_ns
