"""The controller manager: loads controllers, switches them, and runs one control cycle.

ROS services live in `services.py` and the loop thread in `loop.py`; this module holds
the logic both use. `cycle_lock` is held by the loop for one read/update/write cycle and
by every change of the active set, so a switch always happens between two cycles.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from time import perf_counter_ns as _perf_ns
from typing import Any

from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.parameter import Parameter

from py_controllers import plugins
from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import ControllerInterface
from py_controllers.controller_interface.interface_configuration import (
    InterfaceConfiguration,
    InterfaceConfigurationType,
)
from py_controllers.controller_manager.controller_spec import ControllerSpec
from py_controllers.hardware_interface.resource_manager import ClaimError, ResourceManager
from py_controllers.hardware_interface.types import LifecycleStateId, ReturnType

S = LifecycleStateId
BEST_EFFORT = 1
STRICT = 2


class ControllerManager:
    """Controller bookkeeping and the cycle; owned by the `controller_manager` node."""

    def __init__(
        self,
        node: Node,
        *,
        update_rate: int,
        add_node: Callable[[Node], Any] | None = None,
        remove_node: Callable[[Node], Any] | None = None,
        strict_by_default: bool = True,
        allow_inactive_hardware: bool = False,
        deactivate_on_hardware_self_deactivate: bool = True,
    ) -> None:
        self.node = node
        self.logger = node.get_logger()
        self.update_rate = update_rate
        self.rm = ResourceManager(
            update_rate=update_rate,
            allow_inactive_hardware_commands=allow_inactive_hardware,
            logger=self.logger.get_child('resource_manager'),
        )
        self._add_node = add_node or (lambda n: None)
        self._remove_node = remove_node or (lambda n: None)
        self.strict_by_default = strict_by_default
        self.deactivate_on_hardware_self_deactivate = deactivate_on_hardware_self_deactivate
        self.controllers: dict[str, ControllerSpec] = {}
        self.cycle_lock = threading.RLock()
        self.admin_lock = threading.RLock()
        self._active: tuple[ControllerSpec, ...] = ()
        self.activity_version = 0
        self.on_change: Callable[[], None] | None = None  # e.g. wakes the ~/activity publisher

    # --- queries ----------------------------------------------------------------------
    def state_of(self, name: str) -> LifecycleStateId:
        """Lifecycle state of loaded controller `name`."""
        return self.controllers[name].controller.lifecycle_state()

    def active_controllers(self) -> list[str]:
        """Names of the active controllers in update order."""
        return [spec.name for spec in self._active]

    def resolve_command_interfaces(self, spec: ControllerSpec) -> list[str]:
        """The command interface names `spec` asks for, as claimable now."""
        return self._resolve(
            spec.controller.command_interface_configuration(), self.rm.command_interfaces
        )

    def resolve_state_interfaces(self, spec: ControllerSpec) -> list[str]:
        """The state interface names `spec` asks for."""
        return self._resolve(
            spec.controller.state_interface_configuration(), self.rm.state_interfaces
        )

    @staticmethod
    def _resolve(config: InterfaceConfiguration, table: dict[str, Any]) -> list[str]:
        kind = config.type
        if kind == InterfaceConfigurationType.NONE:
            return []
        if kind == InterfaceConfigurationType.ALL:
            return list(table)
        if kind == InterfaceConfigurationType.INDIVIDUAL_BEST_EFFORT:
            return [n for n in config.names if n in table]
        if kind == InterfaceConfigurationType.REGEX:
            patterns = [re.compile(p) for p in config.names]
            return [n for n in table if any(p.fullmatch(n) for p in patterns)]
        return list(config.names)

    def required_interfaces(self, spec: ControllerSpec) -> tuple[list[str], list[str]]:
        """(command, state) names from the controller's configuration, unresolved."""
        ctrl = spec.controller
        if self.state_of(spec.name) in (S.UNCONFIGURED, S.FINALIZED):
            return [], []
        cmd = ctrl.command_interface_configuration()
        state = ctrl.state_interface_configuration()
        return (
            self._resolve(cmd, self.rm.command_interfaces)
            if cmd.type != InterfaceConfigurationType.INDIVIDUAL
            else list(cmd.names),
            self._resolve(state, self.rm.state_interfaces)
            if state.type != InterfaceConfigurationType.INDIVIDUAL
            else list(state.names),
        )

    def _exporter(self, interface: str) -> str | None:
        owner = self.rm.owner_of(interface)
        return owner if owner in self.controllers else None

    def following(self, name: str) -> list[str]:
        """Controllers whose reference interfaces `name` commands (it feeds them)."""
        cmd, _ = self.required_interfaces(self.controllers[name])
        return list(dict.fromkeys(e for e in map(self._exporter, cmd) if e and e != name))

    def preceding(self, name: str) -> list[str]:
        """Controllers that command `name`'s reference interfaces."""
        return [other for other in self.controllers if name in self.following(other)]

    # --- load / configure / cleanup / unload ----------------------------------------
    def _param(self, name: str, default: Any = None) -> Any:
        if not self.node.has_parameter(name):
            return default
        value = self.node.get_parameter(name).value
        return default if value is None else value

    def load_controller(self, name: str, type_name: str | None = None) -> tuple[bool, str]:
        """Create controller `name` of `<name>.type` (UNCONFIGURED); (ok, message)."""
        with self.admin_lock:
            if name in self.controllers:
                return False, f"controller '{name}' is already loaded"
            type_name = type_name or self._param(f'{name}.type')
            if not type_name:
                return False, f"the 'type' param was not defined for '{name}'"
            try:
                cls = plugins.load(plugins.CONTROLLERS_GROUP, type_name, ControllerInterface)
            except plugins.PluginError as exc:
                return False, f"cannot load controller '{name}': {exc}"
            params_files = self._param(f'{name}.params_file', [])
            if isinstance(params_files, str):
                params_files = [params_files]
            cli_args: list[str] = []
            for path in params_files:
                cli_args += ['--params-file', path]
            cli_args += list(self._param(f'{name}.node_options_args', []) or [])
            fallbacks = list(self._param(f'{name}.fallback_controllers', []) or [])
            if name in fallbacks:
                return False, f"controller '{name}' lists itself as a fallback controller"
            overrides = [Parameter('use_sim_time', value=bool(self._param('use_sim_time', False)))]
            controller = cls()
            try:
                ok = controller.init(
                    name,
                    robot_description=self.rm.urdf,
                    cm_update_rate=self.update_rate,
                    namespace=self.node.get_namespace(),
                    cli_args=['--ros-args', *cli_args] if cli_args else None,
                    context=self.node.context,
                    parameter_overrides=overrides,
                )
            except Exception as exc:
                ok = False
                self.logger.error(f"controller '{name}' failed to initialise: {exc!r}")
            if not ok:
                if controller.node is not None:
                    controller.node.destroy_node()
                return False, f"controller '{name}' ({type_name}) failed to initialise"
            self.controllers[name] = ControllerSpec(name, type_name, controller, fallbacks)
            self._add_node(controller.node)
            self._changed()
            return True, f"loaded '{name}' ({type_name})"

    def configure_controller(self, name: str) -> tuple[bool, str]:
        """UNCONFIGURED -> INACTIVE (an INACTIVE controller is cleaned up first)."""
        with self.admin_lock:
            spec = self.controllers.get(name)
            if spec is None:
                return False, f"controller '{name}' is not loaded"
            state = self.state_of(name)
            if state in (S.ACTIVE, S.FINALIZED):
                return False, f"controller '{name}' is {state.label}: cannot configure"
            node = spec.controller.get_node()
            if state == S.INACTIVE:
                self.rm.remove_controller_interfaces(name)
                node.trigger_cleanup()
            node.trigger_configure()
            if self.state_of(name) != S.INACTIVE:
                self._changed()
                return False, f"controller '{name}' failed to configure"
            if spec.is_chainable:
                ctrl: ChainableControllerInterface = spec.controller  # type: ignore[assignment]
                try:
                    self.rm.add_controller_interfaces(
                        name, ctrl.export_reference_interfaces(), ctrl.export_state_interfaces()
                    )
                except Exception as exc:
                    node.trigger_cleanup()
                    self._changed()
                    return False, f"controller '{name}' exported bad interfaces: {exc}"
            self._changed()
            return True, f"configured '{name}'"

    def cleanup_controller(self, name: str) -> tuple[bool, str]:
        """INACTIVE -> UNCONFIGURED."""
        with self.admin_lock:
            spec = self.controllers.get(name)
            if spec is None:
                return False, f"controller '{name}' is not loaded"
            if self.state_of(name) != S.INACTIVE:
                return False, f"controller '{name}' is {self.state_of(name).label}, not inactive"
            self.rm.remove_controller_interfaces(name)
            spec.controller.get_node().trigger_cleanup()
            self._changed()
            return self.state_of(name) == S.UNCONFIGURED, f"cleaned up '{name}'"

    def unload_controller(self, name: str) -> tuple[bool, str]:
        """Shut down and destroy a controller that is not active."""
        with self.admin_lock:
            spec = self.controllers.get(name)
            if spec is None:
                return False, f"controller '{name}' is not loaded"
            if self.state_of(name) == S.ACTIVE:
                return False, f"controller '{name}' is active: deactivate it before unloading"
            node = spec.controller.get_node()
            self.rm.remove_controller_interfaces(name)
            if self.state_of(name) == S.INACTIVE:
                node.trigger_cleanup()
            if self.state_of(name) != S.FINALIZED:
                node.trigger_shutdown()
            del self.controllers[name]
            self._remove_node(node)
            node.destroy_node()
            # rclpy leaves the lifecycle state machine (and with it the rcl node) to the
            # garbage collector; a controller loaded again under the same name would then
            # lose its /rosout publisher when the old one is finally collected
            node._state_machine.destroy_when_not_in_use()
            self._changed()
            return True, f"unloaded '{name}'"

    # --- switching ----------------------------------------------------------------------
    def switch_controller(
        self,
        activate: Iterable[str],
        deactivate: Iterable[str],
        strictness: int = 0,
        *,
        timeout_s: float = 0.0,
    ) -> tuple[bool, str]:
        """Activate and deactivate controllers between two cycles; (ok, message)."""
        with self.admin_lock:
            return self._switch(activate, deactivate, strictness, timeout_s)

    def _switch(
        self, activate: Iterable[str], deactivate: Iterable[str], strictness: int, timeout_s: float
    ) -> tuple[bool, str]:
        if strictness not in (BEST_EFFORT, STRICT):
            if strictness not in (0, BEST_EFFORT, STRICT):
                self.logger.warning(f'strictness {strictness} acts as BEST_EFFORT')
                strictness = BEST_EFFORT
            else:
                strictness = STRICT if self.strict_by_default else BEST_EFFORT
        plan = _SwitchPlan(self, list(dict.fromkeys(activate)), list(dict.fromkeys(deactivate)))
        error = plan.validate(strict=strictness == STRICT)
        if error:
            self.logger.error(f'switch_controller: {error}')
            return False, error
        if not plan.activate and not plan.deactivate:
            return True, 'no controllers need to be activated or deactivated'
        if not self.rm.prepare_command_mode_switch(plan.start_interfaces, plan.stop_interfaces):
            return False, 'the hardware refused the command mode switch'
        timeout_s = timeout_s if timeout_s > 0 else 1.0
        if not self.cycle_lock.acquire(timeout=timeout_s):
            return False, f'Switch controller timed out after {timeout_s:g} seconds!'
        try:
            ok, message = self._apply(plan, strict=strictness == STRICT)
        finally:
            self.cycle_lock.release()
        self._changed()
        return ok, message

    def _apply(self, plan: _SwitchPlan, *, strict: bool) -> tuple[bool, str]:
        if not self.rm.perform_command_mode_switch(plan.start_interfaces, plan.stop_interfaces):
            return False, 'the hardware failed to switch command mode'
        order = self._update_order()
        for name in sorted(plan.deactivate, key=order.index):
            self._deactivate(self.controllers[name])
        failed = []
        for name in sorted(plan.activate, key=order.index, reverse=True):
            reason = self._activate(self.controllers[name])
            if reason:
                failed.append(reason)
        self._refresh_active()
        if failed:
            message = '; '.join(failed)
            self.logger.error(f'switch_controller: {message}')
            return not strict, message
        return True, 'switched'

    def _activate(self, spec: ControllerSpec) -> str:
        """Claim, assign and activate; '' on success, else the reason (nothing claimed)."""
        cmd = self.resolve_command_interfaces(spec)
        state = self.resolve_state_interfaces(spec)
        missing = [s for s in state if not self.rm.is_state_available(s)]
        if missing:
            return f"controller '{spec.name}': state interfaces not available: {missing}"
        try:
            handles = self.rm.claim(cmd, spec.name)
        except ClaimError as exc:
            return f"controller '{spec.name}': {exc}"
        spec.claimed = cmd
        spec.controller.assign_interfaces(handles, [self.rm.state_interfaces[s] for s in state])
        if spec.is_chainable:
            self.rm.set_controller_interfaces_available(spec.name, True)
        spec.last_update_ns = None
        spec.controller.get_node().trigger_activate()
        if self.state_of(spec.name) != S.ACTIVE:
            self._release(spec)
            return f"controller '{spec.name}' failed to activate"
        self._update_chained_modes()
        return ''

    def _deactivate(self, spec: ControllerSpec) -> None:
        if self.state_of(spec.name) == S.ACTIVE:
            spec.controller.get_node().trigger_deactivate()
        self._release(spec)
        self._update_chained_modes()

    def _release(self, spec: ControllerSpec) -> None:
        self.rm.release(spec.claimed)
        spec.claimed = []
        spec.controller.release_interfaces()
        if spec.is_chainable:
            self.rm.set_controller_interfaces_available(spec.name, False)

    def _update_chained_modes(self) -> None:
        for spec in self.controllers.values():
            if spec.is_chainable:
                ctrl: ChainableControllerInterface = spec.controller  # type: ignore[assignment]
                chained = any(h.name in self.rm.claimed for h in ctrl.reference_interfaces)
                if not ctrl.set_chained_mode(chained):
                    self.logger.error(f"controller '{spec.name}' refused chained mode {chained}")

    def _update_order(self) -> list[str]:
        """Loaded controllers, every controller before the ones it feeds (stable)."""
        names = list(self.controllers)
        feeds = {n: set(self.following(n)) for n in names}
        order: list[str] = []
        placed: set[str] = set()
        while len(order) < len(names):
            progress = False
            for n in names:
                # n can go once every controller feeding n is placed
                if n not in placed and all(p in placed for p in names if n in feeds[p]):
                    order.append(n)
                    placed.add(n)
                    progress = True
            if not progress:  # a cycle: keep load order for the rest
                order += [n for n in names if n not in placed]
                break
        return order

    def _refresh_active(self) -> None:
        order = self._update_order()
        self._active = tuple(self.controllers[n] for n in order if self.state_of(n) == S.ACTIVE)

    def _changed(self) -> None:
        self.activity_version += 1
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception as exc:  # the node is already gone at shutdown: nobody listens
                self.logger.debug(f'activity notification dropped: {exc!r}')

    # --- failures ----------------------------------------------------------------------
    def deactivate_after_error(self, names: Iterable[str], why: str) -> None:
        """Deactivate `names` and everything commanding them; then start their fallbacks."""
        with self.cycle_lock:
            todo = list(dict.fromkeys(names))
            i = 0
            while i < len(todo):
                for p in self.preceding(todo[i]):
                    if p not in todo and self.state_of(p) == S.ACTIVE:
                        todo.append(p)
                i += 1
            fallbacks: list[str] = []
            for name in todo:
                spec = self.controllers[name]
                self.logger.error(f"deactivating controller '{name}': {why}")
                self._deactivate(spec)
                fallbacks += [f for f in spec.fallback_controllers if f not in fallbacks]
            self._refresh_active()
            if fallbacks:
                ok, msg = self._switch(fallbacks, [], STRICT, 1.0)
                if not ok:
                    self.logger.error(f'fallback controllers {fallbacks} not activated: {msg}')
            self._changed()

    def _controllers_using(self, component: str, *, commands_only: bool = False) -> list[str]:
        cmd, state = self.rm.interfaces_of(component)
        cmd_set, state_set = set(cmd), set(state)
        users = []
        for spec in self._active:
            if cmd_set.intersection(spec.claimed) or (
                not commands_only
                and state_set.intersection(h.name for h in spec.controller.state_interfaces)
            ):
                users.append(spec.name)
        return users

    def handle_hardware_error(self, component: str, where: str) -> None:
        """A component's read()/write() failed: error its lifecycle, stop its controllers."""
        users = self._controllers_using(component)
        if users:
            self.deactivate_after_error(users, f"hardware '{component}' failed in {where}()")
        state = self.rm.handle_component_error(component)
        self.logger.error(f"hardware '{component}' failed in {where}(): now {state.label}")
        self._changed()

    def handle_hardware_self_deactivate(self, component: str) -> None:
        """write() returned DEACTIVATE: component to INACTIVE, stop controllers commanding it."""
        if self.deactivate_on_hardware_self_deactivate:
            users = self._controllers_using(component, commands_only=True)
            if users:
                self.deactivate_after_error(users, f"hardware '{component}' deactivated itself")
        self.rm.set_component_state(component, S.INACTIVE)
        self._changed()

    def set_hardware_component_state(
        self, component: str, target: LifecycleStateId
    ) -> tuple[bool, LifecycleStateId | None]:
        """Drive a component; controllers that need what goes away are deactivated first."""
        with self.admin_lock, self.cycle_lock:
            managed = self.rm.components.get(component)
            if managed is None:
                return False, None
            if target != S.ACTIVE:
                users = self._controllers_using(component, commands_only=target == S.INACTIVE)
                if users:
                    self.deactivate_after_error(
                        users, f"hardware '{component}' goes to {target.label}"
                    )
            ok = self.rm.set_component_state(component, target)
            self._changed()
            return ok, managed.state

    # --- the cycle -------------------------------------------------------------------
    def update(self, time: Any, cycle_period: Duration, now_ns: int) -> None:
        """update() every active controller that is due, in chain order (loop thread)."""
        errored: list[str] | None = None
        for spec in self._active:
            ctrl = spec.controller
            period = cycle_period
            if ctrl.update_rate < self.update_rate:
                last = spec.last_update_ns
                if last is not None:
                    dt = (now_ns - last) * 1e-9
                    r = ctrl.update_rate
                    if abs(dt * r - 1.0) > abs((dt + 1.0 / self.update_rate) * r - 1.0):
                        continue
                    period = Duration(nanoseconds=now_ns - last)
                else:
                    period = Duration(nanoseconds=int(1e9 / ctrl.update_rate))
            spec.last_update_ns = now_ns
            t0 = _perf_ns()
            try:
                result = ctrl.update(time, period)
            except Exception as exc:
                self.logger.error(f"controller '{spec.name}' raised in update(): {exc!r}")
                result = ReturnType.ERROR
            spec.execution.record(_perf_ns() - t0)
            if result != ReturnType.OK:
                spec.errors += 1
                errored = [*(errored or []), spec.name]
        if errored:
            self.deactivate_after_error(errored, 'update() returned ERROR')

    def shutdown(self) -> None:
        """Deactivate, clean up and unload every controller; finalize the hardware."""
        with self.admin_lock:
            active = self.active_controllers()
            if active:
                self.switch_controller([], active, BEST_EFFORT, timeout_s=5.0)
            for name in list(self.controllers):
                self.unload_controller(name)
            with self.cycle_lock:
                self.rm.shutdown()


