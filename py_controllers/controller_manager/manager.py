"""The controller manager: loads controllers, switches them, and runs one control cycle.

ROS services live in `services.py` and the loop thread in `loop.py`; this module holds
the logic both use. `cycle_lock` is held by the loop for one read/update/write cycle and
by every change of the active set, so a switch always happens between two cycles, at the
first cycle boundary after the request. That is what `SwitchController.activate_asap` asks
for, so it needs no second path here: upstream switches in the realtime thread right after
update() with it, and otherwise in the service thread while the loop skips the controllers
being switched; both end, as ours, with the new set running from the next cycle.

Safety rules (see `supervision.py` for failures, hardware transitions and shutdown):
controller and hardware code is contained wherever the manager calls it; the manager's
update table (`is_running`), not a controller's lifecycle state, decides who runs; every
claim ends through the one release transaction (`release.py`: out of the table, the
hardware's command-mode switch, the holds of `hardware_interface/hold.py`; upstream leaves
the holds to each controller, here they hold for every controller, a user's included).
`invariants.py` states the rules as checks.

Lock rules: `manager_tables.py`, with what the helpers (loading, switch plan, supervision)
may read and change of the manager.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from time import monotonic_ns as _monotonic_ns
from time import perf_counter_ns as _perf_ns
from typing import Any

from rclpy.duration import Duration
from rclpy.node import Node

from py_controllers.controller_interface.interface_configuration import (
    InterfaceConfiguration,
    InterfaceConfigurationType,
)
from py_controllers.controller_manager.chaining import (
    chain_followers,
    update_chained_modes,
    update_order,
)
from py_controllers.controller_manager.component_nodes import ComponentNodes
from py_controllers.controller_manager.controller_loading import ControllerLoading
from py_controllers.controller_manager.controller_spec import ControllerSpec
from py_controllers.controller_manager.loop_time import LoopDuration
from py_controllers.controller_manager.release import release, tell_hardware_to_stop
from py_controllers.controller_manager.supervision import Supervisor
from py_controllers.controller_manager.switch_plan import (
    AUTO,
    BEST_EFFORT,
    FORCE_AUTO,
    STRICT,
    SwitchPlan,
    lifecycle_problem,
)
from py_controllers.hardware_interface.resource_manager import ClaimError, ResourceManager
from py_controllers.hardware_interface.types import RETURN_OK, LifecycleStateId, ReturnType
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
        self._active: tuple[ControllerSpec, ...] = ()  # the loop's update table, in order
        self._running: set[str] = set()  # its names
        # (what, since when) while a service holds cycle_lock around controllers' hooks
        self.held_by: tuple[str, int] | None = None
        self.activity_version = 0
        self.on_change: Callable[[], None] | None = None  # e.g. wakes the ~/activity publisher
        # what the loop hands to the executor (logs, ROS calls); the node sets its wake-up
        self.deferred = DeferredCalls(logger=self.logger)
        self.rm.log_rt = self.deferred.log
        self.rm.async_time = self._async_time
        self._add_node = add_node or (lambda n: None)
        self._remove_node = remove_node or (lambda n: None)
        self.rm.component_nodes = ComponentNodes(node, self._add_node, self._remove_node)
        self.supervisor = Supervisor(self)
        self.loading = ControllerLoading(self, self._add_node, self._remove_node, ros_args)

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
        return self._resolve(
            self._configuration(spec, 'command'),
            self.rm.command_interfaces,
            self.rm.is_command_available,
        )

    def resolve_state_interfaces(self, spec: ControllerSpec) -> list[str]:
        """The state interface names `spec` asks for; raises ControllerCodeError."""
        return self._resolve(
            self._configuration(spec, 'state'), self.rm.state_interfaces, self.rm.is_state_available
        )

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
    def _resolve(
        config: InterfaceConfiguration, table: dict[str, Any], available: Callable[[str], bool]
    ) -> list[str]:
        """The names `config` asks for. ALL, INDIVIDUAL_BEST_EFFORT and REGEX take what is
        available now, as upstream (a component not yet configured is left out, so a joint
        state broadcaster over ALL comes up beside it); INDIVIDUAL names stay as given."""
        kind = config.type
        if kind == InterfaceConfigurationType.NONE:
            return []
        if kind == InterfaceConfigurationType.ALL:
            return [n for n in table if available(n)]
        if kind == InterfaceConfigurationType.INDIVIDUAL_BEST_EFFORT:
            return [n for n in config.names if n in table and available(n)]
        if kind == InterfaceConfigurationType.REGEX:
            patterns = [re.compile(p) for p in config.names]
            return [n for n in table if available(n) and any(p.fullmatch(n) for p in patterns)]
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
            self._resolve(cmd, self.rm.command_interfaces, self.rm.is_command_available)
            if cmd.type != InterfaceConfigurationType.INDIVIDUAL
            else list(cmd.names),
            self._resolve(state, self.rm.state_interfaces, self.rm.is_state_available)
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
        strict = strictness == STRICT
        plan = SwitchPlan(self, list(dict.fromkeys(activate)), list(dict.fromkeys(deactivate)))
        error = plan.validate(strict=strict)
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
            with self.holding_loop(plan.describe()):
                # the loop may have taken controllers out (an error) or put fallbacks in since
                # the plan was made: it must still hold, unchanged, now that nothing moves
                again = SwitchPlan(self, list(plan.activate), list(plan.deactivate))
                if again.validate(strict=True) or not again.same_as(plan):
                    error = 'controllers changed state during the switch: nothing switched'
                    self.log('error', f'switch_controller: {error}')
                    return False, error
                ok, message = self._apply(plan, strict=strict)
        finally:
            self.cycle_lock.release()
        self.notify_changed()
        return ok, message

    def _apply(self, plan: SwitchPlan, *, strict: bool) -> tuple[bool, str]:
        if not self.rm.perform_command_mode_switch(plan.start_interfaces, plan.stop_interfaces):
            # some components may have switched: stop everything this switch touched, so
            # each joint holds in the mode its claims say
            release(self, plan.deactivate, also_stop=plan.start_interfaces)
            error = (
                'the hardware failed to switch command mode: '
                + (f'deactivated {plan.deactivate}, ' if plan.deactivate else '')
                + 'activated nothing; the released joints hold'
            )
            self.log('error', f'switch_controller: {error}')
            return False, error
        order = update_order(self)
        release(self, sorted(plan.deactivate, key=order.index), hardware_told=True)
        failed, activated = [], []
        for name in sorted(plan.activate, key=order.index, reverse=True):
            reason = self._activate(self.controllers[name], plan.started_by.get(name, []))
            if reason:
                failed.append(reason)
            else:
                activated.append(name)
        if not failed:
            return True, 'switched'
        if strict and activated:  # as upstream: STRICT takes back this switch's activations
            release(self, activated)
            failed.append(f'STRICT: {activated} deactivated again')
        message = '; '.join(failed)
        self.log('error', f'switch_controller: {message}')
        return not strict, message

    def _activate(self, spec: ControllerSpec, started: list[str]) -> str:
        """Claim, assign and activate; '' on success, else the reason (its claims and the
        interfaces switched on for it released through the release transaction; a controller
        its lifecycle state keeps out, a restart whose on_deactivate failed, gets only the
        interfaces stopped: it claimed nothing, and its on_deactivate is not run again)."""
        problem = lifecycle_problem(self, spec.name)
        if problem:
            if started:
                tell_hardware_to_stop(self, started)
            return problem
        reason = self._claim_and_activate(spec)
        if reason:
            release(self, [spec.name], also_stop=started)
            return reason
        self._running.add(spec.name)
        self._refresh_active()
        update_chained_modes(self)
        return ''

    def _claim_and_activate(self, spec: ControllerSpec) -> str:
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
        refused = chain_followers(self, cmd)
        if refused:
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
            return f"controller '{spec.name}' failed to activate"
        return ''

    # --- the update table: who runs ------------------------------------------------------
    def is_running(self, name: str) -> bool:
        """True while `name` is in the set the loop updates (the manager's table, not the
        controller's lifecycle state, decides)."""
        return name in self._running

    def take_out_of_loop(self, names: Iterable[str]) -> None:
        """Remove `names` from the set the loop updates (caller holds cycle_lock)."""
        gone = self._running.intersection(names)
        if gone:
            self._running -= gone
            self._refresh_active()

    def _refresh_active(self) -> None:
        order = update_order(self)
        self._active = tuple(self.controllers[n] for n in order if n in self._running)

    @contextmanager
    def holding_loop(self, what: str) -> Iterator[None]:
        """Say what holds the loop off while a service holds cycle_lock (the watchdog tells
        such a hold from a stuck loop); the caller holds cycle_lock."""
        outer = self.held_by
        if outer is None:
            self.held_by = (what, _monotonic_ns())
        try:
            yield
        finally:
            if outer is None:
                self.held_by = None

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
            if result is not RETURN_OK:
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
        """Deactivate controllers, stop the loop, final write, unload, hardware shut down;
        then the components' own nodes go."""
        self.supervisor.shutdown(stop_loop)
        self.rm.component_nodes.close()

    def reset_hardware(self) -> None:
        """Forget every hardware component (a robot description that failed to load)."""
        self.rm.component_nodes.close()
        self.rm = ResourceManager(
            update_rate=self.update_rate,
            allow_inactive_hardware_commands=self.rm.allow_inactive_hardware_commands,
            logger=self.rm.logger,
        )
        self.rm.log_rt = self.deferred.log
        self.rm.async_time = self._async_time
        self.rm.component_nodes = ComponentNodes(self.node, self._add_node, self._remove_node)

    def _async_time(self, period_ns: int) -> tuple[Any, Duration]:
        """(now, period) for a detached async hardware component's run."""
        return self.node.get_clock().now(), Duration(nanoseconds=period_ns)
