"""One RRBot joint as an actuator component of its own (example 6): the two joints are two
components, each moving as example 1's joints do and logging every read() and write().

`<hardware>` parameters (required): `example_param_hw_start_duration_sec`,
`example_param_hw_stop_duration_sec`, `example_param_hw_slowdown` (not 0). The joint has one
`position` command and one `position` state interface.
"""

from __future__ import annotations

from typing import Any

from py_controllers.hardware_interface.hardware_component import ActuatorInterface
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from ros2_control_demos_py.common import fixed2, logger_of, read_numbers, waiting_transition
from ros2_control_demos_py.joint_checks import exact_interfaces
from ros2_control_demos_py.rrbot import TIMING


class RRBotModularJoint(ActuatorInterface):
    """ros2_control_demo_example_6/RRBotModularJoint."""

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
        if not info.joints:
            log.fatal(f"hardware '{info.name}' has no joint")
            return CallbackReturn.ERROR
        problem = exact_interfaces(info.joints[0], ['position'], ['position'])
        if problem:
            log.fatal(problem)
            return CallbackReturn.ERROR
        self.position = f'{info.joints[0].name}/position'
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        waiting_transition(self, 'Configuring', self.hw_start_sec, '')
        self.set_state(self.position, 0.0)  # reset values always when configuring hardware
        self.set_command(self.position, 0.0)
        logger_of(self).info('Successfully configured!')
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        waiting_transition(self, 'Activating', self.hw_start_sec, '')
        self.set_command(self.position, self.get_state(self.position))
        logger_of(self).info('Successfully activated!')
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        return waiting_transition(
            self, 'Deactivating', self.hw_stop_sec, 'Successfully deactivated!'
        )

    def read(self, time: Any, period: Any) -> ReturnType:
        state = self.get_state(self.position)
        self.set_state(
            self.position, state + (self.get_command(self.position) - state) / self.hw_slowdown
        )
        text = f"{fixed2(self.get_state(self.position))} for joint '{self.position}'"
        self.log_rt('info', f'Reading states:\n\t{text}')
        return ReturnType.OK

    def write(self, time: Any, period: Any) -> ReturnType:
        text = f"{fixed2(self.get_command(self.position))} for joint '{self.position}'"
        self.log_rt('info', f'Writing commands:\n\t{text}')
        return ReturnType.OK
