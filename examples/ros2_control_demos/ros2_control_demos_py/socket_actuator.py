"""Example 14's actuator without feedback: a velocity-commanded joint whose every write()
sends the command as text over TCP to `localhost:<example_param_socket_port>`, where the
matching RRBotSensorPositionFeedback listens (the 'mechanical connection' of the demo).

on_configure connects, retrying five times with 1, 2, 4, 8, 16 s between attempts (ERROR
after the fifth failure), as upstream. write() never blocks the loop: it sends without
waiting (a command the socket cannot take at once is dropped, said once a second), where
upstream's send() could block.

`<hardware>` parameters (required): `example_param_hw_start_duration_sec`,
`example_param_hw_stop_duration_sec`, `example_param_socket_port`.
"""

from __future__ import annotations

import contextlib
import socket
import time
from typing import Any

from py_controllers.hardware_interface.hardware_component import ActuatorInterface
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from ros2_control_demos_py.common import (
    Throttle,
    fixed2,
    logger_of,
    read_numbers,
    waiting_transition,
)

MAX_RETRIES = 5
INITIAL_DELAY_MS = 1000


class RRBotActuatorWithoutFeedback(ActuatorInterface):
    """ros2_control_demo_example_14/RRBotActuatorWithoutFeedback."""

    def on_init(self, info: Any) -> CallbackReturn:
        if super().on_init(info) != CallbackReturn.SUCCESS:
            return CallbackReturn.ERROR
        values = read_numbers(
            self,
            [
                'example_param_hw_start_duration_sec',
                'example_param_hw_stop_duration_sec',
                'example_param_socket_port',
            ],
        )
        if values is None:
            return CallbackReturn.ERROR
        self.hw_start_sec, self.hw_stop_sec, port = values
        log = logger_of(self)
        if not (port == int(port) and 0 < port < 65536):
            log.fatal(f"hardware parameter 'example_param_socket_port' is not a port: {port}")
            return CallbackReturn.ERROR
        self.socket_port = int(port)
        joint = info.joints[0] if info.joints else None
        commands = [itf.name for itf in joint.command_interfaces] if joint else []
        if joint is None or len(commands) != 1:
            name = joint.name if joint else '(none)'
            log.fatal(f"Joint '{name}' has {len(commands)} command interfaces found. 1 expected.")
            return CallbackReturn.ERROR
        if commands[0] != 'velocity':
            log.fatal(
                f"Joint '{joint.name}' have {commands[0]} command interfaces found. "
                "'velocity' expected."
            )
            return CallbackReturn.ERROR
        self.command = f'{joint.name}/velocity'
        self.sock: socket.socket | None = None
        self._drop_log = Throttle(1000)
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        log = logger_of(self)
        log.info('Configuring ...please wait...')
        log.info(f'Trying to connect to port {self.socket_port}.')
        delay_ms = INITIAL_DELAY_MS
        error = ''
        for attempt in range(1, MAX_RETRIES + 1):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                sock.connect(('localhost', self.socket_port))
            except OSError as exc:
                sock.close()
                error = exc.strerror or str(exc)
                log.warning(
                    f'Connection attempt {attempt} failed: {error}. Retrying in {delay_ms} ms...'
                )
                time.sleep(delay_ms / 1000.0)
                delay_ms *= 2  # exponential backoff
                continue
            self.sock = sock
            break
        if self.sock is None:
            log.fatal(f'Connection over socket failed after {MAX_RETRIES} attempts: {error}')
            return CallbackReturn.ERROR
        log.info(f'Successfully connected to port {self.socket_port}.')
        self.set_command(self.command, 0.0)  # reset values always when configuring hardware
        return CallbackReturn.SUCCESS

    def _close(self) -> None:
        sock, self.sock = self.sock, None
        if sock is not None:
            with contextlib.suppress(OSError):  # the other end may have gone first
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def on_cleanup(self, previous_state: Any) -> CallbackReturn:
        self._close()
        return CallbackReturn.SUCCESS

    def on_shutdown(self, previous_state: Any) -> CallbackReturn:
        return self.on_cleanup(previous_state)

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        waiting_transition(self, 'Activating', self.hw_start_sec, '')
        self.set_command(self.command, 0.0)  # set some default values for joints
        logger_of(self).info('Successfully activated!')
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        return waiting_transition(
            self, 'Deactivating', self.hw_stop_sec, 'Successfully deactivated!'
        )

    def read(self, time: Any, period: Any) -> ReturnType:
        return ReturnType.OK

    def write(self, time: Any, period: Any) -> ReturnType:
        value = self.get_command(self.command)
        data = format(value, 'g')  # what `std::ostringstream << double` writes
        self.log_rt(
            'info',
            f'Writing...\nWriting command: {fixed2(value)}\nSending data command: {data}\n',
        )
        sock = self.sock
        if sock is not None:
            try:
                sock.send(data.encode(), socket.MSG_DONTWAIT)
            except OSError as exc:  # full (the loop never waits) or the sensor is gone
                if self._drop_log.ready():
                    self.log_rt('warning', f'command {data} not sent: {exc.strerror or exc}')
        return ReturnType.OK
