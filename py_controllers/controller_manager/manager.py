"""The controller manager: loads controllers, switches them, and runs one control cycle.

ROS services live in `services.py` and the loop thread in `loop.py`; this module holds
the logic both use. `cycle_lock` is held by the loop for one read/update/write cycle and
by every change of the active set, so a switch always happens between two cycles, at the
first cycle boundary after the request. That is what `SwitchController.activate_asap` asks
for, so it needs no second path here: upstream switches in the realtime thread right after
update() with it, and otherwise in the service thread while the loop skips the controllers
being switched; both end, as ours, with the new set running from the next cycle.

Safety rules (see `supervision.py` for failures, hardware transitions and shutdown):
controller and hardware code is contained wherever the manager calls it; a command
interface released by a deactivated controller goes through the hardware's command-mode
switch and holds (`hardware_interface/hold.py`: position where it is measured, velocity,
effort and acceleration 0; upstream leaves this to each controller, here it holds for
every controller, a user's included).

Lock rules: `manager_tables.py`, with what the helpers (loading, switch plan, supervision)
may read and change of the manager.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Sequence
from time import perf_counter_ns as _perf_ns
from typing import Any

from rclpy.duration import Duration
from rclpy.node import Node

from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.interface_configuration import (
    InterfaceConfiguration,
    InterfaceConfigurationType,
)
from py_controllers.controller_manager.controller_loading import ControllerLoading
from py_controllers.controller_manager.controller_spec import ControllerSpec
from py_controllers.controller_manager.loop_time import LoopDuration
from py_controllers.controller_manager.supervision import Supervisor
from py_controllers.controller_manager.switch_plan import (
    AUTO,
    BEST_EFFORT,
    FORCE_AUTO,
    STRICT,
    SwitchPlan,
)
from py_controllers.hardware_interface.hold import apply_holds
from py_controllers.hardware_interface.resource_manager import ClaimError, ResourceManager
from py_controllers.hardware_interface.types import LifecycleStateId, ReturnType
from py_controllers.realtime_tools.deferred import DeferredCalls

S = LifecycleStateId


NONE_IS_OK = '{}: update() returned None; taken as ReturnType.OK (return it explicitly)'


class ControllerCodeError(RuntimeError):
    """A controller's own code raised where the manager asked it something."""


