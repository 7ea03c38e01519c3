"""The resource manager: owns hardware components and every interface, enforces claiming.

Command interfaces (hardware commands and controllers' reference interfaces) are claimed
by at most one active controller. Availability follows the owner's state: hardware
states are readable when the component is INACTIVE or ACTIVE, hardware commands when it
is ACTIVE, a controller's exported interfaces while that controller is ACTIVE.

An `is_async` component's handles are not registered: its runner's copies are (see
`async_component.py`), so the loop and the component's thread never share a handle.
"""

from __future__ import annotations

import logging
import math
import time as _time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from py_controllers import plugins
from py_controllers.hardware_interface.async_component import AsyncComponent
from py_controllers.hardware_interface.command_guard import CommandGuard
from py_controllers.hardware_interface.command_limits import CommandLimits
from py_controllers.hardware_interface.component_lifecycle import ManagedComponent
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.hardware_interface.hardware_component import HardwareComponentInterface
from py_controllers.hardware_interface.hardware_io import HardwareIO
from py_controllers.hardware_interface.types import CallbackReturn, LifecycleStateId, ReturnType
from py_controllers.hardware_interface.urdf import parse_urdf_joints
from py_controllers.realtime_tools.deferred import log_at

S = LifecycleStateId
ASYNC_IDLE_WAIT_S = 2.0  # set_component_state: the longest wait for an async run to end


class ClaimError(RuntimeError):
    """An interface cannot be claimed: unknown, unavailable or already claimed."""


