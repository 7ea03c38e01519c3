"""The ROS side of hardware components: their own nodes, an executor to add more, and the
`~/hardware_status` publisher (upstream's HardwareComponentInterface::init does this before
on_init). The resource manager has no rclpy; the manager hands it one of these.

A component gets a node named after it (lower case, '/' as '_') in the manager's namespace
when its class sets `uses_node` or its `<hardware>` has a `status_publish_rate` > 0; the
node is spun like the controllers' (its own executor thread when the loop runs). With the
rate, `init_hardware_status_message` shapes a control_msgs/HardwareStatus once; a timer on
the component's node then fills it (`update_hardware_status_message`), stamps and publishes
it at that rate. A rate that is not a number >= 0 fails the component's load.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from control_msgs.msg import HardwareStatus
from rclpy.node import Node
from rclpy.qos import qos_profile_system_default

from py_controllers.hardware_interface.types import CallbackReturn, ReturnType

STATUS_RATE_PARAMETER = 'status_publish_rate'
WARN_PERIOD_S = 1.0  # a failing update_hardware_status_message is reported this often


def node_name_of(component_name: str) -> str:
    """Upstream's node name for a component: lower case, '/' replaced by '_'."""
    return component_name.lower().replace('/', '_')


def status_rate(info: Any) -> float:
    """`status_publish_rate` of the `<hardware>` tag in Hz (0 when absent); ValueError when
    it is not a finite number >= 0."""
    text = (info.hardware_parameters or {}).get(STATUS_RATE_PARAMETER)
    if text is None or not str(text).strip():
        return 0.0
    try:
        rate = float(text)
    except ValueError:
        rate = math.nan
    if not (math.isfinite(rate) and rate >= 0.0):
        raise ValueError(f"'{STATUS_RATE_PARAMETER}' must be a number of Hz >= 0, got '{text}'")
    return rate


class ComponentExecutor:
    """What a component gets as `self.executor`: add (and remove) nodes of its own to the
    manager's executors; `context` is the one to create them in."""

    def __init__(self, owner: ComponentNodes) -> None:
        self._owner = owner
        self.context = owner.manager_node.context

    def add_node(self, node: Node) -> None:
        self._owner.add_node(node)
        self._owner.added.append(node)

    def remove_node(self, node: Node) -> None:
        if node in self._owner.added:
            self._owner.added.remove(node)
            self._owner.remove_node(node)


class ComponentNodes:
    """Creates the components' nodes and status publishers; `close()` takes them down."""

    def __init__(
        self,
        manager_node: Node,
        add_node: Callable[[Node], Any],
        remove_node: Callable[[Node], Any],
    ) -> None:
        self.manager_node = manager_node
        self.add_node = add_node
        self.remove_node = remove_node
        self.added: list[Node] = []  # every node spun for components, theirs included
        self.owned: list[Node] = []  # the nodes created here (destroyed by close())

    def attach(self, component: Any, info: Any) -> None:
        """Give `component` its executor and, if it needs one, its node and status publisher;
        raises ValueError (bad rate) or RuntimeError (init_hardware_status_message failed)."""
        component.info = info  # as upstream: the description is there before on_init
        component.executor = ComponentExecutor(self)
        rate = status_rate(info)
        if not (component.uses_node or rate > 0.0):
            return
        name = node_name_of(info.name)
        node = Node(
            name,
            namespace=self.manager_node.get_namespace(),
            context=self.manager_node.context,
            cli_args=['--ros-args', '-r', f'__node:={name}'],
        )
        self.owned.append(node)
        component.node = node
        if rate > 0.0:
            self._status_publisher(component, node, rate)
        component.executor.add_node(node)

    def _status_publisher(self, component: Any, node: Node, rate: float) -> None:
        template = HardwareStatus()
        result = component.init_hardware_status_message(template)
        if not (result is None or result is True or result == CallbackReturn.SUCCESS):
            raise RuntimeError("User-defined 'init_hardware_status_message' failed.")
        if not template.hardware_device_states:
            node.get_logger().warning(
                f"'{STATUS_RATE_PARAMETER}' is {rate:g} Hz but init_hardware_status_message "
                'left hardware_device_states empty: no ~/hardware_status is published'
            )
            return
        publisher = node.create_publisher(
            HardwareStatus, '~/hardware_status', qos_profile_system_default
        )
        log = node.get_logger()
        name = component.info.name

        def publish() -> None:
            try:
                result = component.update_hardware_status_message(template)
            except Exception as exc:
                result = exc
            if not (result is None or result == ReturnType.OK):
                log.warning(
                    f"update_hardware_status_message() failed for '{name}': {result!r}",
                    throttle_duration_sec=WARN_PERIOD_S,
                )
                return
            template.header.stamp = node.get_clock().now().to_msg()
            publisher.publish(template)

        node.create_timer(1.0 / rate, publish)

    def close(self) -> None:
        """Take every component node off the executors; destroy those created here."""
        for node in reversed(self.added):
            try:
                self.remove_node(node)
            except Exception as exc:  # a node already gone with its executor
                self.manager_node.get_logger().warning(f'removing a component node: {exc!r}')
        self.added.clear()
        for node in reversed(self.owned):
            node.destroy_node()
        self.owned.clear()
