"""Forward command controllers: topic values written straight to command interfaces.

One base serves every variant: `ForwardCommandController` (`joints` x `interface_name`,
`~/commands` Float64MultiArray), `MultiInterfaceForwardCommandController` (`joint` x
`interface_names`), the JointGroup position/velocity/effort controllers, and the ROS 1
style single-joint controllers (`joint`, `~/command` Float64).

A message of the wrong length or with a non-finite value is rejected in the callback
(throttled error) and the last valid command is kept. Nothing is written after
(re)activation until a new message arrives.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from std_msgs.msg import Float64, Float64MultiArray

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox

_HERE = Path(__file__).parent


class ForwardControllersBase(ControllerInterface):
    """Validates commands in the callback, writes the newest valid one every update."""

    SCHEMA = _HERE / 'forward_command_controller_parameters.yaml'
    message_type: Any = Float64MultiArray
    topic = '~/commands'
    zero_on_deactivate = False

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        self.command_names: list[str] = []
        self._box: RealtimeBox[tuple[float, ...] | None] = RealtimeBox(None)
        return CallbackReturn.SUCCESS

    def interface_names(self, params: Any) -> list[str]:
        """The `<joint>/<interface>` names to claim, in the order of the message values."""
        if not params.joints:
            raise ValueError("parameter 'joints' must not be empty")
        if not params.interface_name:
            raise ValueError("parameter 'interface_name' must not be empty")
        return [f'{j}/{params.interface_name}' for j in params.joints]

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        try:
            self.command_names = self.interface_names(params)
        except ValueError as exc:
            self.get_node().get_logger().error(str(exc))
            return CallbackReturn.ERROR
        self.get_node().create_subscription(self.message_type, self.topic, self._on_command, 10)
        return CallbackReturn.SUCCESS

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(self.command_names)

    def values_of(self, msg: Any) -> tuple[float, ...]:
        """The command values carried by `msg`."""
        return tuple(msg.data)

    def _on_command(self, msg: Any) -> None:
        values = self.values_of(msg)
        log = self.get_node().get_logger()
        if len(values) != len(self.command_names):
            log.error(
                f'command of size {len(values)} rejected: expected {len(self.command_names)} '
                f'values for {self.command_names}',
                throttle_duration_sec=1.0,
            )
            return
        if not all(math.isfinite(v) for v in values):
            log.error(f'command {values} rejected: non-finite value', throttle_duration_sec=1.0)
            return
        self._box.set(values)

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        self._box.set(None)
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        self._box.set(None)
        if self.zero_on_deactivate:
            for handle in self.command_interfaces:
                handle.value = 0.0
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> ReturnType:
        values = self._box.get()
        if values is not None:
            for handle, value in zip(self.command_interfaces, values):
                handle.value = value
        return RETURN_OK


class ForwardCommandController(ForwardControllersBase):
    """`forward_command_controller/ForwardCommandController`."""


class MultiInterfaceForwardCommandController(ForwardControllersBase):
    """`forward_command_controller/MultiInterfaceForwardCommandController`: one joint."""

    SCHEMA = _HERE / 'multi_interface_forward_command_controller_parameters.yaml'

    def interface_names(self, params: Any) -> list[str]:
        return [f'{params.joint}/{i}' for i in params.interface_names]


class _JointGroupController(ForwardControllersBase):
    """JointGroup{Position,Velocity,Effort}Controller: the interface is fixed by type."""

    SCHEMA = _HERE / 'joint_group_parameters.yaml'
    interface = ''

    def interface_names(self, params: Any) -> list[str]:
        return [f'{j}/{self.interface}' for j in params.joints]


class JointGroupPositionController(_JointGroupController):
    """`position_controllers/JointGroupPositionController`."""

    interface = 'position'


class JointGroupVelocityController(_JointGroupController):
    """`velocity_controllers/JointGroupVelocityController` (writes 0 on deactivate)."""

    interface = 'velocity'
    zero_on_deactivate = True


class JointGroupEffortController(_JointGroupController):
    """`effort_controllers/JointGroupEffortController` (writes 0 on deactivate)."""

    interface = 'effort'
    zero_on_deactivate = True


class _SingleJointController(ForwardControllersBase):
    """ROS 1 style: parameter `joint`, topic `~/command` (std_msgs/Float64)."""

    SCHEMA = _HERE / 'single_joint_parameters.yaml'
    message_type = Float64
    topic = '~/command'
    interface = ''

    def interface_names(self, params: Any) -> list[str]:
        return [f'{params.joint}/{self.interface}']

    def values_of(self, msg: Any) -> tuple[float, ...]:
        return (msg.data,)


class JointPositionController(_SingleJointController):
    """`position_controllers/JointPositionController`."""

    interface = 'position'


class JointVelocityController(_SingleJointController):
    """`velocity_controllers/JointVelocityController` (writes 0 on deactivate)."""

    interface = 'velocity'
    zero_on_deactivate = True


class JointEffortController(_SingleJointController):
    """`effort_controllers/JointEffortController` (writes 0 on deactivate)."""

    interface = 'effort'
    zero_on_deactivate = True