class ResourceManager(HardwareIO):
    """Registry of components and interfaces, with their availability and claims."""

    def __init__(
        self,
        *,
        update_rate: int = 100,
        allow_inactive_hardware_commands: bool = False,
        logger: Any = None,
    ) -> None:
        self.update_rate = update_rate
        self.allow_inactive_hardware_commands = allow_inactive_hardware_commands
        self.logger = logger or logging.getLogger('resource_manager')
        self.urdf = ''
        self.urdf_joints: dict[str, Any] = {}
        self.components: dict[str, ManagedComponent] = {}
        self.state_interfaces: dict[str, StateInterface] = {}
        self.command_interfaces: dict[str, CommandInterface] = {}
        self._state_owner: dict[str, str] = {}
        self._command_owner: dict[str, str] = {}
        self._exported_by_controller: dict[str, list[str]] = {}
        self._active_exporters: set[str] = set()
        self.claimed: dict[str, str] = {}  # command interface -> claiming controller
        # component -> released interfaces whose mode stop it refused (retried each cycle)
        self.owed_stops: dict[str, set[str]] = {}
        self._readers: list[tuple[ManagedComponent, int]] = []
        self.command_limits: CommandLimits | None = None  # None: enforce_command_limits off
        # keeps non-finite commands from write(); its hold values are the limiters' too
        self.command_guard = CommandGuard(lambda level, text: self.log_rt(self.logger, level, text))
        # (time, period) for a detached async component's run of `period_ns`; the manager
        # sets it (this module needs no rclpy)
        self.async_time: Callable[[int], tuple[Any, Any]] = lambda period_ns: (None, None)
        # how the loop logs (logger, level, text): the manager hands it to the executor
        self.log_rt: Callable[[Any, str, str], None] = log_at
        self._writers: list[tuple[ManagedComponent, int]] = []
        self._async: list[tuple[ManagedComponent, int]] = []  # readers with a runner
        self._cycle = 0
        #: the simulation time (ns) of the first simulator among the components, if any
        self.simulation_clock: Callable[[], int | None] | None = None
        #: gives each component its ROS entities before on_init (`attach(component, info)`,
        #: `close()`): the manager's ComponentNodes; None standalone (this module has no rclpy)
        self.component_nodes: Any = None

    # --- loading ------------------------------------------------------------------
    def load_urdf(self, urdf: str) -> None:
        """Parse `<ros2_control>` tags, load and initialise every component (raises on error)."""
        infos = parse_control_resources_from_urdf(urdf)
        self.urdf = urdf
        self.urdf_joints = parse_urdf_joints(urdf)
        for info in infos:
            try:
                cls = plugins.load(plugins.HARDWARE_GROUP, info.plugin, HardwareComponentInterface)
            except plugins.PluginError as exc:
                raise plugins.PluginError(f"hardware '{info.name}': {exc}") from exc
            self.add_component(cls(), info)

    def add_component(self, component: HardwareComponentInterface, info: Any) -> ManagedComponent:
        """Initialise `component` with `info` and register its interfaces (UNCONFIGURED)."""
        if info.name in self.components:
            raise ValueError(f"a hardware component named '{info.name}' is already loaded")
        component.logger = _child_logger(self.logger, info.name)
        component.log_sink = lambda logger, level, text: self.log_rt(logger, level, text)
        if info.rw_rate > self.update_rate:
            component.logger.warning(
                f"rw_rate {info.rw_rate} Hz is above the manager's update rate; "
                f'using {self.update_rate} Hz'
            )
        if not 0 < info.rw_rate <= self.update_rate:
            info.rw_rate = self.update_rate  # as upstream: components see their real rate
        if self.component_nodes is not None:
            try:
                self.component_nodes.attach(component, info)
            except Exception as exc:
                raise RuntimeError(f"hardware '{info.name}': {exc}") from exc
        try:
            result = component.on_init(info)
        except Exception as exc:
            raise RuntimeError(f"hardware '{info.name}': on_init raised: {exc!r}") from exc
        if not (result is None or result is True or result is CallbackReturn.SUCCESS):
            raise RuntimeError(f"hardware '{info.name}': on_init failed")
        managed = ManagedComponent(component, info, component.logger)
        if self.simulation_clock is None and component.simulation_time_ns() is not None:
            self.simulation_clock = component.simulation_time_ns
        if info.is_async:
            period_ns = round(1e9 / info.rw_rate)
            managed.runner = AsyncComponent(
                managed,
                period_ns=period_ns,
                clock=lambda: self.async_time(period_ns),
                log=lambda level, text: self.log_rt(managed.logger, level, text),
            )
        runner = managed.runner
        states = managed.state_interfaces if runner is None else runner.loop_states
        commands = managed.command_interfaces if runner is None else runner.loop_commands
        for handle in states:
            self._add(self.state_interfaces, self._state_owner, handle, info.name)
        for handle in commands:
            self._add(self.command_interfaces, self._command_owner, handle, info.name)
        self.components[info.name] = managed
        self._refresh_loop_lists()
        return managed

    @staticmethod
    def _add(table: dict, owners: dict, handle: Any, owner: str) -> None:
        if handle.name in table:
            raise ValueError(f"interface '{handle.name}' is exported twice")
        table[handle.name] = handle
        owners[handle.name] = owner

    def enable_command_limits(self, parameters: Mapping[str, object]) -> None:
        """Build the joint limiters (`enforce_command_limits`); `parameters` are the
        manager's, flat (`joint_limits.<joint>.*` count). Raises ValueError naming what is
        wrong."""
        self.command_limits = CommandLimits.build(
            self.components.values(),
            self.state_interfaces,
            self.command_interfaces,
            parameters,
            lambda level, text: self.log_rt(self.logger, level, text),
            hold=self.command_guard.hold_value,
        )
        self.command_limits.refresh_claims(self.claimed)

    def enforce_command_limits(self, dt_s: float) -> list[str] | tuple[str, ...]:
        """Make every claimed hardware command a finite number within its joint's limits
        (loop, after update, before write): values that are not finite numbers become hold
        values, then the limiters clamp (when on), then what they left non-finite is held.
        Returns the controllers that wrote an infinite value or a non-number, for the
        caller to deactivate (`command_guard.why` says what they wrote where)."""
        guard = self.command_guard
        offenders = guard.check()
        limits = self.command_limits
        if limits is not None:
            limits.enforce(dt_s)
        guard.settle()
        return offenders

    # --- component lifecycle ----------------------------------------------------------
    def set_component_state(self, name: str, target: LifecycleStateId) -> bool:
        """Drive component `name` to `target` in the caller's thread (at start, the loop not
        running yet); False if unknown or a transition failed. An async component is busy
        meanwhile, after its run under way ended (at most ASYNC_IDLE_WAIT_S)."""
        managed = self.components.get(name)
        if managed is None:
            return False
        runner = managed.runner
        if runner is None:
            ok = managed.set_state(target)
        else:
            ok = runner.set_state(target, ASYNC_IDLE_WAIT_S)
        self._refresh_loop_lists()
        return ok

    def _refresh_loop_lists(self) -> None:
        def divider(m: ManagedComponent) -> int:
            rate = int(getattr(m.info, 'rw_rate', 0) or 0)
            if rate <= 0 or rate >= self.update_rate:
                return 1
            return max(1, round(self.update_rate / rate))

        comps = [m for m in self.components.values() if not m.busy]
        self._readers = [(m, divider(m)) for m in comps if m.state in (S.INACTIVE, S.ACTIVE)]
        self._writers = [(m, divider(m)) for m in comps if m.state == S.ACTIVE]
        self._async = [(m, every) for m, every in self._readers if m.runner is not None]

    def begin_transition(self, name: str) -> ManagedComponent:
        """Mark `name` busy: the loop skips it, its interfaces are unavailable (caller holds
        the cycle lock, so no read()/write() of it is under way when this returns)."""
        managed = self.components[name]
        managed.busy = True  # what it owes stays owed: its modes outlast the transition
        self._refresh_loop_lists()
        return managed

    def end_transition(self, name: str) -> None:
        """The transition of `name` is over: back in the loop as its new state says."""
        managed = self.components[name]
        # its commands are its own again until a controller claims them
        self.command_guard.forget(h.name for h in managed.command_interfaces)
        if managed.runner is not None and not managed.runner.adopt_component_values():
            self.logger.error(
                f"hardware '{name}': a read/write still under way after its "
                'transition: its interfaces keep their values'
            )
        managed.busy = False
        self._refresh_loop_lists()

    # --- availability and claiming -------------------------------------------------
    def owner_of(self, interface: str) -> str | None:
        """The component or controller that exports `interface`."""
        return self._command_owner.get(interface) or self._state_owner.get(interface)

    def component_of(self, interface: str) -> ManagedComponent | None:
        """The hardware component exporting `interface` (None for controller interfaces)."""
        owner = self.owner_of(interface)
        return self.components.get(owner) if owner else None

    def is_state_available(self, name: str) -> bool:
        """True if state interface `name` exists and its owner makes it readable now."""
        owner = self._state_owner.get(name)
        if owner is None:
            return False
        comp = self.components.get(owner)
        if comp is None:
            return owner in self._active_exporters
        return not comp.busy and comp.state in (S.INACTIVE, S.ACTIVE)

    def is_command_available(self, name: str) -> bool:
        """True if command interface `name` exists and may be claimed now."""
        owner = self._command_owner.get(name)
        if owner is None:
            return False
        comp = self.components.get(owner)
        if comp is None:
            return owner in self._active_exporters
        if comp.busy:
            return False
        if comp.state == S.ACTIVE:
            return True
        return self.allow_inactive_hardware_commands and comp.state == S.INACTIVE

    def claim_problem(
        self, name: str, releasing: Iterable[str] = (), *, available: bool = False
    ) -> str:
        """'' if command interface `name` can be claimed (once `releasing` is released;
        `available` when its owner is about to make it so), else the reason."""
        if name not in self.command_interfaces:
            return f"command interface '{name}' does not exist"
        if not (available or self.is_command_available(name)):
            return f"command interface '{name}' is not available"
        holder = self.claimed.get(name)
        if holder is not None and name not in releasing:
            return f"command interface '{name}' is currently claimed by '{holder}'"
        return ''

    def check_claimable(self, names: Iterable[str], releasing: Iterable[str] = ()) -> str:
        """'' if every command interface in `names` can be claimed, else the first reason."""
        releasing = set(releasing)
        for name in names:
            problem = self.claim_problem(name, releasing)
            if problem:
                return problem
        return ''

    def claim(self, names: Iterable[str], controller: str) -> list[CommandInterface]:
        """Claim `names` for `controller`, all or none; raises ClaimError with the reason."""
        names = list(names)
        reason = self.check_claimable(names)
        if reason:
            raise ClaimError(reason)
        for name in names:
            self.claimed[name] = controller
        self._claims_changed()
        return [self.command_interfaces[n] for n in names]

    def release(self, names: Iterable[str]) -> None:
        """Release claimed command interfaces."""
        for name in names:
            self.claimed.pop(name, None)
        self._claims_changed()

    def _claims_changed(self) -> None:
        self.command_guard.refresh_claims(
            self.claimed, self.command_interfaces, self.state_interfaces, self._hardware_owners
        )
        if self.command_limits is not None:
            self.command_limits.refresh_claims(self.claimed)

    def _hardware_owners(self, name: str) -> tuple[str | None, str | None]:
        """(component exporting command `name`, component exporting state `name`)."""
        components = self.components
        command, state = self._command_owner.get(name), self._state_owner.get(name)
        return (
            command if command in components else None,
            state if state in components else None,
        )

    # --- controller-exported interfaces (chaining) -------------------------------------
    def add_controller_interfaces(
        self,
        controller: str,
        reference: list[CommandInterface],
        state: list[StateInterface],
    ) -> None:
        """Register a chainable controller's reference and exported state interfaces."""
        self.remove_controller_interfaces(controller)
        names = []
        for handle in reference:
            self._add(self.command_interfaces, self._command_owner, handle, controller)
            names.append(handle.name)
        for handle in state:
            self._add(self.state_interfaces, self._state_owner, handle, controller)
            names.append(handle.name)
        self._exported_by_controller[controller] = names

    def remove_controller_interfaces(self, controller: str) -> None:
        """Forget everything `controller` exported (on cleanup or unload)."""
        for name in self._exported_by_controller.pop(controller, []):
            for table, owners in (
                (self.command_interfaces, self._command_owner),
                (self.state_interfaces, self._state_owner),
            ):
                if owners.get(name) == controller:
                    del table[name]
                    del owners[name]
            self.claimed.pop(name, None)
        self._active_exporters.discard(controller)

    def set_controller_interfaces_available(self, controller: str, available: bool) -> None:
        """Exported interfaces are available exactly while their controller is active."""
        if available:
            self._active_exporters.add(controller)
        else:
            self._active_exporters.discard(controller)

    def exported_by(self, controller: str) -> list[str]:
        """Names of the interfaces `controller` exports."""
        return list(self._exported_by_controller.get(controller, []))

    # --- command mode switch ----------------------------------------------------------
    def _per_component(self, names: Iterable[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for name in names:
            owner = self._command_owner.get(name)
            if owner in self.components:
                out.setdefault(owner, []).append(name)
        return out

    def _mode_switch(
        self, method: str, start: list[str], stop: list[str], *, quiet: bool = False
    ) -> list[str]:
        """Call `method` on every affected component (each is told, whatever the others
        said); the names of those that refused or raised (logged unless `quiet`)."""
        start_by, stop_by = self._per_component(start), self._per_component(stop)
        refused = []
        for name in dict.fromkeys([*start_by, *stop_by]):
            managed = self.components[name]
            try:
                result = getattr(managed.component, method)(
                    start_by.get(name, []), stop_by.get(name, [])
                )
                why = '' if result is None or result is ReturnType.OK else f'returned {result!r}'
            except Exception as exc:
                why = f'raised {exc!r}'
            if why:
                refused.append(name)
                if not quiet:
                    where = f'start {start_by.get(name, [])}, stop {stop_by.get(name, [])}'
                    self.log_rt(managed.logger, 'error', f'{method} refused ({where}): {why}')
        return refused

    def prepare_command_mode_switch(self, start: list[str], stop: list[str]) -> bool:
        """Ask each affected component whether it accepts the interface change."""
        return not self._mode_switch('prepare_command_mode_switch', start, stop)

    def perform_command_mode_switch(self, start: list[str], stop: list[str]) -> bool:
        """Tell each affected component to switch mode now; the limiters start afresh."""
        ok = not self._mode_switch('perform_command_mode_switch', start, stop)
        if ok and self.command_limits is not None:
            self.command_limits.reset()
        return ok

    def stop_modes(self, interfaces: list[str], *, quiet: bool = False) -> list[str]:
        """Prepare and perform the switch that stops `interfaces` (released: nobody claims
        them), perform even where prepare was refused: the claims have ended. Components
        that refused perform owe those stops (`owed_stops`, asked again each cycle by
        `retry_owed_stops`). The names of the components that refused either step."""
        refused = self._mode_switch('prepare_command_mode_switch', [], interfaces, quiet=quiet)
        failed = self._mode_switch('perform_command_mode_switch', [], interfaces, quiet=quiet)
        if not failed and self.command_limits is not None:
            self.command_limits.reset()
        for name, names in self._per_component(interfaces).items():
            owed = self.owed_stops.setdefault(name, set())
            if name in failed:
                owed.update(names)
            else:
                owed.difference_update(names)
            if not owed:
                del self.owed_stops[name]
        return list(dict.fromkeys(refused + failed))

    def retry_owed_stops(self) -> list[str]:
        """The loop's part (cycle lock held): each active component asked again to stop
        what it refused to; one that is not active (or busy) owes it until it is again, as
        its modes outlast a deactivation. The names of the components that accepted now."""
        if not self.owed_stops:
            return []
        accepted = []
        for name, owed in list(self.owed_stops.items()):
            managed = self.components[name]
            owed.difference_update(self.claimed)  # claimed again: the switch started them
            if not owed:
                self.owed_stops.pop(name, None)
            elif not managed.busy and managed.state == S.ACTIVE:
                asked = sorted(owed)
                self.stop_modes(asked, quiet=True)
                if name not in self.owed_stops:
                    accepted.append(name)
                    self.log_rt(managed.logger, 'info', f'stopped {asked} when asked again')
        return accepted

    def handle_component_error(self, name: str) -> LifecycleStateId:
        """A component failed in the loop: run its on_error, drop its claims' availability."""
        managed = self.components[name]
        state = managed.handle_error()
        self._refresh_loop_lists()
        return state

    def invalidate_states(self, component: str) -> None:
        """Every state interface of `component` reads NaN (it failed: its values are stale)."""
        for name in self.interfaces_of(component)[1]:
            self.state_interfaces[name].value = math.nan

    def interfaces_of(self, component: str) -> tuple[list[str], list[str]]:
        """(command, state) interface names of hardware component `component`."""
        managed = self.components[component]
        return (
            [h.name for h in managed.command_interfaces],
            [h.name for h in managed.state_interfaces],
        )

    def shutdown_component(self, managed: ManagedComponent, timeout_s: float = 5.0) -> bool:
        """Deactivate and finalize one component (its async thread stopped, a run under way
        waited for) within `timeout_s`; False, logged, when it failed or is stuck. The caller
        runs each component in a thread of its own: one stuck component starves nobody."""
        deadline = _time.monotonic() + timeout_s
        runner = managed.runner
        if runner is not None:
            runner.stop()
            if not runner.wait_idle(timeout_s):
                self.logger.error(f"hardware '{managed.name}': read/write still under way")
        try:
            ok = managed.set_state(S.FINALIZED, wait_s=max(0.0, deadline - _time.monotonic()))
        except TimeoutError:
            self.logger.error(
                f"hardware '{managed.name}' is still in a transition after {timeout_s:.1f} s"
                ' (stuck): not shut down'
            )
            return False
        return bool(ok)

    def shutdown(self, timeout_s: float = 5.0) -> None:
        """Deactivate and finalize every component, one after the other (best effort, logs
        failures); the manager's way out uses `shutdown_component` per component instead."""
        deadline = _time.monotonic() + timeout_s
        for managed in self.components.values():
            self.shutdown_component(managed, max(0.0, deadline - _time.monotonic()))
        self._refresh_loop_lists()


def _child_logger(logger: Any, name: str) -> Any:
    get_child = getattr(logger, 'get_child', None)
    if get_child is not None:
        return get_child(name)
    return logging.getLogger(f'{getattr(logger, "name", "resource_manager")}.{name}')