class _SwitchPlan:
    """Validation of a switch request, following ros2_control's strict/best-effort rules."""

    def __init__(self, cm: ControllerManager, activate: list[str], deactivate: list[str]) -> None:
        self.cm = cm
        self.activate = activate
        self.deactivate = deactivate
        self.start_interfaces: list[str] = []
        self.stop_interfaces: list[str] = []

    def _reject(self, strict: bool, lst: list[str], name: str, why: str) -> str:
        if strict:
            return why
        self.cm.logger.warning(f'{why}: skipping it (BEST_EFFORT)')
        lst.remove(name)
        return ''

    def validate(self, *, strict: bool) -> str:
        """'' when the plan is valid (possibly trimmed under BEST_EFFORT), else the error."""
        cm = self.cm
        for lst in (self.deactivate, self.activate):
            for name in list(lst):
                if name not in cm.controllers:
                    err = self._reject(strict, lst, name, f"controller '{name}' is not loaded")
                    if err:
                        return err
        for name in list(self.deactivate):
            if cm.state_of(name) != S.ACTIVE:
                err = self._reject(
                    strict, self.deactivate, name, f"controller '{name}' is not active"
                )
                if err:
                    return err
        for name in list(self.activate):
            state = cm.state_of(name)
            if state == S.ACTIVE and name not in self.deactivate:
                why = f"controller '{name}' is already active"
            elif state in (S.UNCONFIGURED, S.FINALIZED):
                why = f"controller '{name}' is {state.label}: configure it before activating"
            else:
                continue
            err = self._reject(strict, self.activate, name, why)
            if err:
                return err
        # chain rules and interfaces; dropping one may invalidate another, so repeat
        changed = True
        while changed:
            changed = False
            for name in list(self.deactivate):
                for p in cm.preceding(name):
                    if cm.state_of(p) == S.ACTIVE and p not in self.deactivate:
                        why = (
                            f"controller '{name}' cannot be deactivated while '{p}' "
                            'commands it: deactivate that one too'
                        )
                        err = self._reject(strict, self.deactivate, name, why)
                        if err:
                            return err
                        changed = True
                        break
            for name in list(self.activate):
                why = self._activation_problem(name)
                if why:
                    err = self._reject(strict, self.activate, name, why)
                    if err:
                        return err
                    changed = True
        for name in self.activate:
            spec = cm.controllers[name]
            self.start_interfaces += cm.resolve_command_interfaces(spec)
        for name in self.deactivate:
            self.stop_interfaces += list(cm.controllers[name].claimed)
        return ''

    def _will_be_active(self, name: str) -> bool:
        cm = self.cm
        return name in self.activate or (
            cm.state_of(name) == S.ACTIVE and name not in self.deactivate
        )

    def _activation_problem(self, name: str) -> str:
        cm = self.cm
        for follower in cm.following(name):
            if not self._will_be_active(follower):
                return (
                    f"controller '{name}' commands '{follower}', which is not active: "
                    'activate the following controller first (or in the same request)'
                )
        spec = cm.controllers[name]
        releasing = {i for n in self.deactivate for i in cm.controllers[n].claimed}
        wanted_by_others = {
            i
            for other in self.activate
            if other != name
            for i in cm.resolve_command_interfaces(cm.controllers[other])
        }
        for itf in cm.resolve_command_interfaces(spec):
            exporter = cm._exporter(itf)
            if itf not in cm.rm.command_interfaces:
                return f"controller '{name}': command interface '{itf}' does not exist"
            if exporter is None and not cm.rm.is_command_available(itf):
                return f"controller '{name}': command interface '{itf}' is not available"
            holder = cm.rm.claimed.get(itf)
            if holder is not None and itf not in releasing:
                return (
                    f"controller '{name}': command interface '{itf}' is currently claimed "
                    f"by '{holder}'"
                )
            if itf in wanted_by_others:
                return f"controller '{name}': command interface '{itf}' is wanted twice"
        for itf in cm.resolve_state_interfaces(spec):
            exporter = cm._exporter(itf)
            if itf not in cm.rm.state_interfaces:
                return f"controller '{name}': state interface '{itf}' does not exist"
            if exporter is None and not cm.rm.is_state_available(itf):
                return f"controller '{name}': state interface '{itf}' is not available"
            if exporter is not None and not self._will_be_active(exporter):
                return f"controller '{name}': reads '{itf}' of '{exporter}', which is not active"
        return ''
