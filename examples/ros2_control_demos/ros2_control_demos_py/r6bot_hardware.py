"""The 6-axis r6bot (example 7): each joint's velocity state is its velocity command, and its
position integrates that velocity over the period (the position command is not used).
The force-torque `<sensor>` reads 0 (upstream leaves it for a subscriber to fill)."""

from __future__ import annotations

from typing import Any

from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType


class RobotSystem(SystemInterface):
    """ros2_control_demo_example_7/RobotSystem."""

    def on_init(self, info: Any) -> CallbackReturn:
        if super().on_init(info) != CallbackReturn.SUCCESS:
            return CallbackReturn.ERROR
        self.joints = [joint.name for joint in info.joints]
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        # reset values always when configuring hardware (sensor states included)
        for handle in self.state_interfaces.values():
            handle.value = 0.0
        for handle in self.command_interfaces.values():
            handle.value = 0.0
        return CallbackReturn.SUCCESS

    def read(self, time: Any, period: Any) -> ReturnType:
        dt = period.nanoseconds * 1e-9
        for joint in self.joints:
            velocity = f'{joint}/velocity'
            position = f'{joint}/position'
            self.set_state(velocity, self.get_command(velocity))
            self.set_state(position, self.get_state(position) + self.get_state(velocity) * dt)
        return ReturnType.OK
