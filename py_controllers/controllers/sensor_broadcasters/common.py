"""What the sensor broadcasters share: their parameters, the state interfaces of their one
semantic component, and handing those interfaces over on activation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    InterfaceConfiguration,
)
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.semantic_components import SemanticComponentError, SemanticComponentInterface


def assign_component(controller: Any, component: SemanticComponentInterface) -> CallbackReturn:
    """Hand the controller's state interfaces to ``component``; ERROR (logged, naming the
    missing interfaces) when some are not there."""
    try:
        component.assign_loaned_state_interfaces(controller.state_interfaces)
    except SemanticComponentError as exc:
        controller.get_node().get_logger().error(str(exc))
        return CallbackReturn.ERROR
    return CallbackReturn.SUCCESS


class SensorBroadcasterMixin:
    """Lifecycle of a broadcaster of one sensor: parameters from ``SCHEMA``, the state
    interfaces of ``self.sensor`` (set in on_configure), assigned on activation and released
    on deactivation. Put it before the controller base class."""

    SCHEMA: Path
    sensor: SemanticComponentInterface

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        return CallbackReturn.SUCCESS

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(self.sensor.get_state_interface_names())

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        return assign_component(self, self.sensor)

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        self.sensor.release_interfaces()
        return CallbackReturn.SUCCESS
