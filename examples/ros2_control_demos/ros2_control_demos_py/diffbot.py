"""DiffBot's wheels (examples 2 and 16): read() integrates each wheel's velocity command into
its position; write() copies the command into the velocity state (times 0.8 in example 16,
which shows a PID controller making up for it).

`<hardware>` parameters (required): `example_param_hw_start_duration_sec` (on_configure and
on_activate wait this long), `example_param_hw_stop_duration_sec` (on_deactivate).
Every joint has one `velocity` command interface and the state interfaces `position`,
`velocity` in that order.
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


class DiffBotSystemHardware(SystemInterface):
    """ros2_control_demo_example_2/DiffBotSystemHardware."""

    VELOCITY_FACTOR = 1.0  # what write() reports of the command as the wheel's velocity

    def on_init(self, info: Any) -> CallbackReturn:
        if super().on_init(info) != CallbackReturn.SUCCESS:
            return CallbackReturn.ERROR
        values = read_numbers(
            self, ['example_param_hw_start_duration_sec', 'example_param_hw_stop_duration_sec']
        )
        if values is None:
            return CallbackReturn.ERROR
        self.hw_start_sec, self.hw_stop_sec = values
        for joint in info.joints:
            problem = _wheel_problem(joint)
            if problem:
                logger_of(self).fatal(problem)
                return CallbackReturn.ERROR
        self.wheels = [joint.name for joint in info.joints]
        self._read_log = Throttle()
        self._write_log = Throttle()
        return CallbackReturn.SUCCESS

    def _all_interfaces(self) -> tuple[list[str], list[str]]:
        states = [f'{w}/{i}' for w in self.wheels for i in ('position', 'velocity')]
        return states, [f'{w}/velocity' for w in self.wheels]

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        waiting_transition(self, 'Configuring', self.hw_start_sec, '')
        states, commands = self._all_interfaces()
        for name in states:  # reset values always when configuring hardware
            self.set_state(name, 0.0)
        for name in commands:
            self.set_command(name, 0.0)
        logger_of(self).info('Successfully configured!')
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        waiting_transition(self, 'Activating', self.hw_start_sec, '')
        for name in self._all_interfaces()[1]:  # command and state equal when starting
            self.set_command(name, self.get_state(name))
        logger_of(self).info('Successfully activated!')
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        return waiting_transition(
            self, 'Deactivating', self.hw_stop_sec, 'Successfully deactivated!'
        )

    def read(self, time: Any, period: Any) -> ReturnType:
        dt = period.nanoseconds * 1e-9
        rows = []
        for wheel in self.wheels:  # a revolute joint without limits: integrate the command
            position = f'{wheel}/position'
            velocity = self.get_command(f'{wheel}/velocity')
            self.set_state(position, self.get_state(position) + dt * velocity)
            rows.append((position, velocity))
        log_throttled(
            self,
            self._read_log,
            lambda: (
                'Reading states:'
                + ''.join(
                    f"\n\t position {fixed2(self.get_state(p))} and velocity {fixed2(v)} for '{p}'!"
                    for p, v in rows
                )
            ),
        )
        return ReturnType.OK

    def write(self, time: Any, period: Any) -> ReturnType:
        names = self._all_interfaces()[1]
        for name in names:  # simulate sending the commands to the hardware
            self.set_state(name, self.get_command(name) * self.VELOCITY_FACTOR)
        log_throttled(
            self,
            self._write_log,
            lambda: (
                'Writing commands:'
                + ''.join(f"\n\tcommand {fixed2(self.get_command(n))} for '{n}'!" for n in names)
            ),
        )
        return ReturnType.OK


class DiffBotSystemHardwareExample16(DiffBotSystemHardware):
    """ros2_control_demo_example_16/DiffBotSystemHardware: the wheels reach 80 % of their
    command, to show the PID controllers chained in front of the diff drive at work."""

    VELOCITY_FACTOR = 0.8


def _wheel_problem(joint: Any) -> str:
    """Upstream's checks of a wheel joint, in its words ('' when it passes)."""
    name = joint.name
    commands = [itf.name for itf in joint.command_interfaces]
    states = [itf.name for itf in joint.state_interfaces]
    if len(commands) != 1:
        return f"Joint '{name}' has {len(commands)} command interfaces found. 1 expected."
    if commands[0] != 'velocity':
        return f"Joint '{name}' have {commands[0]} command interfaces found. 'velocity' expected."
    if len(states) != 2:
        return f"Joint '{name}' has {len(states)} state interface. 2 expected."
    if states[0] != 'position':
        return f"Joint '{name}' have '{states[0]}' as first state interface. 'position' expected."
    if states[1] != 'velocity':
        return f"Joint '{name}' have '{states[1]}' as second state interface. 'velocity' expected."
    return ''
