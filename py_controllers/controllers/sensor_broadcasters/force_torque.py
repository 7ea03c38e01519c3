"""`force_torque_sensor_broadcaster/ForceTorqueSensorBroadcaster`: a wrench to `~/wrench`.

The sensor is either ``sensor_name`` (a 6D sensor with ``<sensor_name>/force.x`` ...
``<sensor_name>/torque.z``) or ``interface_names.force.x`` ... ``interface_names.torque.z``
(full interface names; an axis left empty is not measured and reads NaN), never both.
Every update publishes geometry_msgs/WrenchStamped on ``~/wrench`` (``frame_id``, the
manager's time) with each axis ``(reading + offset) * multiplier``; ``offset.*`` and
``multiplier.*`` take effect on the next cycle after ``ros2 param set``, as upstream. Like
upstream, the broadcaster is chainable: it exports the published values as state
interfaces ``<controller>/<sensor_name>/force.x`` ... (or ``<controller>/<interface name>``).

The filtered topic. Upstream always advertises ``~/wrench_filtered`` and publishes there
the output of a ``sensor_filter_chain`` (a filters::FilterChain of pluginlib filter
plug-ins), when one is configured. That needs the ROS ``filters`` package, which
py_controllers does not have: ``~/wrench_filtered`` is advertised as upstream but never
published, and a configure with any ``sensor_filter_chain.*`` parameter fails with an error
that says so, instead of running without the filters the user asked for.

Differences from upstream (ros2_controllers master): the exported state interfaces follow
every update (NaN until the first; upstream sets them once when exported), and
``sensor_filter_chain`` is refused as above.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from geometry_msgs.msg import WrenchStamped

from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ReturnType,
)
from py_controllers.controllers.sensor_broadcasters.common import SensorBroadcasterMixin
from py_controllers.hardware_interface.handle import StateInterface
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.overrides import given_names
from py_controllers.realtime_tools import RealtimePublisher
from py_controllers.realtime_tools.serialized_message import SerializedMessage
from py_controllers.ros_conversions import set_stamp
from py_controllers.semantic_components import FORCE_TORQUE_INTERFACES, ForceTorqueSensor

FILTER_CHAIN = 'sensor_filter_chain'
FILTERS_UNSUPPORTED = (
    "'{names}' configure a filter chain for ~/wrench_filtered; filter chains need the ROS "
    "'filters' package (pluginlib filter plug-ins), which py_controllers does not have. "
    'Remove the sensor_filter_chain parameters (~/wrench is published unfiltered) or filter '
    '~/wrench in a node of your own.'
)
_AXES = ('x', 'y', 'z')


def filter_chain_parameters(node: Any) -> list[str]:
    """Names of the node's ``sensor_filter_chain.*`` parameters, declared or only given. A
    chain configures ``filter1`` first (name and type), so those are asked for by name when
    not declared: rclpy lists only declared parameters."""
    names = {f'{FILTER_CHAIN}.{n}' for n in node.get_parameters_by_prefix(FILTER_CHAIN)}
    names.update(given_names(node, [f'{FILTER_CHAIN}.filter1.{k}' for k in ('name', 'type')]))
    return sorted(names)


def _per_axis(group: Any) -> list[float]:
    """Six values (force x, y, z, torque x, y, z) of an `offset` or `multiplier` group."""
    return [float(getattr(getattr(group, kind), a)) for kind in ('force', 'torque') for a in _AXES]


class ForceTorqueSensorBroadcaster(SensorBroadcasterMixin, ChainableControllerInterface):
    """Publishes one force-torque sensor as geometry_msgs/WrenchStamped on ``~/wrench``."""

    SCHEMA = Path(__file__).parent / 'force_torque_sensor_broadcaster_parameters.yaml'

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        names = [
            getattr(getattr(params.interface_names, kind), a)
            for kind in ('force', 'torque')
            for a in _AXES
        ]
        if not params.sensor_name and not any(names):
            log.error(
                "'sensor_name' or at least one 'interface_names.[force|torque].[x|y|z]' "
                'parameter has to be specified'
            )
            return CallbackReturn.ERROR
        if params.sensor_name and any(names):
            log.error(
                "'sensor_name' and 'interface_names.[force|torque].[x|y|z]' cannot be "
                'specified together'
            )
            return CallbackReturn.ERROR
        chain = filter_chain_parameters(self.get_node())
        if chain:
            log.error(FILTERS_UNSUPPORTED.format(names="', '".join(chain)))
            return CallbackReturn.ERROR
        self.params = params
        if params.sensor_name:
            self.sensor = ForceTorqueSensor(params.sensor_name)
            prefix = f'{self.name}/{params.sensor_name}'
            self._exports = [(prefix, itf, i) for i, itf in enumerate(FORCE_TORQUE_INTERFACES)]
        else:
            self.sensor = ForceTorqueSensor.from_interface_names(*names)
            self._exports = [(self.name, n, i) for i, n in enumerate(names) if n]
        self._apply_gains(params)
        node = self.get_node()
        msg = WrenchStamped()
        msg.header.frame_id = params.frame_id
        serialized = SerializedMessage(msg)
        self._stamp = serialized.time(msg.header.stamp)
        self._force = serialized.scalars(msg.wrench.force, ('x', 'y', 'z'))
        self._torque = serialized.scalars(msg.wrench.torque, ('x', 'y', 'z'))
        publisher = node.create_publisher(WrenchStamped, '~/wrench', 10)
        self._rt = RealtimePublisher(publisher, serialized)
        # advertised as upstream; published only through a filter chain, which we refuse
        self._filtered_publisher = node.create_publisher(WrenchStamped, '~/wrench_filtered', 10)
        self._values = [math.nan] * 6
        return CallbackReturn.SUCCESS

    def _apply_gains(self, params: Any) -> None:
        self._offsets = _per_axis(params.offset)
        self._multipliers = _per_axis(params.multiplier)

    def on_export_state_interfaces(self) -> list[StateInterface]:
        return [StateInterface(prefix, itf, math.nan) for prefix, itf, _ in self._exports]

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        self._exported = [
            (handle, axis)
            for handle, (_, _, axis) in zip(self.exported_state_interfaces, self._exports)
        ]
        return super().on_activate(previous_state)

    def update_and_write_commands(self, time: Any, period: Any) -> ReturnType:
        new = self.parameters.try_update_rt()
        if new is not None:
            self._apply_gains(new)
        values = self.sensor.get_wrench(self._values)
        offsets, multipliers = self._offsets, self._multipliers
        for i in range(6):
            values[i] = (values[i] + offsets[i]) * multipliers[i]
        for handle, axis in self._exported:
            handle.value = values[axis]
        rt = self._rt
        if rt.trylock():
            set_stamp(self._stamp, time.nanoseconds)
            self._force[:] = values[:3]
            self._torque[:] = values[3:6]
            rt.unlock_and_publish()
        return RETURN_OK