class ControllerManager:
    """Controller bookkeeping and the cycle; owned by the `controller_manager` node. Its
    helpers see it as a `ManagerTables` (manager_tables.py: the seam and the lock rules)."""

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
        ros_args: Sequence[str] = (),
    ) -> None:
        """`ros_args`: the manager's own ROS arguments, which its controllers' nodes get
        (less its name, namespace and description; see `controller_node_args`)."""
        self.node = node
        self.logger = node.get_logger()
        self.update_rate = update_rate
        self.rm = ResourceManager(
            update_rate=update_rate,
            allow_inactive_hardware_commands=allow_inactive_hardware,
            logger=self.logger.get_child('resource_manager'),
        )
        self.strict_by_default = strict_by_default
        self.deactivate_on_hardware_self_deactivate = deactivate_on_hardware_self_deactivate
        self.controllers: dict[str, ControllerSpec] = {}
        self.cycle_lock = threading.RLock()
        self.admin_lock = threading.RLock()
        self._active: tuple[ControllerSpec, ...] = ()
        self.activity_version = 0
        self.on_change: Callable[[], None] | None = None  # e.g. wakes the ~/activity publisher
        # what the loop hands to the executor (logs, ROS calls); the node sets its wake-up
        self.deferred = DeferredCalls(logger=self.logger)
        self.rm.log_rt = self.deferred.log
        self.rm.async_time = self._async_time
        self.supervisor = Supervisor(self)
        self.loading = ControllerLoading(
            self, add_node or (lambda n: None), remove_node or (lambda n: None), ros_args
        )

    # --- loading (controller_loading.py) ---------------------------------------------------
    def load_controller(self, name: str, type_name: str | None = None) -> tuple[bool, str]:
        """Create controller `name` of `<name>.type` (UNCONFIGURED); (ok, message)."""
        return self.loading.load_controller(name, type_name)

    def configure_controller(self, name: str) -> tuple[bool, str]:
        """UNCONFIGURED -> INACTIVE (an INACTIVE controller is cleaned up first)."""
        return self.loading.configure_controller(name)

    def cleanup_controller(self, name: str) -> tuple[bool, str]:
        """INACTIVE -> UNCONFIGURED."""
        return self.loading.cleanup_controller(name)

    def unload_controller(self, name: str) -> tuple[bool, str]:
        """Shut down and destroy a controller that is not active."""
        return self.loading.unload_controller(name)

    # --- queries ----------------------------------------------------------------------
    def state_of(self, name: str) -> LifecycleStateId:
        """Lifecycle state of loaded controller `name`."""
        return self.controllers[name].controller.lifecycle_state()

    @property
    def active(self) -> tuple[ControllerSpec, ...]:
        """The active controllers in update order (replaced whole under cycle_lock)."""
        return self._active

    def active_controllers(self) -> list[str]:
        """Names of the active controllers in update order."""
        return [spec.name for spec in self._active]

    def resolve_command_interfaces(self, spec: ControllerSpec) -> list[str]:
        """The command interface names `spec` asks for; raises ControllerCodeError."""
        return self._resolve(self._configuration(spec, 'command'), self.rm.command_interfaces)

    def resolve_state_interfaces(self, spec: ControllerSpec) -> list[str]:
        """The state interface names `spec` asks for; raises ControllerCodeError."""
        return self._resolve(self._configuration(spec, 'state'), self.rm.state_interfaces)

    @staticmethod
    def _configuration(spec: ControllerSpec, kind: str) -> InterfaceConfiguration:
        method = f'{kind}_interface_configuration'
        try:
            config = getattr(spec.controller, method)()
        except Exception as exc:
            raise ControllerCodeError(
                f"controller '{spec.name}': {method}() raised {exc!r}"
            ) from exc
        if not isinstance(config, InterfaceConfiguration):
            raise ControllerCodeError(
                f"controller '{spec.name}': {method}() returned {config!r}, "
                'not an InterfaceConfiguration'
            )
        return config

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
        """(command, state) names from the controller's configuration, unresolved; a
        controller whose configuration raises requires nothing (reported once)."""
        if self.state_of(spec.name) in (S.UNCONFIGURED, S.FINALIZED):
            return [], []
        try:
            cmd = self._configuration(spec, 'command')
            state = self._configuration(spec, 'state')
        except ControllerCodeError as exc:
            if not spec.configuration_error_reported:
                spec.configuration_error_reported = True
                self.log('error', str(exc))
            return [], []
        return (
            self._resolve(cmd, self.rm.command_interfaces)
            if cmd.type != InterfaceConfigurationType.INDIVIDUAL
            else list(cmd.names),
            self._resolve(state, self.rm.state_interfaces)
            if state.type != InterfaceConfigurationType.INDIVIDUAL
            else list(state.names),
        )

    def exporter_of(self, interface: str) -> str | None:
        """The loaded controller exporting `interface` (None for a hardware interface)."""
        owner = self.rm.owner_of(interface)
        return owner if owner in self.controllers else None

    def following(self, name: str) -> list[str]:
        """Controllers whose reference interfaces `name` commands (it feeds them)."""
        cmd, _ = self.required_interfaces(self.controllers[name])
        return list(dict.fromkeys(e for e in map(self.exporter_of, cmd) if e and e != name))

    def preceding(self, name: str) -> list[str]:
        """Controllers that command `name`'s reference interfaces."""
        return [other for other in self.controllers if name in self.following(other)]

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
            return self.switch_locked(activate, deactivate, strictness, timeout_s)

    def switch_locked(
        self, activate: Iterable[str], deactivate: Iterable[str], strictness: int, timeout_s: float
    ) -> tuple[bool, str]:
        """switch_controller for a caller holding admin_lock, or the loop thread."""
        if strictness == 0:
            strictness = STRICT if self.strict_by_default else BEST_EFFORT
        elif strictness in (AUTO, FORCE_AUTO):  # as upstream: not implemented there either
            name = 'AUTO' if strictness == AUTO else 'FORCE_AUTO'
            self.log('warning', f'{name} is not implemented (nor upstream): BEST_EFFORT')
            strictness = BEST_EFFORT
        elif strictness not in (BEST_EFFORT, STRICT):
            error = (
                f'unknown strictness {strictness}: 1 BEST_EFFORT, 2 STRICT, 3 AUTO, 4 FORCE_AUTO'
            )
            self.log('error', f'switch_controller: {error}')
            return False, error
        plan = SwitchPlan(self, list(dict.fromkeys(activate)), list(dict.fromkeys(deactivate)))
        error = plan.validate(strict=strictness == STRICT)
        if error:
            self.log('error', f'switch_controller: {error}')
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
        self.notify_changed()
        return ok, message

    def _apply(self, plan: SwitchPlan, *, strict: bool) -> tuple[bool, str]:
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
            self.log('error', f'switch_controller: {message}')
            return not strict, message
        return True, 'switched'

    def _activate(self, spec: ControllerSpec) -> str:
        """Claim, assign and activate; '' on success, else the reason (nothing claimed)."""
        try:
            cmd = self.resolve_command_interfaces(spec)
            state = self.resolve_state_interfaces(spec)
        except ControllerCodeError as exc:
            return str(exc)
        missing = [s for s in state if not self.rm.is_state_available(s)]
        if missing:
            return f"controller '{spec.name}': state interfaces not available: {missing}"
        try:
            handles = self.rm.claim(cmd, spec.name)
        except ClaimError as exc:
            return f"controller '{spec.name}': {exc}"
        spec.claimed = cmd
        refused = self._chain_followers(cmd)
        if refused:
            self._release(spec)
            self._update_chained_modes()
            return (
                f"controller '{spec.name}' not activated: '{refused}' refused to go into "
                'chained mode'
            )
        if spec.is_chainable:
            self.rm.set_controller_interfaces_available(spec.name, True)
        spec.last_update_ns = None
        try:
            spec.controller.assign_interfaces(handles, [self.rm.state_interfaces[s] for s in state])
            spec.controller.get_node().trigger_activate()
        except Exception as exc:  # the controller's own code, or its lifecycle node
            self.log('error', f"controller '{spec.name}': activation raised {exc!r}")
        if self.state_of(spec.name) != S.ACTIVE:
            self._release(spec)
            return f"controller '{spec.name}' failed to activate"
        self._update_chained_modes()
        return ''

    def _deactivate(self, spec: ControllerSpec) -> None:
        """Lifecycle deactivate (the controller leaves its commands safe), then release with
        the hold values (the switch path has already told the hardware)."""
        self._trigger_deactivate(spec)
        self._release(spec)
        self._update_chained_modes()

    def _trigger_deactivate(self, spec: ControllerSpec) -> None:
        if self.state_of(spec.name) == S.ACTIVE:
            try:
                spec.controller.get_node().trigger_deactivate()
            except Exception as exc:
                self.log('error', f"controller '{spec.name}': deactivation raised {exc!r}")

    def deactivate_unconditionally(self, names: Iterable[str]) -> None:
        """Deactivate `names` whatever the hardware says (error paths, shutdown): each one's
        on_deactivate, the hardware's command-mode switch for what they release (a refusal is
        logged, not obeyed), then the hold values. The caller holds the cycle lock, or the
        loop has stopped."""
        specs = [self.controllers[n] for n in dict.fromkeys(names) if n in self.controllers]
        for spec in specs:
            self._trigger_deactivate(spec)
        released = [i for spec in specs for i in spec.claimed if self.rm.component_of(i)]
        if released:
            if not self.rm.prepare_command_mode_switch([], released):
                self.log('error', f'the hardware refused to release {released}: released anyway')
            if not self.rm.perform_command_mode_switch([], released):
                self.log('error', f'the hardware failed to release {released}: released anyway')
        for spec in specs:
            self._release(spec)
        self._update_chained_modes()
        self._refresh_active()

    def _release(self, spec: ControllerSpec) -> None:
        apply_holds(spec.claimed, self.rm.command_interfaces, self.rm.state_interfaces)
        self.rm.release(spec.claimed)
        spec.claimed = []
        try:
            spec.controller.release_interfaces()
        except Exception as exc:
            self.log('error', f"controller '{spec.name}': release_interfaces raised {exc!r}")
            spec.controller.command_interfaces, spec.controller.state_interfaces = [], []
        if spec.is_chainable:
            self.rm.set_controller_interfaces_available(spec.name, False)

    def _chain_followers(self, claimed: list[str]) -> str:
        """Put the controllers whose references `claimed` holds into chained mode; the
        name of the first that refuses ('' if none). Upstream only logs a refusal and goes
        on with a chain that "will probably not work": here the activation fails."""
        for follower in dict.fromkeys(filter(None, map(self.exporter_of, claimed))):
            ctrl = self.controllers[follower].controller
            try:
                accepted = ctrl.set_chained_mode(True)  # type: ignore[attr-defined]
            except Exception as exc:
                self.log('error', f"controller '{follower}': set_chained_mode raised {exc!r}")
                accepted = False
            if not accepted:
                self.log('error', f"controller '{follower}' refused chained mode")
                return follower
        return ''

    def _update_chained_modes(self) -> None:
        for spec in self.controllers.values():
            if spec.is_chainable:
                ctrl: ChainableControllerInterface = spec.controller  # type: ignore[assignment]
                chained = any(h.name in self.rm.claimed for h in ctrl.reference_interfaces)
                try:
                    accepted = ctrl.set_chained_mode(chained)
                except Exception as exc:
                    self.log('error', f"controller '{spec.name}': set_chained_mode raised {exc!r}")
                    accepted = False
                if not accepted:
                    self.log('error', f"controller '{spec.name}' refused chained mode {chained}")

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

    def notify_changed(self) -> None:
        """Something in the tables changed: bump the version, wake the activity topic."""
        self.activity_version += 1
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception as exc:  # the node is already gone at shutdown: nobody listens
                self.deferred.log(self.logger, 'info', f'activity notification dropped: {exc!r}')

    def log(self, level: str, text: str) -> None:
        """Log from any thread: handed to the executor, so the loop never logs itself."""
        self.deferred.log(self.logger, level, text)

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
                    period = LoopDuration(now_ns - last)
                else:
                    period = LoopDuration(int(1e9 / ctrl.update_rate))
            spec.last_update_ns = now_ns
            t0 = _perf_ns()
            try:
                result = ctrl.update(time, period)
            except Exception as exc:
                self.log('error', f"controller '{spec.name}' raised in update(): {exc!r}")
                result = ReturnType.ERROR
            spec.execution.record(_perf_ns() - t0)
            if result is not ReturnType.OK:
                if result is None:  # the one rule: None is success, with a warning once
                    if not spec.none_reported:
                        spec.none_reported = True
                        self.log('warning', NONE_IS_OK.format(f"controller '{spec.name}'"))
                    continue
                spec.errors += 1
                errored = [*(errored or []), spec.name]
                if result is not ReturnType.ERROR:
                    self.log(
                        'error',
                        f"controller '{spec.name}': update() returned {result!r}, "
                        'not ReturnType.OK: taken as ERROR',
                    )
        if errored:
            self.supervisor.deactivate_after_error(errored, 'update() returned ERROR')

    # --- hardware states and the way out (see supervision.py) ------------------------------
    def set_hardware_component_state(
        self, component: str, target: LifecycleStateId, *, timeout_s: float | None = None
    ) -> tuple[bool, LifecycleStateId | None]:
        """Drive a component and wait for it (not from the loop or the executor: the
        service uses `supervisor.request_hardware_state`, which does not wait)."""
        return self.supervisor.request_hardware_state(component, target).result(timeout_s)

    def shutdown(self, stop_loop: Callable[[], None] | None = None) -> None:
        """Deactivate controllers, stop the loop, final write, unload, hardware shut down."""
        self.supervisor.shutdown(stop_loop)

    def reset_hardware(self) -> None:
        """Forget every hardware component (a robot description that failed to load)."""
        self.rm = ResourceManager(
            update_rate=self.update_rate,
            allow_inactive_hardware_commands=self.rm.allow_inactive_hardware_commands,
            logger=self.rm.logger,
        )
        self.rm.log_rt = self.deferred.log
        self.rm.async_time = self._async_time

    def _async_time(self, period_ns: int) -> tuple[Any, Duration]:
        """(now, period) for a detached async hardware component's run."""
        return self.node.get_clock().now(), Duration(nanoseconds=period_ns)
