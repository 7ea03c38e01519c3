"""`state_interfaces_broadcaster/StateInterfacesBroadcaster`: chosen state interfaces as
two topics, names once and values every update.

* ``~/names`` (control_msgs/Keys): ``interfaces``, published once at configure on a
  transient-local topic of depth 1 (a late subscriber still gets it), stamped with the
  node's clock;
* ``~/values`` (control_msgs/Float64Values): their values in that order every update,
  stamped with the manager's time; NaN values are published as read.

Only double interfaces are accepted: activation fails naming any other, as upstream.
Difference from upstream (ros2_controllers master): an empty ``interfaces`` fails configure
(with the parameter's message, like every controller here) instead of the controller's load.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from control_msgs.msg import Float64Values, Keys
from rclpy.qos import DurabilityPolicy, QoSProfile

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimePublisher
from py_controllers.ros_conversions import HandleCopies, bind_array, set_stamp

NAMES_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)


class StateInterfacesBroadcaster(ControllerInterface):
    """Publishes the values of ``interfaces`` on ``~/values``, their names on ``~/names``."""

    SCHEMA = Path(__file__).parent / 'state_interfaces_broadcaster_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        self.params = params
        node = self.get_node()
        names = Keys(keys=list(params.interfaces))
        names.header.stamp = node.get_clock().now().to_msg()
        node.create_publisher(Keys, '~/names', NAMES_QOS).publish(names)
        values = Float64Values()
        self._view = bind_array(values, 'values', len(params.interfaces), math.nan)
        self._rt = RealtimePublisher(node.create_publisher(Float64Values, '~/values', 10), values)
        self._copies = HandleCopies([])
        return CallbackReturn.SUCCESS

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(list(self.params.interfaces))

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        handles = self.state_interfaces
        wrong = [f'{h.name} ({h.data_type})' for h in handles if h.data_type != 'double']
        if wrong:
            self.get_node().get_logger().error(
                f'only double state interfaces can be broadcast: {", ".join(wrong)}'
            )
            return CallbackReturn.FAILURE
        self._copies = HandleCopies([(self._view, self.state_interfaces)])
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> ReturnType:
        rt = self._rt
        if rt.trylock():
            set_stamp(rt.msg.header.stamp, time.nanoseconds)
            self._copies.copy_rt()
            rt.unlock_and_publish()
        return RETURN_OK
