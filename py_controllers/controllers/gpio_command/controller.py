"""`gpio_controllers/GpioCommandController`: `<gpio>` interfaces commanded and reported over ROS.

Parameters (gpio_command_controller_parameters.yaml): `gpios`, and per GPIO
`command_interfaces.<gpio>.interfaces` and `state_interfaces.<gpio>.interfaces`.

* Claims every `<gpio>/<interface>` of `command_interfaces`. With at least one, it listens on
  `~/commands` (control_msgs/DynamicInterfaceGroupValues): a message may name any of the
  commanded GPIOs and interfaces, in any order; what it does not name keeps its value. A
  message is checked in the callback and taken whole or not at all (see `commands.py`); a
  rejected one is logged (throttled per kind of fault) and the last valid command stays.
  update() only writes the newest valid command, again every cycle; after (re)activation
  nothing is written until a new command arrives.
* Reads the state interfaces of `state_interfaces`; when that is empty for every GPIO, all
  state interfaces the robot description's `<ros2_control>` tags give the configured GPIOs
  (as upstream; the command interfaces' states are not added). It publishes them on
  `~/gpio_states` (DynamicInterfaceGroupValues) every update, stamped with the manager's
  time: one group per entry of `gpios`, in that order (a GPIO without state interfaces
  gives an empty group), its interfaces in the configured (or URDF) order. The message is
  built at activation and filled in place; a publish still under way skips that cycle.

Without any command or state interface, configure fails. With only state interfaces it is
a GPIO broadcaster without `~/commands`.
"""

from __future__ import annotations

import math
from pathlib import Path
from time import monotonic
from typing import Any

from control_msgs.msg import DynamicInterfaceGroupValues, InterfaceValue

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controllers.gpio_command.commands import (
    Command,
    CommandRejectedError,
    CommandTable,
)
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox, RealtimePublisher
from py_controllers.realtime_tools.serialized_message import SerializedMessage
from py_controllers.ros_conversions import HandleCopies, bind_array, set_stamp

_HERE = Path(__file__).parent
REJECTION_LOG_PERIOD_S = 1.0


class GpioCommandController(ControllerInterface):
    """Forwards `~/commands` to GPIO command interfaces, publishes GPIO states."""

    SCHEMA = _HERE / 'gpio_command_controller_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        self.table = CommandTable([])
        self.state_names: list[tuple[str, str]] = []  # (gpio, interface)
        #: The newest valid command as (index into the command interfaces, value) pairs;
        #: None: nothing to write.
        self.command_box: RealtimeBox[Command | None] = RealtimeBox(None)
        self._last_rejection_log: dict[str, float] = {}
        return CallbackReturn.SUCCESS

    # --- configuration (executor thread) ----------------------------------------------
    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        self.params = params
        self.table = CommandTable(
            (gpio, interface)
            for gpio in params.gpios
            for interface in params.command_interfaces[gpio].interfaces
        )
        configured = [
            (gpio, interface)
            for gpio in params.gpios
            for interface in params.state_interfaces[gpio].interfaces
        ]
        if not configured:
            log.info(
                'state_interfaces are not configured: publishing every state interface of '
                f'{list(params.gpios)} in the robot description'
            )
            configured = self._state_interfaces_from_description(params.gpios)
        self.state_names = configured
        if not self.table.names and not self.state_names:
            log.error(
                f'no command or state interfaces for gpios {list(params.gpios)}: set '
                "'command_interfaces.<gpio>.interfaces' or 'state_interfaces.<gpio>.interfaces'"
                ', or give the gpios state interfaces in the robot description'
            )
            return CallbackReturn.ERROR
        node = self.get_node()
        if self.table.names:
            node.create_subscription(
                DynamicInterfaceGroupValues, '~/commands', self._on_command, 10
            )
        self._state_pub = node.create_publisher(DynamicInterfaceGroupValues, '~/gpio_states', 10)
        return CallbackReturn.SUCCESS

    def _state_interfaces_from_description(self, gpios: list[str]) -> list[tuple[str, str]]:
        """(gpio, interface) for every `<state_interface>` of `gpios` in the description."""
        if not self.robot_description:
            return []
        try:
            infos = parse_control_resources_from_urdf(self.robot_description)
        except Exception as exc:
            self.get_node().get_logger().warning(
                f'cannot read the gpios of the robot description: {exc}'
            )
            return []
        found = [gpio for info in infos for gpio in info.gpios]
        return [
            (name, itf.name)
            for name in gpios
            for gpio in found
            if gpio.name == name
            for itf in gpio.state_interfaces
        ]

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(self.table.names)

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual([f'{g}/{i}' for g, i in self.state_names])

    # --- commands (executor thread) ----------------------------------------------------
    def _on_command(self, msg: DynamicInterfaceGroupValues) -> None:
        try:
            command = self.table.resolve(msg.interface_groups, msg.interface_values)
        except CommandRejectedError as exc:
            self._log_rejection(exc)
            return
        self.command_box.set(command)

    def _log_rejection(self, exc: CommandRejectedError) -> None:
        """Log at most once per REJECTION_LOG_PERIOD_S for each kind of fault."""
        now = monotonic()
        if now - self._last_rejection_log.get(exc.kind, -math.inf) < REJECTION_LOG_PERIOD_S:
            return
        self._last_rejection_log[exc.kind] = now
        self.get_node().get_logger().error(f'command rejected, nothing written: {exc}')

    # --- activation ----------------------------------------------------------------------
    def on_activate(self, previous_state: Any) -> CallbackReturn:
        log = self.get_node().get_logger()
        commands = {h.name: h for h in self.command_interfaces}
        states = {h.name: h for h in self.state_interfaces}
        missing = [n for n in self.table.names if n not in commands]
        missing += [f'{g}/{i}' for g, i in self.state_names if f'{g}/{i}' not in states]
        if missing:
            log.error(f'interfaces not assigned: {missing}')
            return CallbackReturn.ERROR
        self._command_handles = [commands[n] for n in self.table.names]
        group_handles: list[list[Any]] = []
        msg = DynamicInterfaceGroupValues()
        views = []
        for gpio in self.params.gpios:
            interfaces = [i for g, i in self.state_names if g == gpio]
            msg.interface_groups.append(gpio)
            group = InterfaceValue(interface_names=interfaces)
            views.append(bind_array(group, 'values', len(interfaces), math.nan))
            msg.interface_values.append(group)
            group_handles.append([states[f'{gpio}/{i}'] for i in interfaces])
        serialized = SerializedMessage(msg)
        self._state_stamp = serialized.time(msg.header.stamp)
        self._state_values = HandleCopies(
            (serialized.doubles(view), handles) for view, handles in zip(views, group_handles)
        )
        self._state_rt = RealtimePublisher(self._state_pub, serialized)
        self.command_box.set(None)
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        self.command_box.set(None)
        return CallbackReturn.SUCCESS

    # --- the loop --------------------------------------------------------------------------
    def update(self, time: Any, period: Any) -> ReturnType:
        self._publish_states_rt(time.nanoseconds)
        command = self.command_box.get()
        if command is not None:
            handles = self._command_handles
            for index, value in command:
                handles[index].value = value
        return RETURN_OK

    def _publish_states_rt(self, now_ns: int) -> None:
        rt = self._state_rt
        if not rt.trylock():
            return
        set_stamp(self._state_stamp, now_ns)
        self._state_values.copy_rt()
        rt.unlock_and_publish()
