"""RRBot with position-only joints (examples 1, 5, 9 and 12): each joint's position moves a
`1 / example_param_hw_slowdown` share of the way to its command every read().

`<hardware>` parameters (all required, as upstream):

    example_param_hw_start_duration_sec   on_configure and on_activate wait this long
    example_param_hw_stop_duration_sec    on_deactivate waits this long
    example_param_hw_slowdown             the divisor of each read's step (not 0)

Every joint has exactly one `position` command and one `position` state interface.
"""

from __future__ import annotations

from typing import Any

from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from ros2_control_demos_py.common import (
    Throttle,
    fixed2,
    log_throttled,
    logger_of,
    read_numbers,
    waiting_transition,
)
from ros2_control_demos_py.joint_checks import exact_interfaces

TIMING = [
    'example_param_hw_start_duration_sec',
    'example_param_hw_stop_duration_sec',
    'example_param_hw_slowdown',
]


class RRBotSystemPositionOnlyHardware(SystemInterface):
    """ros2_control_demo_example_{5,9,12}/RRBotSystemPositionOnlyHardware."""

    LOG_UPDATE_RATE = False  # example 1 (and 17) say their rw_rate at init

    def on_init(self, info: Any) -> CallbackReturn:
        if super().on_init(info) != CallbackReturn.SUCCESS:
            return CallbackReturn.ERROR
        values = read_numbers(self, TIMING)
        if values is None:
            return CallbackReturn.ERROR
        self.hw_start_sec, self.hw_stop_sec, self.hw_slowdown = values
        log = logger_of(self)
        if self.hw_slowdown == 0.0:
            log.fatal("hardware parameter 'example_param_hw_slowdown' must not be 0")
            return CallbackReturn.ERROR
        if self.LOG_UPDATE_RATE:
            log.info(f'Robot hardware_component update_rate is {info.rw_rate}Hz')
        for joint in info.joints:
            problem = exact_interfaces(joint, ['position'], ['position'])
            if problem:
                log.fatal(problem)
                return CallbackReturn.ERROR
        self.names = [f'{joint.name}/position' for joint in info.joints]
        self._read_log = Throttle()
        self._write_log = Throttle()
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        waiting_transition(self, 'Configuring', self.hw_start_sec, '')
        for name in self.names:  # reset values always when configuring hardware
            self.set_state(name, 0.0)
            self.set_command(name, 0.0)
        logger_of(self).info('Successfully configured!')
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        waiting_transition(self, 'Activating', self.hw_start_sec, '')
        for name in self.names:  # command and state should be equal when starting
            self.set_command(name, self.get_state(name))
        logger_of(self).info('Successfully activated!')
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        return waiting_transition(
            self, 'Deactivating', self.hw_stop_sec, 'Successfully deactivated!'
        )

    def read(self, time: Any, period: Any) -> ReturnType:
        for name in self.names:  # simulate the RRBot's movement
            state = self.get_state(name)
            self.set_state(name, state + (self.get_command(name) - state) / self.hw_slowdown)
        log_throttled(self, self._read_log, lambda: self._lines('Reading states:', self.get_state))
        return ReturnType.OK

    def write(self, time: Any, period: Any) -> ReturnType:
        log_throttled(
            self, self._write_log, lambda: self._lines('Writing commands:', self.get_command)
        )
        return ReturnType.OK

    def _lines(self, title: str, value_of: Any) -> str:
        rows = [f"\n\t{fixed2(value_of(name))} for joint '{name}'" for name in self.names]
        return title + ''.join(rows)


class RRBotSystemPositionOnlyHardwareExample1(RRBotSystemPositionOnlyHardware):
    """ros2_control_demo_example_1/RRBotSystemPositionOnlyHardware: logs its rw_rate."""

    LOG_UPDATE_RATE = True
