"""RRBot with GPIOs (example 10): the joints as in example 1; every GPIO command is mirrored
to the state interface of the same name, and the first GPIO's second and third state
interfaces (`analog_input1`, `analog_input2`) read the first number of a minstd_rand seeded
with the current second plus 1 and plus 2, as upstream.

Needs exactly two `<gpio>`s with one command interface each, the first with three state
interfaces, the second with one. `<hardware>` parameter `example_param_hw_slowdown` (the
divisor of each joint step, not 0) is read: upstream forgets to read it and divides by an
uninitialised number. The start and stop durations are not used, as upstream.
"""

from __future__ import annotations

import time as _time
from typing import Any

from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from ros2_control_demos_py.common import (
    MinstdRand,
    Throttle,
    fixed2,
    log_throttled,
    logger_of,
    read_numbers,
)
from ros2_control_demos_py.joint_checks import exact_interfaces


class RRBotSystemWithGPIOHardware(SystemInterface):
    """ros2_control_demo_example_10/RRBotSystemWithGPIOHardware."""

    def on_init(self, info: Any) -> CallbackReturn:
        if super().on_init(info) != CallbackReturn.SUCCESS:
            return CallbackReturn.ERROR
        log = logger_of(self)
        for joint in info.joints:
            problem = exact_interfaces(joint, ['position'], ['position'])
            if problem:
                log.fatal(problem)
                return CallbackReturn.ERROR
        problem = _gpio_problem(info.gpios)
        if problem:
            log.fatal(problem)
            return CallbackReturn.ERROR
        values = read_numbers(self, ['example_param_hw_slowdown'])
        if values is None:
            return CallbackReturn.ERROR
        self.hw_slowdown = values[0]
        if self.hw_slowdown == 0.0:
            log.fatal("hardware parameter 'example_param_hw_slowdown' must not be 0")
            return CallbackReturn.ERROR
        self.joints = [f'{joint.name}/position' for joint in info.joints]
        self.gpio_commands = [
            f'{g.name}/{i.name}' for g in info.gpios for i in g.command_interfaces
        ]
        self.gpio_states = [f'{g.name}/{i.name}' for g in info.gpios for i in g.state_interfaces]
        first = info.gpios[0]
        self.analog_inputs = [f'{first.name}/{first.state_interfaces[k].name}' for k in (1, 2)]
        self._read_log = Throttle()
        self._write_log = Throttle()
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        log = logger_of(self)
        log.info('Configuring ...please wait...')
        for name in (*self.joints, *self.gpio_states):
            self.set_state(name, 0.0)
        for name in (*self.joints, *self.gpio_commands):
            self.set_command(name, 0.0)
        log.info('Successfully configured!')
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        log = logger_of(self)
        log.info('Activating ...please wait...')
        for name in self.joints:  # command and state should be equal when starting
            self.set_command(name, self.get_state(name))
        for name in self.gpio_commands:
            self.set_command(name, self.get_state(name))
        log.info('Successfully activated!')
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        logger_of(self).info('Successfully deactivated!')
        return CallbackReturn.SUCCESS

    def read(self, time: Any, period: Any) -> ReturnType:
        for name in self.joints:  # simulate the RRBot's movement
            state = self.get_state(name)
            self.set_state(name, state + (self.get_command(name) - state) / self.hw_slowdown)
        for name in self.gpio_commands:  # mirror the GPIOs back
            self.set_state(name, self.get_command(name))
        now = int(_time.time())
        for k, name in enumerate(self.analog_inputs, start=1):  # random analog inputs
            self.set_state(name, float(MinstdRand((now + k) % 2**32)()))
        log_throttled(
            self,
            self._read_log,
            lambda: (
                'Reading states:'
                + ''.join(
                    f"\n\t{fixed2(self.get_state(n))} from GPIO input '{n}'"
                    for n in self.gpio_states
                )
            ),
        )
        return ReturnType.OK

    def write(self, time: Any, period: Any) -> ReturnType:
        log_throttled(
            self,
            self._write_log,
            lambda: (
                'Writing commands:'
                + ''.join(
                    f"\n\t{fixed2(self.get_command(n))} for GPIO output '{n}'"
                    for n in self.gpio_commands
                )
            ),
        )
        return ReturnType.OK


def _gpio_problem(gpios: list[Any]) -> str:
    """Upstream's checks of the two GPIOs, in its words ('' when they pass)."""
    if len(gpios) != 2:
        return f"RRBotSystemWithGPIOHardware has '{len(gpios)}' GPIO components, '2' expected."
    for gpio in gpios:
        if len(gpio.command_interfaces) != 1:
            return (
                f"GPIO component {gpio.name} has '{len(gpio.command_interfaces)}' command "
                "interfaces, '1' expected."
            )
    for gpio, expected in zip(gpios, (3, 1)):
        if len(gpio.state_interfaces) != expected:
            return (
                f"GPIO component {gpio.name} has '{len(gpio.state_interfaces)}' state "
                f"interfaces, '{expected}' expected."
            )
    return ''
