"""Example 17's RRBot: example 1's hardware that also reports on itself three ways:

- diagnostics on its own node (named after the component, in lower case): `/diagnostics`
  with '<node>: <component>_Status' at OK, 'Hardware is OK', once a second;
- a node of its own, `<component in lower case>_custom_node`, added to the manager's
  executor, publishing `rrbot_custom_status` (std_msgs/String) every 2 s;
- the framework's `~/hardware_status` (control_msgs/HardwareStatus) at the `<hardware>`
  parameter `status_publish_rate`: one device per joint, HEALTH_WARNING beyond |0.8| rad,
  the position as a detail.
"""

from __future__ import annotations

from typing import Any

from control_msgs.msg import GenericHardwareState, HardwareDeviceStatus
from diagnostic_msgs.msg import DiagnosticStatus, KeyValue
from rclpy.node import Node
from std_msgs.msg import String

from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from ros2_control_demos_py.common import logger_of
from ros2_control_demos_py.diagnostics import Updater, summary
from ros2_control_demos_py.rrbot import RRBotSystemPositionOnlyHardware

CUSTOM_STATUS_PERIOD_S = 2.0
WARNING_POSITION = 0.8  # rad


class RRBotSystemWithStatus(RRBotSystemPositionOnlyHardware):
    """ros2_control_demo_example_17/RRBotSystemPositionOnlyHardware."""

    LOG_UPDATE_RATE = True
    uses_node = True  # the diagnostics go out on the component's own node

    def on_init(self, info: Any) -> CallbackReturn:
        if super().on_init(info) != CallbackReturn.SUCCESS:
            return CallbackReturn.ERROR
        self.custom_status_node: Node | None = None
        self.custom_status_publisher: Any = None
        self.updater: Updater | None = None
        executor = self.executor
        if executor is not None:  # a node of our own, spun by the manager's executor
            name = f'{info.name.lower()}_custom_node'
            self.custom_status_node = Node(name, context=executor.context)
            executor.add_node(self.custom_status_node)
        return CallbackReturn.SUCCESS

    def _produce_diagnostics(self, status: DiagnosticStatus) -> None:
        summary(status, DiagnosticStatus.OK, 'Hardware is OK')

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        result = super().on_configure(previous_state)
        if result != CallbackReturn.SUCCESS:
            return result
        node = self.get_node()
        name = self.info.name
        if node is not None and self.updater is None:
            self.updater = Updater(node)
            self.updater.setHardwareID(name)
            self.updater.add(f'{name}_Status', self._produce_diagnostics)
        elif node is None:
            logger_of(self).warning(
                'Default node is not available. Standard diagnostics will not be published.'
            )
        custom = self.custom_status_node
        if custom is not None and self.custom_status_publisher is None:
            self.custom_status_publisher = custom.create_publisher(
                String, 'rrbot_custom_status', 10
            )

            def alive() -> None:
                now_s = custom.get_clock().now().nanoseconds * 1e-9
                text = f"RRBot '{name}' custom node is alive at {now_s:.6f}"
                self.custom_status_publisher.publish(String(data=text))

            custom.create_timer(CUSTOM_STATUS_PERIOD_S, alive)
        return CallbackReturn.SUCCESS

    def init_hardware_status_message(self, msg_template: Any) -> CallbackReturn:
        info = self.get_hardware_info()
        logger_of(self).info('Configuring hardware status message for RRBot.')
        msg_template.hardware_id = info.name
        msg_template.hardware_device_states = []
        for joint in info.joints:
            msg_template.hardware_device_states.append(
                HardwareDeviceStatus(device_id=joint.name, hardware_status=[GenericHardwareState()])
            )
        return CallbackReturn.SUCCESS

    def update_hardware_status_message(self, msg: Any) -> ReturnType:
        stamp = self.get_node().get_clock().now().to_msg()
        for joint, device in zip(self.info.joints, msg.hardware_device_states):
            device.header.stamp = stamp  # hardware reporting its own time would put it here
            device.header.frame_id = joint.name
            status = device.hardware_status[0]
            position = self.get_state(f'{joint.name}/position')
            status.health_status = (
                GenericHardwareState.HEALTH_WARNING
                if abs(position) > WARNING_POSITION
                else GenericHardwareState.HEALTH_OK
            )
            status.operational_mode = GenericHardwareState.MODE_AUTO
            status.power_state = GenericHardwareState.POWER_ON
            status.state_details = [KeyValue(key='position_state', value=f'{position:.6f}')]
        return ReturnType.OK
