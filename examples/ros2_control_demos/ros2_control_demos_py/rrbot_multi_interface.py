"""RRBot whose joints take position, velocity or acceleration commands (example 3).

Each joint has three command and three state interfaces (position, velocity, acceleration).
A controller switch must give every joint a new command mode at once, the same mode for all
(prepare_command_mode_switch refuses anything else, as upstream does, so stopping a
controller alone is refused too); read() then follows the mode, divided by
`example_param_hw_slowdown`. Until a controller claims the joints nothing moves and read()
says so once a second.

`<hardware>` parameters (required): `example_param_hw_start_duration_sec`,
`example_param_hw_stop_duration_sec`, `example_param_hw_slowdown` (not 0).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from ros2_control_demos_py.common import (
    Throttle,
    countdown,
    fixed2,
    log_throttled,
    logger_of,
    read_numbers,
    waiting_transition,
)
from ros2_control_demos_py.rrbot import TIMING

KINDS = ('position', 'velocity', 'acceleration')


class Level(IntEnum):
    """Upstream's integration_level_t: the command mode of a joint."""

    UNDEFINED = 0
    POSITION = 1
    VELOCITY = 2
    ACCELERATION = 3


MODE_OF = {
    'position': Level.POSITION,
    'velocity': Level.VELOCITY,
    'acceleration': Level.ACCELERATION,
}


class RRBotSystemMultiInterfaceHardware(SystemInterface):
    """ros2_control_demo_example_3/RRBotSystemMultiInterfaceHardware."""

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
        self.joints = [joint.name for joint in info.joints]
        self.control_level = [Level.POSITION] * len(self.joints)
        for joint in info.joints:
            problem = _joint_problem(joint)
            if problem:
                log.fatal(problem)
                return CallbackReturn.ERROR
        self._read_log = Throttle()
        self._idle_log = Throttle(1000)
        self._write_log = Throttle()
        return CallbackReturn.SUCCESS

    def _names(self) -> list[str]:
        return [f'{joint}/{kind}' for joint in self.joints for kind in KINDS]

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        waiting_transition(self, 'Configuring', self.hw_start_sec, '')
        for name in self._names():  # reset values always when configuring hardware
            self.set_state(name, 0.0)
            self.set_command(name, 0.0)
        logger_of(self).info('Successfully configured!')
        return CallbackReturn.SUCCESS

    def _switch_plan(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> tuple[Level, list[int]] | None:
        """The mode every joint gets and the joints that stop, or None if refused."""
        new_modes = [
            mode
            for key in start_interfaces
            for joint in self.joints
            for kind, mode in MODE_OF.items()
            if key == f'{joint}/{kind}'
        ]
        # example criteria: every joint gets a new mode at once, the same for all
        if len(new_modes) != len(self.joints) or len(set(new_modes)) != 1:
            return None
        stopping = [
            i for i, joint in enumerate(self.joints) if any(joint in key for key in stop_interfaces)
        ]
        if any(
            level != Level.UNDEFINED and i not in stopping
            for i, level in enumerate(self.control_level)
        ):
            return None  # something else is using the joint
        return new_modes[0], stopping

    def prepare_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        """Only checks: the service thread calls it while the loop still runs the old mode
        (upstream's example switches here, racing read(); the switch is perform's)."""
        plan = self._switch_plan(start_interfaces, stop_interfaces)
        return ReturnType.OK if plan is not None else ReturnType.ERROR

    def perform_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        """Between two cycles: the stopping joints hold where they are, every joint takes
        the new mode."""
        plan = self._switch_plan(start_interfaces, stop_interfaces)
        if plan is None:
            return ReturnType.ERROR
        mode, stopping = plan
        for i in stopping:  # stop motion on the joints that stop
            joint = self.joints[i]
            self.set_command(f'{joint}/position', self.get_state(f'{joint}/position'))
            self.set_command(f'{joint}/velocity', 0.0)
            self.set_command(f'{joint}/acceleration', 0.0)
        self.control_level = [mode] * len(self.joints)
        return ReturnType.OK

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        logger_of(self).info('Activating... please wait...')
        countdown(self, self.hw_start_sec)
        self.control_level = [Level.UNDEFINED] * len(self.joints)
        logger_of(self).info(f'System successfully activated! {int(self.control_level[0])}')
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        logger_of(self).info('Deactivating... please wait...')
        countdown(self, self.hw_stop_sec)
        logger_of(self).info('Successfully deactivated!')
        return CallbackReturn.SUCCESS

    def read(self, time: Any, period: Any) -> ReturnType:
        dt = period.nanoseconds * 1e-9
        slowdown = self.hw_slowdown
        rows = []
        for i, joint in enumerate(self.joints):
            pos, vel, acc = (f'{joint}/{kind}' for kind in KINDS)
            level = self.control_level[i]
            if level == Level.UNDEFINED:
                if self._idle_log.ready():
                    self.log_rt('info', 'Nothing is using the hardware interface!')
                return ReturnType.OK
            if level == Level.POSITION:
                self.set_state(acc, 0.0)
                self.set_state(vel, 0.0)
                p = self.get_state(pos)
                self.set_state(pos, p + (self.get_command(pos) - p) / slowdown)
            elif level == Level.VELOCITY:
                self.set_state(acc, 0.0)
                self.set_state(vel, self.get_command(vel))
                self.set_state(pos, self.get_state(pos) + self.get_state(vel) * dt / slowdown)
            else:
                self.set_state(acc, self.get_command(acc))
                self.set_state(vel, self.get_state(vel) + self.get_state(acc) * dt / slowdown)
                self.set_state(pos, self.get_state(pos) + self.get_state(vel) * dt / slowdown)
            rows.append(
                f'\n\tpos: {fixed2(self.get_state(pos))}, vel: {fixed2(self.get_state(vel))}, '
                f'acc: {fixed2(self.get_state(acc))} for joint {i}'
            )
        log_throttled(self, self._read_log, lambda: 'Reading states:' + ''.join(rows))
        return ReturnType.OK

    def write(self, time: Any, period: Any) -> ReturnType:
        def text() -> str:
            rows = []
            for i, joint in enumerate(self.joints):
                pos, vel, acc = (self.get_command(f'{joint}/{kind}') for kind in KINDS)
                rows.append(
                    f'\n\tcommand pos: {fixed2(pos)}, vel: {fixed2(vel)}, acc: {fixed2(acc)} '
                    f'for joint {i}, control lvl: {int(self.control_level[i])}'
                )
            return 'Writing commands:' + ''.join(rows)

        log_throttled(self, self._write_log, text)
        return ReturnType.OK


def _joint_problem(joint: Any) -> str:
    """Upstream's checks (three of each, the first one of the known kinds)."""
    commands = [itf.name for itf in joint.command_interfaces]
    states = [itf.name for itf in joint.state_interfaces]
    expected = 'Expected position, velocity, or acceleration.'
    if len(commands) != 3:
        return f"Joint '{joint.name}' has {len(commands)} command interfaces. 3 expected."
    if commands[0] not in KINDS:
        return f"Joint '{joint.name}' has {commands[0]} command interface. {expected}"
    if len(states) != 3:
        return f"Joint '{joint.name}'has {len(commands)} state interfaces. 3 expected."
    if states[0] not in KINDS:
        return f"Joint '{joint.name}' has {states[0]} state interface. {expected}"
    return ''
