"""The controller contract of ros2_control, in Python.

A controller is a lifecycle-managed object with its own rclpy node named after it, so
`~/commands` resolves to `/<controller>/commands` and its parameters come from the
`<controller>: ros__parameters:` section of the YAML. The controller manager drives the
lifecycle and calls `update(time, period)` on active controllers from the control loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node

from py_controllers.callback_guard import answering, guarded
from py_controllers.controller_interface.interface_configuration import InterfaceConfiguration
from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.hardware_interface.types import CallbackReturn, LifecycleStateId, ReturnType
from py_controllers.lifecycle import LifecycleMachine, as_callback_return
from py_controllers.realtime_tools.deferred import log_at

__all__ = [
    'CallbackReturn',
    'ControllerInterface',
    'InterfaceConfiguration',
    'ReturnType',
]

S = LifecycleStateId
ASYNC_UNSUPPORTED = (
    "'is_async: true' is not supported for controllers yet (every controller runs in the "
    'control loop): leave it false'
)


class _ControllerNode(Node):
    """The controller's node (named after it): parameters, topics, services, logging.

    Every subscription, service and timer a controller creates on it is guarded: a callback
    that raises is logged (throttled) instead of reaching the executor, and a service
    still answers (`ok`/`success` false), so bad input never takes anything down.

    The one way to handle ROS entities: create them in on_configure and forget them. What
    a controller creates during on_configure (publishers, subscriptions, services, clients,
    timers, guard conditions, and whatever it hands to `destroy_on_cleanup`, e.g. an action
    server) is destroyed after on_cleanup, on_shutdown or on_error, and when on_configure
    fails. The `trigger_*` methods drive the lifecycle, as on rclpy's LifecycleNode.
    """

    def __init__(self, controller: ControllerInterface, name: str, **kwargs: Any) -> None:
        self._controller = controller
        self._recording = False  # inside on_configure: created entities are the controller's
        self._owned: list[Callable[[], Any]] = []
        self._with_node: list[Callable[[], Any]] = []
        super().__init__(name, **kwargs)

    def _own(self, entity: Any, destroy: Callable[[Any], Any]) -> Any:
        if self._recording:
            self._owned.append(lambda: destroy(entity))
        return entity

    def destroy_on_cleanup(self, destroy: Callable[[], Any]) -> None:
        """Have `destroy()` called when the configured entities go (cleanup, shutdown, error)."""
        self._owned.append(destroy)

    def destroy_with_node(self, destroy: Callable[[], Any]) -> None:
        """Have `destroy()` called when the node is destroyed (once, before its entities)."""
        if destroy not in self._with_node:
            self._with_node.append(destroy)

    def destroy_node(self) -> None:
        self._destroy_all(self._with_node)
        super().destroy_node()

    def destroy_configured_entities(self) -> None:
        """Destroy what on_configure created, newest first (a failure is logged, not raised)."""
        self._destroy_all(self._owned)

    def _destroy_all(self, destroyers: list[Callable[[], Any]]) -> None:
        while destroyers:
            destroy = destroyers.pop()
            try:
                destroy()
            except Exception as exc:
                self.get_logger().error(f'destroying a ROS entity failed: {exc!r}')

    def create_publisher(self, *args: Any, **kw: Any) -> Any:
        return self._own(super().create_publisher(*args, **kw), self.destroy_publisher)

    def create_client(self, *args: Any, **kw: Any) -> Any:
        return self._own(super().create_client(*args, **kw), self.destroy_client)

    def create_guard_condition(self, *args: Any, **kw: Any) -> Any:
        return self._own(super().create_guard_condition(*args, **kw), self.destroy_guard_condition)

    def create_subscription(
        self, msg_type: Any, topic: str, callback: Any, *args: Any, **kw: Any
    ) -> Any:
        where = f'{self.get_name()}: {topic}'
        return self._own(
            super().create_subscription(
                msg_type, topic, guarded(callback, self.get_logger(), where), *args, **kw
            ),
            self.destroy_subscription,
        )

    def create_service(self, srv_type: Any, srv_name: str, callback: Any, **kw: Any) -> Any:
        return self._own(
            super().create_service(
                srv_type, srv_name, answering(callback, self.get_logger()), **kw
            ),
            self.destroy_service,
        )

    def create_timer(self, timer_period_sec: float, callback: Any, *args: Any, **kw: Any) -> Any:
        where = f'{self.get_name()}: timer'
        return self._own(
            super().create_timer(
                timer_period_sec, guarded(callback, self.get_logger(), where), *args, **kw
            ),
            self.destroy_timer,
        )

    def trigger_configure(self) -> CallbackReturn:
        return self._controller.lifecycle.transition(S.INACTIVE)

    def trigger_cleanup(self) -> CallbackReturn:
        return self._controller.lifecycle.transition(S.UNCONFIGURED)

    def trigger_activate(self) -> CallbackReturn:
        return self._controller.lifecycle.transition(S.ACTIVE)

    def trigger_deactivate(self) -> CallbackReturn:
        return self._controller.lifecycle.transition(S.INACTIVE)

    def trigger_shutdown(self) -> LifecycleStateId:
        return self._controller.lifecycle.shutdown()


class ControllerInterface:
    """Base class of every controller (ros2_control's ControllerInterface)."""

    def __init__(self) -> None:
        self.node: Node | None = None
        self.lifecycle = LifecycleMachine(self._run_hook, 'controller', self._log)
        self.command_interfaces: list[CommandInterface] = []
        self.state_interfaces: list[StateInterface] = []
        self.robot_description = ''
        self.cm_update_rate = 100
        self.update_rate = 100
        self.is_async = False

    # --- set up by the manager ----------------------------------------------------
    def init(
        self,
        controller_name: str,
        *,
        robot_description: str = '',
        cm_update_rate: int = 100,
        namespace: str = '',
        cli_args: list[str] | None = None,
        use_global_arguments: bool = True,
        context: Any = None,
        parameter_overrides: list[Any] | None = None,
    ) -> bool:
        """Create the node, declare the base parameters and run on_init(). The manager
        passes `use_global_arguments=False` with its own arguments in `cli_args`, as upstream."""
        self.robot_description = robot_description
        self.cm_update_rate = cm_update_rate
        self.node = _ControllerNode(
            self,
            controller_name,
            namespace=namespace,
            context=context,
            cli_args=cli_args,
            use_global_arguments=use_global_arguments,
            parameter_overrides=parameter_overrides or [],
        )
        self.lifecycle.name = f"controller '{controller_name}'"
        self.node.declare_parameter('update_rate', cm_update_rate)
        self.node.declare_parameter('is_async', False)
        self.node.add_on_set_parameters_callback(self._check_base_parameters)
        return self.lifecycle.call('on_init') == CallbackReturn.SUCCESS

    def _run_hook(self, hook: str, previous: LifecycleStateId) -> Any:
        """The lifecycle's way into the controller's hooks (on_init takes no state); ROS
        entities created in on_configure go with cleanup, shutdown, error or a failure."""
        if hook == 'on_init':
            return self.on_init()
        node = self.node
        if hook == 'on_configure':
            node._recording = True
            try:
                result = self.on_configure(previous)
                if as_callback_return(result) == CallbackReturn.SUCCESS:
                    result = self._after_configure()
            finally:
                node._recording = False
            if as_callback_return(result) != CallbackReturn.SUCCESS:
                node.destroy_configured_entities()
            return result
        try:
            return getattr(self, hook)(previous)
        finally:
            if hook in ('on_cleanup', 'on_shutdown', 'on_error'):
                node.destroy_configured_entities()

    def _log(self, level: str, text: str) -> None:
        if self.node is not None:
            log_at(self.node.get_logger(), level, text)

    @staticmethod
    def _check_base_parameters(parameters: list[Any]) -> SetParametersResult:
        for parameter in parameters:
            if parameter.name == 'update_rate' and not (
                isinstance(parameter.value, int) and parameter.value >= 0
            ):
                return SetParametersResult(
                    successful=False,
                    reason=f"'update_rate' must be an integer >= 0, got {parameter.value!r}",
                )
            if parameter.name == 'is_async' and parameter.value is not False:
                return SetParametersResult(successful=False, reason=ASYNC_UNSUPPORTED)
        return SetParametersResult(successful=True)

    def _after_configure(self) -> CallbackReturn:
        """Apply the base parameters (update_rate, is_async) like upstream's configure."""
        rate = int(self.node.get_parameter('update_rate').value)
        cm = self.cm_update_rate
        log = self.node.get_logger()
        if rate < 0:
            log.error(f"parameter 'update_rate' must be >= 0, got {rate}")
            return CallbackReturn.ERROR
        if rate == 0 or rate > cm:
            if rate > cm:
                log.warning(f'update_rate {rate} Hz is above the manager rate; using {cm} Hz')
            rate = cm
        elif cm % rate:
            # the closest rate the loop can keep, in whole Hz as upstream (list_controllers
            # reports it): every round(cm / rate)-th cycle
            effective = cm // round(cm / rate)
            log.warning(
                f'update_rate {rate} Hz is not achievable with the manager at {cm} Hz: '
                f'runs at {effective} Hz'
            )
            rate = effective
        self.update_rate = rate
        if self.node.get_parameter('is_async').value:
            log.error(ASYNC_UNSUPPORTED)
            return CallbackReturn.ERROR
        return CallbackReturn.SUCCESS

    def get_node(self) -> Node:
        """The controller's rclpy node."""
        assert self.node is not None, 'controller is not initialised'
        return self.node

    @property
    def name(self) -> str:
        """The controller name (= node name)."""
        return self.get_node().get_name()

    def lifecycle_state(self) -> LifecycleStateId:
        """Current primary lifecycle state."""
        return self.lifecycle.state

    def assign_interfaces(
        self, command: list[CommandInterface], state: list[StateInterface]
    ) -> None:
        """Called by the manager on activation, in the configured order."""
        self.command_interfaces = command
        self.state_interfaces = state

    def release_interfaces(self) -> None:
        """Called by the manager after deactivation."""
        self.command_interfaces = []
        self.state_interfaces = []

    # --- the contract (override) ----------------------------------------------------
    def on_init(self) -> CallbackReturn:
        """Declare parameters; runs once when the controller is loaded."""
        return CallbackReturn.SUCCESS

    def command_interface_configuration(self) -> InterfaceConfiguration:
        """Command interfaces to claim on activation (valid after configure)."""
        return InterfaceConfiguration.none()

    def state_interface_configuration(self) -> InterfaceConfiguration:
        """State interfaces to read (valid after configure)."""
        return InterfaceConfiguration.none()

    def on_configure(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Read and validate parameters, create topics and services."""
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Interfaces are assigned; get ready to be updated."""
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Leave the hardware safe; interfaces are released right after."""
        return CallbackReturn.SUCCESS

    def on_cleanup(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Undo on_configure."""
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Recover after an error in a transition."""
        return CallbackReturn.SUCCESS

    def on_shutdown(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Final clean-up before the controller is unloaded."""
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> ReturnType:
        """One control step: read state interfaces, write command interfaces.

        `time` is an rclpy Time (the manager's clock), `period` an rclpy Duration measured
        on a monotonic clock. Runs in the control loop: no blocking calls, no logging at
        normal levels.
        """
        return ReturnType.OK
