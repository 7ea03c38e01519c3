"""What the sensor broadcasters share: their parameters, the state interfaces of their one
semantic component, handing those interfaces over on activation, and publishing the
message the component fills."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    InterfaceConfiguration,
)
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimePublisher
from py_controllers.ros_conversions import set_stamp
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


class MessageSensor(Protocol):
    """A semantic component that fills its ROS message (GPSSensor, RangeSensor, ...)."""

    def get_values_as_message(self, message: Any) -> bool: ...


class SensorMessagePublisher:
    """A realtime publisher of one message that `sensor.get_values_as_message` fills; the
    constant fields (frame, covariances) are set once in the message given."""

    def __init__(
        self,
        node: Any,
        msg_type: Any,
        topic: str,
        msg: Any,
        sensor: MessageSensor,
    ) -> None:
        self.sensor = sensor
        self._rt = RealtimePublisher(node.create_publisher(msg_type, topic, 10), msg)

    def publish_rt(self, now_ns: int) -> None:
        """Stamp the message with the cycle's time, fill in the values and publish (skipped
        while the previous one is still being sent)."""
        rt = self._rt
        if rt.trylock():
            msg = rt.msg
            set_stamp(msg.header.stamp, now_ns)
            self.sensor.get_values_as_message(msg)
            rt.unlock_and_publish()
