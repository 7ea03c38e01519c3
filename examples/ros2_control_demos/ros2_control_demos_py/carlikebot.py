"""The car-like robot of example 11: a steering joint (its name contains `front`; one
`position` command and state interface) that is where it is commanded, and a traction joint
(one `velocity` command, `velocity` and `position` state interfaces in that order) whose
velocity is its command and whose position integrates it.

`<hardware>` parameters (required): `example_param_hw_start_duration_sec`,
`example_param_hw_stop_duration_sec`. Exactly two joints.
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


class CarlikeBotSystemHardware(SystemInterface):
    """ros2_control_demo_example_11/CarlikeBotSystemHardware."""

    def on_init(self, info: Any) -> CallbackReturn:
        if super().on_init(info) != CallbackReturn.SUCCESS:
            return CallbackReturn.ERROR
        log = logger_of(self)
        if len(info.joints) != 2:
            log.error(
                'CarlikeBotSystemHardware::on_init() - Failed to initialize, because the number '
                f'of joints {len(info.joints)} is not 2.'
            )
            return CallbackReturn.ERROR
        self.steering_joint = self.traction_joint = ''
        for joint in info.joints:
            if 'front' in joint.name:
                self.steering_joint = joint.name
                log.info(f"Joint '{joint.name}' is a steering joint.")
                problem = _interfaces_problem(joint, 'position', ['position'])
            else:
                self.traction_joint = joint.name
                log.info(f"Joint '{joint.name}' is a drive joint.")
                problem = _interfaces_problem(joint, 'velocity', ['velocity', 'position'])
            if problem:
                log.fatal(problem)
                return CallbackReturn.ERROR
        if not (self.steering_joint and self.traction_joint):
            log.fatal(
                'one joint must be a steering joint (its name contains "front"), the other not'
            )
            return CallbackReturn.ERROR
        values = read_numbers(
            self, ['example_param_hw_start_duration_sec', 'example_param_hw_stop_duration_sec']
        )
        if values is None:
            return CallbackReturn.ERROR
        self.hw_start_sec, self.hw_stop_sec = values
        self._read_log = Throttle()
        self._write_log = Throttle()
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        waiting_transition(self, 'Configuring', self.hw_start_sec, '')
        for handle in self.state_interfaces.values():  # reset values when configuring
            handle.value = 0.0
        for handle in self.command_interfaces.values():
            handle.value = 0.0
        logger_of(self).info('Successfully configured!')
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        waiting_transition(self, 'Activating', self.hw_start_sec, '')
        for name in self.command_interfaces:  # command and state equal when starting
            self.set_command(name, self.get_state(name))
        logger_of(self).info('Successfully activated!')
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        return waiting_transition(
            self, 'Deactivating', self.hw_stop_sec, 'Successfully deactivated!'
        )

    def read(self, time: Any, period: Any) -> ReturnType:
        steer = f'{self.steering_joint}/position'
        drive_v = f'{self.traction_joint}/velocity'
        drive_p = f'{self.traction_joint}/position'
        self.set_state(steer, self.get_command(steer))
        self.set_state(drive_v, self.get_command(drive_v))
        dt = period.nanoseconds * 1e-9
        self.set_state(drive_p, self.get_state(drive_p) + self.get_command(drive_v) * dt)
        log_throttled(
            self,
            self._read_log,
            lambda: (
                'Reading states:'
                f"\n\tposition: {fixed2(self.get_state(steer))} for joint '{self.steering_joint}'"
                f"\n\tposition: {fixed2(self.get_state(drive_p))} for joint '{self.traction_joint}'"
                f"\n\tvelocity: {fixed2(self.get_state(drive_v))} for joint '{self.traction_joint}'"
            ),
        )
        return ReturnType.OK

    def write(self, time: Any, period: Any) -> ReturnType:
        steer = f'{self.steering_joint}/position'
        drive_v = f'{self.traction_joint}/velocity'
        steering, traction = self.steering_joint, self.traction_joint
        log_throttled(
            self,
            self._write_log,
            lambda: (
                'Writing commands:'
                f"\n\tposition: {fixed2(self.get_command(steer))} for joint '{steering}'"
                f"\n\tvelocity: {fixed2(self.get_command(drive_v))} for joint '{traction}'"
            ),
        )
        return ReturnType.OK


def _interfaces_problem(joint: Any, command: str, states: list[str]) -> str:
    """Upstream's checks of one joint, in its words ('' when they pass)."""
    name = joint.name
    commands = [itf.name for itf in joint.command_interfaces]
    got = [itf.name for itf in joint.state_interfaces]
    if len(commands) != 1:
        return f"Joint '{name}' has {len(commands)} command interfaces found. 1 expected."
    if commands[0] != command:
        return f"Joint '{name}' has {commands[0]} command interface. '{command}' expected."
    if len(got) != len(states):
        return f"Joint '{name}' has {len(got)} state interface. {len(states)} expected."
    for have, want in zip(got, states):
        if have != want:
            return f"Joint '{name}' has {have} state interface. '{want}' expected."
    return ''
