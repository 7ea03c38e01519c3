"""Example controller: drives joints along sine waves around where they started.

Register it with one entry point (see pyproject.toml), then use its type name in the
controller manager's YAML like any upstream controller:

    controller_manager:
      ros__parameters:
        sine:
          type: example_controllers/SineController
    sine:
      ros__parameters:
        joints: [joint1, joint2]
        amplitude: 0.2
        frequency: 0.5
"""

from __future__ import annotations

import math

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)


class SineController(ControllerInterface):
    """position = start + amplitude * sin(2 pi f t), per joint."""

    def on_init(self) -> CallbackReturn:
        node = self.get_node()
        node.declare_parameter('joints', ['joint1'])
        node.declare_parameter('amplitude', 0.1)
        node.declare_parameter('frequency', 0.5)
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state) -> CallbackReturn:
        node = self.get_node()
        self.joints = list(node.get_parameter('joints').value)
        self.amplitude = float(node.get_parameter('amplitude').value)
        self.frequency = float(node.get_parameter('frequency').value)
        if not self.joints:
            node.get_logger().error("parameter 'joints' must not be empty")
            return CallbackReturn.ERROR
        return CallbackReturn.SUCCESS

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual([f'{j}/position' for j in self.joints])

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual([f'{j}/position' for j in self.joints])

    def on_activate(self, previous_state) -> CallbackReturn:
        self.start = [h.value for h in self.state_interfaces]  # hold where we are
        self.elapsed_s = 0.0
        return CallbackReturn.SUCCESS

    def update(self, time, period) -> ReturnType:
        self.elapsed_s += period.nanoseconds * 1e-9
        offset = self.amplitude * math.sin(2.0 * math.pi * self.frequency * self.elapsed_s)
        for handle, start in zip(self.command_interfaces, self.start):
            handle.value = start + offset
        return ReturnType.OK
