"""Loading, configuring, cleaning up and unloading controllers: the helper of the
ControllerManager that creates and destroys them (through `ManagerTables`; the manager
holds the state)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rclpy.parameter import Parameter

from py_controllers import plugins
from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import ControllerInterface
from py_controllers.controller_manager.bounded import LoopBusyError, bounded_lock
from py_controllers.controller_manager.controller_node_args import controller_node_arguments
from py_controllers.controller_manager.controller_spec import ControllerSpec
from py_controllers.hardware_interface.types import LifecycleStateId

if TYPE_CHECKING:
    from rclpy.node import Node

    from py_controllers.controller_manager.manager_tables import ManagerTables

S = LifecycleStateId


class ControllerLoading:
    """load_controller, configure_controller, cleanup_controller, unload_controller.

    `manager_args` are the manager's own ROS arguments: each controller node gets them less
    the manager's name, namespace and description (`controller_node_args`), never the
    process's global ones."""

    def __init__(
        self,
        cm: ManagerTables,
        add_node: Callable[[Node], Any],
        remove_node: Callable[[Node], Any],
        manager_args: Sequence[str] = (),
    ) -> None:
        self.cm = cm
        self.manager_args = list(manager_args)
        self._add_node = add_node
        self._remove_node = remove_node

    def _param(self, name: str, default: Any = None) -> Any:
        if not self.cm.node.has_parameter(name):
            return default
        value = self.cm.node.get_parameter(name).value
        return default if value is None else value

    def _strings(self, name: str, *, single: bool = False) -> list[str]:
        """Parameter `name` as a list of strings ([] if unset; one string if `single`);
        raises ValueError naming it otherwise."""
        value = self._param(name, [])
        if single and isinstance(value, str):
            return [value]
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return list(value)
        kind = 'a string or a list of strings' if single else 'a list of strings'
        raise ValueError(f"parameter '{name}' must be {kind}, got {value!r}")

    def load_controller(self, name: str, type_name: str | None = None) -> tuple[bool, str]:
        """Create controller `name` of `<name>.type` (UNCONFIGURED); (ok, message)."""
        with self.cm.admin_lock:
            if name in self.cm.controllers:
                return False, f"controller '{name}' is already loaded"
            type_name = type_name or self._param(f'{name}.type')
            if not type_name:
                return False, f"the 'type' param was not defined for '{name}'"
            if not isinstance(type_name, str):
                return False, f"parameter '{name}.type' must be a string, got {type_name!r}"
            try:
                cls = plugins.load(plugins.CONTROLLERS_GROUP, type_name, ControllerInterface)
            except plugins.PluginError as exc:
                return False, f"cannot load controller '{name}': {exc}"
            try:
                params_files = self._strings(f'{name}.params_file', single=True)
                node_options = self._strings(f'{name}.node_options_args')
                fallbacks = self._strings(f'{name}.fallback_controllers')
            except ValueError as exc:
                return False, f"cannot load controller '{name}': {exc}"
            if name in fallbacks:
                return False, f"controller '{name}' lists itself as a fallback controller"
            overrides = [Parameter('use_sim_time', value=bool(self._param('use_sim_time', False)))]
            cli_args = controller_node_arguments(self.manager_args, params_files, node_options)
            if len(cli_args) > 1:
                self.cm.logger.info(f"controller '{name}' node arguments: {' '.join(cli_args)}")
            controller = cls()
            try:
                ok = controller.init(
                    name,
                    robot_description=self.cm.rm.urdf,
                    cm_update_rate=self.cm.update_rate,
                    namespace=self.cm.node.get_namespace(),
                    cli_args=cli_args,
                    use_global_arguments=False,
                    context=self.cm.node.context,
                    parameter_overrides=overrides,
                )
            except Exception as exc:
                ok = False
                self.cm.logger.error(f"controller '{name}' failed to initialise: {exc!r}")
            if not ok:
                if controller.node is not None:
                    controller.node.destroy_node()
                return False, f"controller '{name}' ({type_name}) failed to initialise"
            try:
                with bounded_lock(self.cm.cycle_lock, f"load '{name}'"):
                    self.cm.controllers[name] = ControllerSpec(
                        name, type_name, controller, fallbacks
                    )
            except LoopBusyError as exc:
                controller.node.destroy_node()
                return False, str(exc)
            self._add_node(controller.node)
            self.cm.notify_changed()
            return True, f"loaded '{name}' ({type_name})"

    def _reserve(self, name: str, doing: str, refused: tuple[LifecycleStateId, ...]) -> str:
        """Check `name`'s state and mark it busy in one hold of the cycle lock (the loop's
        fallback activation may change a state, never of a busy controller); '' when
        reserved, else why not. Its exported interfaces go with the reservation."""
        with bounded_lock(self.cm.cycle_lock, f"{doing} '{name}'"):
            spec = self.cm.controllers.get(name)
            if spec is None:
                return f"controller '{name}' is not loaded"
            state = self.cm.state_of(name)
            if self.cm.is_running(name) or state in refused:
                label = 'active' if self.cm.is_running(name) else state.label
                return f"controller '{name}' is {label}: cannot {doing} it"
            spec.busy = doing
            if state == S.INACTIVE:
                self.cm.rm.remove_controller_interfaces(name)
            return ''

    def _done(self, name: str) -> None:
        spec = self.cm.controllers.get(name)
        if spec is not None:
            spec.busy = ''
        self.cm.notify_changed()

    def configure_controller(self, name: str) -> tuple[bool, str]:
        """UNCONFIGURED -> INACTIVE (an INACTIVE controller is cleaned up first)."""
        with self.cm.admin_lock:
            try:
                why = self._reserve(name, 'configure', (S.ACTIVE, S.FINALIZED))
            except LoopBusyError as exc:
                return False, str(exc)
            if why:
                return False, why
            try:
                return self._configure(name)
            finally:
                self._done(name)

    def _configure(self, name: str) -> tuple[bool, str]:
        spec = self.cm.controllers[name]
        node = spec.controller.get_node()
        if self.cm.state_of(name) == S.INACTIVE:
            node.trigger_cleanup()
            if self.cm.state_of(name) != S.UNCONFIGURED:  # refused, or on_error ran
                state = self.cm.state_of(name).label
                return (
                    False,
                    f"controller '{name}' failed to clean up (now {state}): not configured",
                )
        node.trigger_configure()
        if self.cm.state_of(name) != S.INACTIVE:
            return False, f"controller '{name}' failed to configure"
        if spec.is_chainable:
            ctrl: ChainableControllerInterface = spec.controller  # type: ignore[assignment]
            try:
                reference = ctrl.export_reference_interfaces()
                exported = ctrl.export_state_interfaces()
                with bounded_lock(self.cm.cycle_lock, f"configure '{name}'"):
                    self.cm.rm.add_controller_interfaces(name, reference, exported)
            except Exception as exc:
                node.trigger_cleanup()
                return False, f"controller '{name}' exported bad interfaces: {exc}"
        return True, f"configured '{name}'"

    def cleanup_controller(self, name: str) -> tuple[bool, str]:
        """INACTIVE -> UNCONFIGURED."""
        with self.cm.admin_lock:
            refused = (S.UNCONFIGURED, S.ACTIVE, S.FINALIZED)
            try:
                why = self._reserve(name, 'clean up', refused)
            except LoopBusyError as exc:
                return False, str(exc)
            if why:
                return False, why
            try:
                self.cm.controllers[name].controller.get_node().trigger_cleanup()
                return self.cm.state_of(name) == S.UNCONFIGURED, f"cleaned up '{name}'"
            finally:
                self._done(name)

    def unload_controller(self, name: str) -> tuple[bool, str]:
        """Shut down and destroy a controller that is not active."""
        with self.cm.admin_lock:
            try:
                why = self._reserve(name, 'unload', (S.ACTIVE,))
            except LoopBusyError as exc:
                return False, str(exc)
            if why:
                return False, why + ' (deactivate it before unloading)'
            spec = self.cm.controllers[name]
            node = spec.controller.get_node()
            if self.cm.state_of(name) == S.INACTIVE:
                node.trigger_cleanup()
            if self.cm.state_of(name) != S.FINALIZED:
                node.trigger_shutdown()
            try:
                with bounded_lock(self.cm.cycle_lock, f"unload '{name}'"):
                    del self.cm.controllers[name]
            except LoopBusyError as exc:
                self._done(name)
                return False, str(exc)
            self._remove_node(node)
            node.destroy_node()
            self.cm.notify_changed()
            return True, f"unloaded '{name}'"
