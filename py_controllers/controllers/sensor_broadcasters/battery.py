"""`battery_state_broadcaster/BatteryStateBroadcaster`: batteries to `~/raw_battery_states`
and `~/battery_state`.

For each battery of ``batteries`` it claims ``<battery>/battery_voltage`` and the optional
readings enabled under ``interfaces.<battery>`` (temperature, current, charge, percentage,
power_supply_status, power_supply_health, present), in that order, and publishes every
update:

* ``~/raw_battery_states`` (control_msgs/BatteryStateArray): one sensor_msgs/BatteryState
  per battery, ``header.frame_id`` the battery's name;
* ``~/battery_state`` (sensor_msgs/BatteryState): their aggregate, empty ``frame_id``.

Both stamped with the manager's time. What each field holds: ``battery_state.py``. The
deprecated ``sensor_name`` form (one battery, ``<sensor_name>/voltage``, with the top-level
``design_capacity`` and ``power_supply_technology``) works as upstream: the aggregate carries
that voltage, the design capacity and technology, capacity 0, the rest unknown; the raw
array is empty.

Differences from upstream (ros2_controllers master): an infinite ``minimum_voltage`` or
``maximum_voltage`` is refused at configure (upstream counts such a battery in the mean
percentage but gives it none); a ``battery_present`` interface must be a bool interface, or
activation fails (upstream's update throws on a double one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from control_msgs.msg import BatteryStateArray
from sensor_msgs.msg import BatteryState

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controllers.sensor_broadcasters.battery_state import (
    OPTIONAL_READINGS,
    BatterySpec,
    BatteryStates,
)
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimePublisher
from py_controllers.ros_conversions import set_stamp
from py_controllers.semantic_components.casts import to_float32


def battery_specs(params: Any) -> list[BatterySpec]:
    """The batteries of a parameter snapshot, in ``batteries`` order."""
    specs = []
    for name in params.batteries:
        enabled = params.interfaces[name]
        props = params[name]
        specs.append(
            BatterySpec(
                name,
                tuple(r for r in OPTIONAL_READINGS if getattr(enabled, r)),
                props.minimum_voltage,
                props.maximum_voltage,
                props.capacity,
                props.design_capacity,
                props.power_supply_technology,
                props.location,
                props.serial_number,
            )
        )
    return specs


class BatteryStateBroadcaster(ControllerInterface):
    """Publishes each battery's state and their aggregate."""

    SCHEMA = Path(__file__).parent / 'battery_state_broadcaster_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        if params.sensor_name and params.batteries:
            log.error("give 'batteries' or the deprecated 'sensor_name', not both")
            return CallbackReturn.ERROR
        if not params.sensor_name and not params.batteries:
            log.error("no batteries: set 'batteries' (or the deprecated 'sensor_name')")
            return CallbackReturn.ERROR
        specs = battery_specs(params)
        problems = [p for p in (s.problem() for s in specs) if p]
        if problems:
            log.error('; '.join(problems))
            return CallbackReturn.ERROR
        if params.sensor_name:
            log.warning("'sensor_name' is deprecated: list the battery in 'batteries'")
        self.params = params
        self._states = BatteryStates(specs)
        self._legacy = bool(params.sensor_name)
        self._legacy_voltage: Any = None
        node = self.get_node()
        raw = BatteryStateArray(battery_states=[BatteryState() for _ in specs])
        self._spare = [BatteryState() for _ in specs]
        total = BatteryState()
        self._states.init_messages(raw.battery_states, total)
        self._states.init_messages(self._spare, BatteryState())
        if params.sensor_name:
            total.design_capacity = to_float32(params.design_capacity)
            total.power_supply_technology = params.power_supply_technology
        pub = node.create_publisher(BatteryStateArray, '~/raw_battery_states', 10)
        self._raw_rt = RealtimePublisher(pub, raw)
        self._total_rt = RealtimePublisher(
            node.create_publisher(BatteryState, '~/battery_state', 10), total
        )
        return CallbackReturn.SUCCESS

    def state_interface_configuration(self) -> InterfaceConfiguration:
        if self._legacy:
            return InterfaceConfiguration.individual([f'{self.params.sensor_name}/voltage'])
        return InterfaceConfiguration.individual(self._states.interface_names())

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        if self._legacy:
            self._legacy_voltage = self.state_interfaces[0]
            return CallbackReturn.SUCCESS
        wrong = [
            h.name
            for h in self.state_interfaces
            if h.interface_name == 'battery_present' and h.data_type != 'bool'
        ]
        if wrong:
            self.get_node().get_logger().error(
                f'battery_present must be a bool state interface: {", ".join(wrong)} is not'
            )
            return CallbackReturn.FAILURE
        self._states.bind(self.state_interfaces)
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> ReturnType:
        ns = time.nanoseconds
        raw_rt, total_rt = self._raw_rt, self._total_rt
        raw_locked = raw_rt.trylock()
        raw = raw_rt.msg.battery_states if raw_locked else self._spare
        if not self._legacy:
            self._states.update_raw(raw)
        if raw_locked:
            for msg in raw:
                set_stamp(msg.header.stamp, ns)
            raw_rt.unlock_and_publish()
        if total_rt.trylock():
            total = total_rt.msg
            set_stamp(total.header.stamp, ns)
            if self._legacy:
                total.voltage = to_float32(self._legacy_voltage.value)
            else:
                self._states.update_total(raw, total)
            total_rt.unlock_and_publish()
        return RETURN_OK
