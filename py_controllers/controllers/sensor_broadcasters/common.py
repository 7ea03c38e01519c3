"""What the sensor broadcasters share: assigning the semantic component on activation."""

from __future__ import annotations

from typing import Any

from py_controllers.controller_interface.controller_interface import CallbackReturn
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
