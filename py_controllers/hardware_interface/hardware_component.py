"""Base classes for hardware components (System, Actuator, Sensor) and their lifecycle.

A component subclass fills its state interfaces in read() and sends its command
interfaces in write(). Interfaces are created from the `<ros2_control>` description;
override `export_state_interfaces()` / `export_command_interfaces()` to add more.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.hardware_interface.types import CallbackReturn, LifecycleStateId, ReturnType
from py_controllers.realtime_tools.deferred import log_at

if TYPE_CHECKING:
    from py_controllers.hardware_interface.component_info import HardwareInfo


def initial_value(text: str | None, where: str = '') -> float:
    """An interface's `initial_value` parameter as a float (NaN when absent); ValueError
    naming `where` (e.g. 'joint1/position') when it is not a number."""
    if text is None or str(text).strip() == '':
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise ValueError(
            f"{where or 'interface'}: initial_value '{text}' is not a number"
        ) from None


class HardwareComponentInterface:
    """Common contract of hardware components (ros2_control's HardwareComponentInterface).

    ROS entities of its own (upstream's default node and executor): with `uses_node = True`
    (or a `status_publish_rate` `<param>` in `<hardware>`), the manager gives the component
    a node named after it in lower case, spun beside the manager's, before on_init:
    `get_node()`. `self.executor` (always set by the manager) takes more nodes
    (`add_node`, `remove_node`; `executor.context` to create them in). With
    `status_publish_rate` > 0 Hz the node publishes `~/hardware_status`
    (control_msgs/HardwareStatus) at that rate: `init_hardware_status_message` shapes the
    message once (before on_init, as upstream), `update_hardware_status_message` fills it
    each time (on the node's executor thread, never the loop's).
    """

    component_type = 'system'
    uses_node = False  # True: the manager creates get_node()'s node (see the class docstring)

    def __init__(self) -> None:
        self.info: HardwareInfo | None = None
        self.node: Any = None  # the component's own node (None: not asked for, or standalone)
        self.executor: Any = None  # add_node/remove_node/context: the manager's executors
        self.state_interfaces: dict[str, StateInterface] = {}
        self.command_interfaces: dict[str, CommandInterface] = {}
        self.logger: Any = None
        # where log_rt() lines go, (logger, level, text): the resource manager hands them to
        # the executor thread; a component used alone (tests, tools) logs at once
        self.log_sink: Callable[[Any, str, str], None] = log_at

    def log_rt(self, level: str, text: str) -> None:
        """Log from read(), write() or the command mode switch (the control loop's thread):
        the line is handed over, never written through rcl from the loop."""
        logger = self.logger
        if logger is None:
            logger = logging.getLogger(type(self).__module__)
        self.log_sink(logger, level, text)

    def get_node(self) -> Any:
        """The component's own rclpy node (see the class docstring), or None."""
        return self.node

    def get_hardware_info(self) -> HardwareInfo | None:
        """The component's description (upstream's accessor; `self.info` alike)."""
        return self.info

    def init_hardware_status_message(self, msg_template: Any) -> CallbackReturn:
        """Shape `msg_template` (control_msgs/HardwareStatus): hardware_id, one entry per
        device in hardware_device_states with its status arrays sized. Left empty (this
        default), no status is published."""
        return CallbackReturn.SUCCESS

    def update_hardware_status_message(self, msg: Any) -> ReturnType:
        """Fill the dynamic fields of `msg` before each publication (not the loop thread)."""
        return ReturnType.OK

    # --- lifecycle (override what you need) -------------------------------------
    def on_init(self, info: HardwareInfo) -> CallbackReturn:
        """Keep the description; subclasses read their `<param>`s here."""
        self.info = info
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Open connections; states become readable."""
        return CallbackReturn.SUCCESS

    def on_cleanup(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Undo on_configure."""
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Enable motion; commands become usable."""
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Stop motion safely."""
        return CallbackReturn.SUCCESS

    def on_shutdown(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Release everything before the component is destroyed."""
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Recover after a failure: SUCCESS goes to UNCONFIGURED, anything else FINALIZED."""
        return CallbackReturn.SUCCESS

    # --- interfaces --------------------------------------------------------------
    def export_state_interfaces(self) -> list[StateInterface]:
        """State handles for every `<state_interface>` of every joint, sensor and gpio."""
        assert self.info is not None
        return [
            StateInterface(
                comp.name,
                itf.name,
                initial_value(itf.initial_value, f'{comp.name}/{itf.name}'),
                data_type=itf.data_type,
            )
            for comp in (*self.info.joints, *self.info.sensors, *self.info.gpios)
            for itf in comp.state_interfaces
        ]

    def export_command_interfaces(self) -> list[CommandInterface]:
        """Command handles for every `<command_interface>` of every joint and gpio."""
        assert self.info is not None
        return [
            CommandInterface(
                comp.name,
                itf.name,
                initial_value(itf.initial_value, f'{comp.name}/{itf.name}'),
                data_type=itf.data_type,
            )
            for comp in (*self.info.joints, *self.info.gpios)
            for itf in comp.command_interfaces
        ]

    def get_state(self, name: str) -> float:
        """Value of state interface `name` (e.g. 'joint1/position')."""
        return self.state_interfaces[name].value

    def set_state(self, name: str, value: float) -> None:
        """Set state interface `name`; cache the handle instead in hot loops."""
        self.state_interfaces[name].value = value

    def get_command(self, name: str) -> float:
        """Value of command interface `name`."""
        return self.command_interfaces[name].value

    def set_command(self, name: str, value: float) -> None:
        """Set command interface `name`."""
        self.command_interfaces[name].value = value

    def simulation_time_ns(self) -> int | None:
        """A simulator's own time in ns, None for real hardware. With `use_sim_time`, the
        manager runs its controllers on the first component's simulation time and
        publishes it on /clock."""
        return None

    # --- the loop -----------------------------------------------------------------
    def read(self, time: Any, period: Any) -> ReturnType:
        """Fill the state interfaces from the device."""
        return ReturnType.OK

    def write(self, time: Any, period: Any) -> ReturnType:
        """Send the command interfaces to the device."""
        return ReturnType.OK

    def prepare_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        """Accept or refuse the command interfaces controllers are about to claim/release."""
        return ReturnType.OK

    def perform_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        """Switch the device's command mode (called between two cycles)."""
        return ReturnType.OK

    def command_modes(self) -> dict[str, bool] | None:
        """For each command interface whose mode the device tracks: whether the device is
        driven by it now (what its command mode switches said). The manager's invariants
        (`controller_manager/invariants.py`) check it is True exactly for the claimed ones.
        None for a component that does not track command modes."""
        return None


class SystemInterface(HardwareComponentInterface):
    """Several joints, sensors and GPIOs behind one connection."""

    component_type = 'system'


class ActuatorInterface(HardwareComponentInterface):
    """One joint (one actuator)."""

    component_type = 'actuator'


class SensorInterface(HardwareComponentInterface):
    """State interfaces only: never written."""

    component_type = 'sensor'

    def export_command_interfaces(self) -> list[CommandInterface]:
        """Sensors have no command interfaces."""
        return []
