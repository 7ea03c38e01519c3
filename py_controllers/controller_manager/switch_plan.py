"""Validation of a switch_controller request, following ros2_control's rules.

Under STRICT the first problem fails the request; under BEST_EFFORT the controller at
fault is dropped from the request (with a warning) and the rest goes ahead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from py_controllers.hardware_interface.types import LifecycleStateId

if TYPE_CHECKING:
    from py_controllers.controller_manager.manager_tables import ManagerTables

S = LifecycleStateId
BEST_EFFORT = 1
STRICT = 2
AUTO = 3
FORCE_AUTO = 4


def lifecycle_problem(cm: ManagerTables, name: str) -> str:
    """Why controller `name` cannot be activated from its lifecycle state now; '' when it
    can (INACTIVE). Checked when a switch is planned and again at each activation, after
    the switch's deactivations (a restart whose on_deactivate failed)."""
    state = cm.state_of(name)
    if state == S.ACTIVE and not cm.is_running(name):
        return (
            f"controller '{name}' is still active in its lifecycle (its on_deactivate failed): "
            'deactivate it again first'
        )
    if state == S.ACTIVE:
        return f"controller '{name}' is already active"
    if state == S.UNCONFIGURED:
        return f"controller '{name}' is unconfigured: configure it before activating"
    if state == S.FINALIZED:
        return f"controller '{name}' is finalized: unload it and load it again"
    return ''


class SwitchPlan:
    """Validation of a switch request, following ros2_control's strict/best-effort rules."""

    def __init__(self, cm: ManagerTables, activate: list[str], deactivate: list[str]) -> None:
        self.cm = cm
        self.activate = activate
        self.deactivate = deactivate
        self.start_interfaces: list[str] = []
        self.stop_interfaces: list[str] = []
        self.started_by: dict[str, list[str]] = {}  # controller -> the interfaces it starts

    def _reject(self, strict: bool, lst: list[str], name: str, why: str) -> str:
        if strict:
            return why
        self.cm.logger.warning(f'{why}: skipping it (BEST_EFFORT)')
        lst.remove(name)
        return ''

    def validate(self, *, strict: bool) -> str:
        """'' when the plan is valid (possibly trimmed under BEST_EFFORT), else the error."""
        cm = self.cm
        for lst, action in ((self.deactivate, 'deactivate'), (self.activate, 'activate')):
            unknown = [name for name in lst if name not in cm.controllers]
            if unknown and len(unknown) == len(lst):  # as upstream: fails even BEST_EFFORT
                return f'none of the controllers to {action} is loaded: {unknown}'
            for name in unknown:
                err = self._reject(strict, lst, name, f"controller '{name}' is not loaded")
                if err:
                    return err
        for lst, action in ((self.deactivate, 'deactivate'), (self.activate, 'activate')):
            for name in [n for n in lst if cm.controllers[n].busy]:
                why = (
                    f"controller '{name}' is being {cm.controllers[name].busy}: cannot {action} it"
                )
                err = self._reject(strict, lst, name, why)
                if err:
                    return err
        for name in list(self.deactivate):
            # running, or left ACTIVE by an on_deactivate that failed (this retries it)
            if not cm.is_running(name) and cm.state_of(name) != S.ACTIVE:
                err = self._reject(
                    strict, self.deactivate, name, f"controller '{name}' is not active"
                )
                if err:
                    return err
        for name in list(self.activate):
            # a restart's deactivation comes first: its outcome is checked at activation
            if name in self.deactivate and cm.state_of(name) == S.ACTIVE:
                continue
            why = lifecycle_problem(cm, name)
            if why:
                err = self._reject(strict, self.activate, name, why)
                if err:
                    return err
        # chain rules and interfaces; dropping one may invalidate another, so repeat
        changed = True
        while changed:
            changed = False
            for name in list(self.deactivate):
                for p in cm.preceding(name):
                    if cm.is_running(p) and p not in self.deactivate:
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
        try:
            for name in self.activate:
                self.started_by[name] = cm.resolve_command_interfaces(cm.controllers[name])
                self.start_interfaces += self.started_by[name]
        except RuntimeError as exc:  # a controller's configuration raised
            return str(exc)
        for name in self.deactivate:
            self.stop_interfaces += list(cm.controllers[name].claimed)
        return ''

    def describe(self) -> str:
        """What this switch does, for the watchdog's report of a slow one."""
        parts = [f'activating {self.activate}'] if self.activate else []
        parts += [f'deactivating {self.deactivate}'] if self.deactivate else []
        return 'switch_controller ' + ', '.join(parts)

    def same_as(self, other: SwitchPlan) -> bool:
        """True when both plans switch the same controllers and interfaces."""
        return (
            self.activate == other.activate
            and self.deactivate == other.deactivate
            and self.start_interfaces == other.start_interfaces
            and self.stop_interfaces == other.stop_interfaces
        )

    def _will_be_active(self, name: str) -> bool:
        return name in self.activate or (self.cm.is_running(name) and name not in self.deactivate)

    def _activation_problem(self, name: str) -> str:
        try:
            return self._interface_problem(name)
        except RuntimeError as exc:  # a controller's configuration raised
            return str(exc)

    def _interface_problem(self, name: str) -> str:
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
            # a controller's reference interface becomes available with its activation
            exported = cm.exporter_of(itf) is not None
            problem = cm.rm.claim_problem(itf, releasing, available=exported)
            if problem:
                return f"controller '{name}': {problem}"
            if itf in wanted_by_others:
                return f"controller '{name}': command interface '{itf}' is wanted twice"
        for itf in cm.resolve_state_interfaces(spec):
            exporter = cm.exporter_of(itf)
            if itf not in cm.rm.state_interfaces:
                return f"controller '{name}': state interface '{itf}' does not exist"
            if exporter is None and not cm.rm.is_state_available(itf):
                return f"controller '{name}': state interface '{itf}' is not available"
            if exporter is not None and not self._will_be_active(exporter):
                return f"controller '{name}': reads '{itf}' of '{exporter}', which is not active"
        return self._fallback_problem(name)

    def _fallback_problem(self, name: str) -> str:
        """Upstream's pre-activation check: every fallback of `name` is loaded, configured,
        and could take over now (its interfaces available, or exported by a controller that
        is itself in the fallback list)."""
        cm = self.cm
        fallbacks = cm.controllers[name].fallback_controllers
        for fb in fallbacks:
            if fb not in cm.controllers:
                return f"controller '{name}': its fallback controller '{fb}' is not loaded"
            if cm.state_of(fb) not in (S.INACTIVE, S.ACTIVE):
                return (
                    f"controller '{name}' cannot be activated: its fallback controller '{fb}' "
                    'must be configured (inactive or active)'
                )
            spec = cm.controllers[fb]
            for kind, names, available in (
                ('command', cm.resolve_command_interfaces(spec), cm.rm.is_command_available),
                ('state', cm.resolve_state_interfaces(spec), cm.rm.is_state_available),
            ):
                for itf in names:
                    if available(itf):
                        continue
                    exporter = cm.exporter_of(itf)
                    if exporter is None or exporter not in fallbacks:
                        return (
                            f"controller '{name}' cannot be activated: {kind} interface '{itf}' "
                            f"its fallback controller '{fb}' needs is not available"
                        )
        return ''
