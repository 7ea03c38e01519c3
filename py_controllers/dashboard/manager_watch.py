"""Keeps a picture of one controller manager, from its public services and topics only.

Every second (and at once when its `~/activity` topic says something changed, or a page
asks) it calls `list_controllers`, `list_hardware_components` and, when the manager has
it, `~/get_statistics`. A manager that is not there, or stops answering, is reported as
absent with the reason; the watch keeps trying and picks it up when it comes back. The
robot description (the sliders' limits, the 3D page's robot) is read here and only here:
from the `robot_description` topic in the manager's namespace, the manager's
`robot_description` parameter, or the file named by `robot_description_file` when that file
is on this machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import controller_manager_msgs.msg as cm_msg
import controller_manager_msgs.srv as cm_srv
from diagnostic_msgs.msg import DiagnosticArray
from rclpy.parameter import Parameter
from std_msgs.msg import String
from std_srvs.srv import Trigger

from py_controllers.controller_manager.description_file import (
    XACRO_ARGS,
    description_from_parameters,
)
from py_controllers.dashboard.model import (
    ControllerInfo,
    HardwareInfo,
    InterfaceInfo,
    JointRange,
    Series,
    loadable,
    try_joint_ranges,
)
from py_controllers.dashboard.names import controller_topic, in_namespace, managers_from_services
from py_controllers.dashboard.ros_bridge import (
    CallFailedError,
    NotAvailableError,
    RosBridge,
    latched,
)

LOG = logging.getLogger('py_controllers.dashboard')

POLL_S = 1.0
"""Seconds between two looks at the manager when nothing says it changed."""
DISCOVERY_S = 2.0
"""Seconds between two looks for the managers on the domain."""


@dataclass
class ManagerState:
    """What the pages show about the manager; replaced field by field by the watch."""

    available: bool = False
    reason: str = 'not looked for yet'
    controllers: list[ControllerInfo] = field(default_factory=list)
    hardware: list[HardwareInfo] = field(default_factory=list)
    loadable: list[str] = field(default_factory=list)
    stats: dict | None = None
    stats_supported: bool | None = None
    ranges: dict[str, JointRange] = field(default_factory=dict)
    ranges_problem: str = 'robot description not read yet'
    description: str = ''
    """The robot description (URDF text) read, '' until one is."""
    description_source: str = 'robot description not read yet'
    """Where `description` came from, or why there is none."""
    version: int = 0
    """Grows whenever the controllers, hardware or availability change."""


def controller_info(msg: Any) -> ControllerInfo:
    """A controller_manager_msgs/ControllerState as a ControllerInfo."""
    return ControllerInfo(
        name=msg.name,
        type=msg.type,
        state=msg.state,
        update_rate_hz=int(msg.update_rate),
        claimed_interfaces=tuple(msg.claimed_interfaces),
        required_command_interfaces=tuple(msg.required_command_interfaces),
        required_state_interfaces=tuple(msg.required_state_interfaces),
        chain_connections=tuple(
            (c.name, tuple(c.reference_interfaces)) for c in msg.chain_connections
        ),
        is_chainable=bool(msg.is_chainable),
        is_chained=bool(msg.is_chained),
    )


def hardware_info(msg: Any) -> HardwareInfo:
    """A controller_manager_msgs/HardwareComponentState as a HardwareInfo."""

    def interfaces(items: Any) -> tuple[InterfaceInfo, ...]:
        return tuple(InterfaceInfo(i.name, bool(i.is_available), bool(i.is_claimed)) for i in items)

    return HardwareInfo(
        name=msg.name,
        type=msg.type,
        plugin=msg.plugin_name,
        state=msg.state.label,
        command_interfaces=interfaces(msg.command_interfaces),
        state_interfaces=interfaces(msg.state_interfaces),
    )


class ManagerWatch:
    """Polls `manager` through `bridge`; `state` is what the pages read."""

    def __init__(self, bridge: RosBridge, manager: str) -> None:
        self.bridge = bridge
        self.state = ManagerState()
        self.managers: list[str] = []
        """Every controller manager found on the domain (by its list_controllers service)."""
        self.diagnostics = bridge.watch(DiagnosticArray, '/diagnostics')
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._next_discovery = 0.0
        self._bind(manager)

    def _bind(self, manager: str) -> None:
        """Watch `manager` (absolute name) from now on; everything known is forgotten."""
        self.manager = manager.rstrip('/') or '/controller_manager'
        version = self.state.version + 1
        self.state = ManagerState(version=version)
        self.rate_history = Series(window_s=120.0)
        self.lateness_history = Series(window_s=120.0)
        self.execution_history = Series(window_s=120.0)
        self.controller_history: dict[str, Series] = {}
        """Mean update() time (us) of each controller over the manager's window."""
        self._stats_missing = 0
        self._description = self.bridge.watch(
            String, in_namespace(self.manager, 'robot_description'), qos=latched()
        )
        self._description_seen = -1
        self._activity = self.bridge.watch(
            cm_msg.ControllerManagerActivity, self.service('activity'), qos=latched()
        )
        self.bridge.prepare(
            [
                (cm_srv.ListControllers, self.service('list_controllers')),
                (cm_srv.ListHardwareComponents, self.service('list_hardware_components')),
                (Trigger, self.service('get_statistics')),
            ]
        )

    def select(self, manager: str) -> None:
        """Switch to another manager: every page rebinds to it (they watch `manager`)."""
        if manager.rstrip('/') != self.manager:
            self._bind(manager)
            self.poke()

    def service(self, name: str) -> str:
        """Full name of the manager's service `name`."""
        return f'{self.manager}/{name}'

    def topic(self, controller: str, name: str) -> str:
        """`~/<name>` of `controller` of this manager (`/<ns>/<controller>/<name>`)."""
        return controller_topic(self.manager, controller, name)

    def in_namespace(self, name: str) -> str:
        """`name` in this manager's namespace (`/<ns>/joint_states`)."""
        return in_namespace(self.manager, name)

    # --- the polling task -----------------------------------------------------------
    def start(self) -> None:
        """Start polling on the running event loop."""
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        """Stop polling."""
        if self._task is not None:
            self._task.cancel()

    def poke(self) -> None:
        """Look again now (after an action, or when ~/activity changed)."""
        if self._wake is not None:
            self._wake.set()

    async def _run(self) -> None:
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        next_poll, activity_seen = 0.0, (None, 0)
        while True:
            activity = (self._activity, self._activity.count)
            if activity != activity_seen:  # the manager says something changed
                activity_seen = activity
                self._wake.set()
            if loop.time() >= self._next_discovery:
                self._next_discovery = loop.time() + DISCOVERY_S
                await self._discover()
            if self._wake.is_set() or loop.time() >= next_poll:
                self._wake.clear()
                try:
                    await self.refresh()
                except Exception as exc:  # never let the watch die: say it, try again
                    LOG.exception('dashboard: polling the manager failed')
                    self._absent(f'error while asking the manager: {exc}')
                next_poll = loop.time() + POLL_S
            # woken by poke() at once; ~/activity is looked at 10 times a second
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), 0.1)

    async def _discover(self) -> None:
        """Every manager on the domain, as `ros2 control` finds them; the watched one too
        (it may not be there yet)."""
        try:
            services = await self.bridge.run(self.bridge.node.get_service_names_and_types)
        except Exception as exc:  # the node is going away
            LOG.info('dashboard: cannot list the services: %s', exc)
            return
        self.managers = managers_from_services(services)

    # --- one look --------------------------------------------------------------------
    async def refresh(self) -> None:
        """Ask the manager for everything once; update `state` (the answers of a manager
        switched away from meanwhile land in its state, which nobody reads any more)."""
        s = self.state
        try:
            res = await self.bridge.call(
                cm_srv.ListControllers,
                self.service('list_controllers'),
                cm_srv.ListControllers.Request(),
            )
            hw = await self.bridge.call(
                cm_srv.ListHardwareComponents,
                self.service('list_hardware_components'),
                cm_srv.ListHardwareComponents.Request(),
            )
        except NotAvailableError:
            self._absent(f"no controller manager at '{self.manager}' (its services are not there)")
            return
        except CallFailedError as exc:
            self._absent(f"controller manager '{self.manager}' does not answer: {exc}")
            return
        controllers = [controller_info(c) for c in res.controller]
        hardware = [hardware_info(c) for c in hw.component]
        came_back = not s.available
        names_changed = [c.name for c in controllers] != [c.name for c in s.controllers]
        if came_back or controllers != s.controllers or hardware != s.hardware:
            s.controllers, s.hardware = controllers, hardware
            s.available, s.reason = True, ''
            s.version += 1
        if came_back:
            self._stats_missing, s.stats_supported = 0, None
        if came_back or names_changed:
            await self._read_declared()
        await self._read_description(force=came_back)
        if came_back:
            await self._follow_clock()
        await self._read_statistics()

    def _absent(self, reason: str) -> None:
        s = self.state
        if s.available or s.reason != reason:
            s.available, s.reason = False, reason
            s.controllers, s.hardware, s.stats = [], [], None
            s.version += 1

    async def _read_declared(self) -> None:
        """Controllers declared on the manager (`<name>.type`), for the load menu."""
        try:
            names = await self.bridge.list_parameters(self.manager)
        except (NotAvailableError, CallFailedError) as exc:
            LOG.info('dashboard: cannot list the manager parameters: %s', exc)
            return
        self.state.loadable = loadable(names, [c.name for c in self.state.controllers])

    async def _read_description(self, *, force: bool) -> None:
        """The description from the latched topic when a new message came, else (when
        `force`d: the manager came back) the manager's `robot_description` parameter or the
        file its `robot_description_file` names; the one place the dashboard reads it."""
        topic = self._description
        if topic.msg is not None and topic.count != self._description_seen:
            self._description_seen = topic.count
            self._set_description(topic.msg.data, in_namespace(self.manager, 'robot_description'))
            return
        if not force:
            return
        try:
            values = await self.bridge.get_parameters(
                self.manager, ['robot_description', 'robot_description_file']
            )
        except (NotAvailableError, CallFailedError) as exc:
            self.state.ranges_problem = f'cannot read robot_description: {exc}'
            self.state.description_source = f'no robot description yet: {exc}'
            return
        text = values.get('robot_description') or ''
        source = f'{self.manager} robot_description'
        path = values.get('robot_description_file') or ''
        if not text and path:
            try:  # a URDF, or a .xacro file expanded with the manager's xacro arguments
                text, source = description_from_parameters(path, await self._xacro_args()), path
            except ValueError as exc:
                source = f'no robot description: {path} {exc}'
        elif not text:
            source = 'no robot description: no topic message and no manager parameter'
        if text or topic.msg is None:
            self._set_description(text, source)

    async def _xacro_args(self) -> object:
        """The manager's xacro arguments, asked alone: a parameter declared without a value
        empties a whole GetParameters answer (rclpy's parameter service)."""
        try:
            return (await self.bridge.get_parameters(self.manager, [XACRO_ARGS])).get(XACRO_ARGS)
        except (NotAvailableError, CallFailedError):
            return None

    def _set_description(self, urdf: str, source: str) -> None:
        s = self.state
        s.description, s.description_source = urdf, source
        s.ranges, s.ranges_problem = try_joint_ranges(urdf)
        s.version += 1

    async def _follow_clock(self) -> None:
        """Take the manager's use_sim_time: with it, the dashboard's clock (cmd_vel
        stamps) reads /clock as the robot does, or a diff drive refuses its commands as
        stamped in the future."""
        try:
            values = await self.bridge.get_parameters(self.manager, ['use_sim_time'])
        except (NotAvailableError, CallFailedError) as exc:
            LOG.info('dashboard: cannot read use_sim_time: %s', exc)
            return
        sim = bool(values.get('use_sim_time'))
        node = self.bridge.node
        await self.bridge.run(
            node.set_parameters, [Parameter('use_sim_time', Parameter.Type.BOOL, sim)]
        )

    async def _read_statistics(self) -> None:
        """`~/get_statistics` (std_srvs/Trigger, JSON) is ours, not upstream's: a manager
        without it is told apart from one whose service was not discovered yet by three
        looks in a row."""
        s = self.state
        try:
            res = await self.bridge.call(
                Trigger, self.service('get_statistics'), Trigger.Request(), timeout_s=2.0
            )
            stats = json.loads(res.message)
        except NotAvailableError:
            self._stats_missing += 1
            if self._stats_missing >= 3:
                s.stats_supported, s.stats = False, None
            return
        except (CallFailedError, ValueError) as exc:
            LOG.info('dashboard: get_statistics failed: %s', exc)
            return
        self._stats_missing = 0
        s.stats_supported, s.stats = True, stats
        now = time.monotonic()
        self.rate_history.add(now, float(stats.get('measured_rate_hz', 0.0)))
        self.lateness_history.add(now, float(stats.get('lateness', {}).get('p99_us', 0.0)))
        self.execution_history.add(now, float(stats.get('execution', {}).get('p99_us', 0.0)))
        per_controller = stats.get('controllers') or {}
        for name in list(self.controller_history):
            if name not in per_controller:
                del self.controller_history[name]
        for name, d in per_controller.items():
            series = self.controller_history.setdefault(name, Series(window_s=120.0))
            series.add(now, float(d.get('mean_us', 0.0)))

    def controller(self, name: str) -> ControllerInfo | None:
        """The controller `name`, if loaded."""
        return next((c for c in self.state.controllers if c.name == name), None)

    def of_type(self, type_name: str) -> list[ControllerInfo]:
        """Loaded controllers of `type_name`."""
        return [c for c in self.state.controllers if c.type == type_name]
