"""Example 12's chainable controller: passes commands through without change.

It claims the command interfaces named by `interfaces` and exports one reference interface
per name (`<controller>/<name>`, same order). Not chained, it takes a Float64MultiArray of
that many values on `~/commands` (another size is refused with an error); chained, the
controller in front writes the references. Each cycle every reference that is not NaN goes
to its command interface; a message with a value that is not finite is not taken (the
references keep their values), as upstream.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from rclpy.qos import qos_profile_system_default
from std_msgs.msg import Float64MultiArray

from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.hardware_interface.handle import CommandInterface
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox

_NAN = math.nan


class PassthroughController(ChainableControllerInterface):
    """passthrough_controller/PassthroughController."""

    SCHEMA = Path(__file__).with_name('passthrough_controller_parameters.yaml')

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        self.command_interface_names: list[str] = []
        # the newest ~/commands values (a tuple), or None: nothing (new) to pass on
        self.command_box: RealtimeBox[tuple[float, ...] | None] = RealtimeBox(None)
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        self.command_interface_names = list(params.interfaces)
        node = self.get_node()
        node.create_subscription(
            Float64MultiArray, '~/commands', self._on_commands, qos_profile_system_default
        )
        node.get_logger().info('configure successful')
        return CallbackReturn.SUCCESS

    def _on_commands(self, msg: Float64MultiArray) -> None:
        expected = len(self.command_interface_names)
        if len(msg.data) != expected:
            self.get_node().get_logger().error(
                f'Invalid command received of {len(msg.data)} size, expected {expected} size'
            )
            return
        self.command_box.set(tuple(msg.data))

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(self.command_interface_names)

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.none()

    def on_export_reference_interfaces(self) -> list[CommandInterface]:
        return [CommandInterface(self.name, name, _NAN) for name in self.command_interface_names]

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        self.command_box.set(None)  # a command that came while inactive is dropped
        self._command: tuple[float, ...] = ()
        self.get_node().get_logger().info('activate successful')
        for handle in self.reference_interfaces:
            handle.value = _NAN
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        self.command_box.set(None)
        return CallbackReturn.SUCCESS

    def on_set_chained_mode(self, chained: bool) -> bool:
        return True

    def update_reference_from_subscribers(self, time: Any, period: Any) -> ReturnType:
        newest = self.command_box.get()
        if newest is not None:
            self._command = newest
        command = self._command
        if command and all(math.isfinite(v) for v in command):
            for handle, value in zip(self.reference_interfaces, command):
                handle.value = value
        return ReturnType.OK

    def update_and_write_commands(self, time: Any, period: Any) -> ReturnType:
        for handle, reference in zip(self.command_interfaces, self.reference_interfaces):
            value = reference.value
            if value == value:  # not NaN
                handle.value = value
        return ReturnType.OK
