"""The tuning page's ROS side: a controller's parameters read and set through its own
parameter services (rcl_interfaces, as `ros2 param` does), and recorders of the topics that
matter for its type. Node and topic names come from `names` (the selected manager's
namespace), as on every page.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from control_msgs.msg import JointTrajectoryControllerState, MultiDOFStateStamped
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter

from py_controllers.dashboard.commands import RefusedError
from py_controllers.dashboard.names import controller_topic
from py_controllers.dashboard.ros_bridge import RosBridge
from py_controllers.dashboard.tuning import Recorder
from py_controllers.dashboard.tuning_schema import AnySchema, key_parameters, parameter_specs
from py_controllers.dashboard.tuning_signals import (
    DIFF_DRIVE,
    JTC,
    PID,
    commanded_values,
    jtc_values,
    measured_values,
    pid_values,
)

KEEP_S = 60.0
"""Seconds of signals kept per topic (the longest window the page offers)."""

ROS_TYPES = {
    'bool': Parameter.Type.BOOL,
    'int': Parameter.Type.INTEGER,
    'double': Parameter.Type.DOUBLE,
    'string': Parameter.Type.STRING,
    'bool_array': Parameter.Type.BOOL_ARRAY,
    'int_array': Parameter.Type.INTEGER_ARRAY,
    'double_array': Parameter.Type.DOUBLE_ARRAY,
    'string_array': Parameter.Type.STRING_ARRAY,
}


# topic (relative to the controller node), message type, values of a message
SOURCES: dict[str, list[tuple[str, Any, Callable[[Any], dict[str, float]]]]] = {
    PID: [('controller_state', MultiDOFStateStamped, pid_values)],
    JTC: [('controller_state', JointTrajectoryControllerState, jtc_values)],
    DIFF_DRIVE: [
        ('cmd_vel', TwistStamped, commanded_values),
        ('odom', Odometry, measured_values),
    ],
}


class Feeds:
    """Recorders of the plotted topics, one per topic, made on first use and kept (a page
    opened again finds the history)."""

    def __init__(self, bridge: RosBridge) -> None:
        self.bridge = bridge
        self._recorders: dict[str, Recorder] = {}

    def recorders(self, kind: str, manager: str, controller: str) -> list[Recorder]:
        """The recorders of the topics of `kind` for `controller` of `manager`."""
        out = []
        for suffix, msg_type, values in SOURCES.get(kind, []):
            topic = controller_topic(manager, controller, suffix)
            recorder = self._recorders.get(topic)
            if recorder is None:
                recorder = self._recorders[topic] = Recorder(keep_s=KEEP_S)
                self.bridge.in_ros(
                    self.bridge.node.create_subscription,
                    msg_type,
                    topic,
                    _recording(recorder, values),
                    10,
                )
            out.append(recorder)
        return out


def _recording(recorder: Recorder, values: Callable[[Any], dict[str, float]]) -> Callable:
    def on_message(msg: Any) -> None:  # the ROS thread
        recorder.add(time.monotonic(), values(msg))

    return on_message


async def read_parameters(
    bridge: RosBridge, node: str, schemas: Sequence[AnySchema]
) -> dict[str, Any]:
    """The values `node` holds for every parameter of `schemas` (the map keys first, since
    they name the mapped parameters); None for those it does not have."""
    key_names = key_parameters(schemas)
    keys = await bridge.get_parameters(node, key_names) if key_names else {}
    names = [spec.name for spec in parameter_specs(schemas, keys)]
    return await bridge.get_parameters(node, names)


async def set_parameter(bridge: RosBridge, node: str, name: str, type_: str, value: Any) -> str:
    """Set one parameter through `node`'s SetParameters service; its answer, or
    RefusedError with the node's reason."""
    parameter = Parameter(
        name, ROS_TYPES[type_], list(value) if isinstance(value, tuple) else value
    )
    res = await bridge.call(
        SetParameters,
        f'{node}/set_parameters',
        SetParameters.Request(parameters=[parameter.to_parameter_msg()]),
    )
    result = res.results[0]
    if not result.successful:
        raise RefusedError(f'{name} refused: {result.reason}')
    return f'{name} set to {value!r}'
