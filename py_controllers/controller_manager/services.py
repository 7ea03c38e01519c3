"""The controller manager's ROS API: ros2_control's services, activity and statistics.

Every callback translates a controller_manager_msgs request into a ControllerManager
call and the result back; errors are logged and returned in the response. A callback that
raises still answers (`ok`/`success` false, the error logged): no client is left waiting.
"""

from __future__ import annotations

import gc
import json
from concurrent.futures import Future
from typing import Any

import controller_manager_msgs.msg as cm_msg
import controller_manager_msgs.srv as cm_srv
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from lifecycle_msgs.msg import State
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.task import Future as RclpyFuture
from std_srvs.srv import Trigger

from py_controllers import compiled, plugins
from py_controllers.callback_guard import answering
from py_controllers.controller_manager.manager import ControllerManager
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.ros_conversions import duration_to_s

S = LifecycleStateId


class ManagerServices:
    """Creates the `~/...` services and publishers of the controller manager node."""

    def __init__(self, node: Node, manager: ControllerManager, loop: Any) -> None:
        self.node = node
        self.cm = manager
        self.loop = loop

        # A waiting set_hardware_component_state must not hold the node's default
        # (mutually exclusive) group, or every other callback would wait with it.
        self._waiting_group = ReentrantCallbackGroup()

        def srv(srv_type: Any, name: str, callback: Any, group: Any = None) -> None:
            guarded = answering(callback, node.get_logger())
            node.create_service(srv_type, name, guarded, callback_group=group)

        srv(cm_srv.ListControllers, '~/list_controllers', self._list_controllers)
        srv(cm_srv.ListControllerTypes, '~/list_controller_types', self._list_types)
        srv(cm_srv.LoadController, '~/load_controller', self._load)
        srv(cm_srv.ConfigureController, '~/configure_controller', self._configure)
        srv(cm_srv.CleanupController, '~/cleanup_controller', self._cleanup)
        srv(cm_srv.UnloadController, '~/unload_controller', self._unload)
        srv(cm_srv.SwitchController, '~/switch_controller', self._switch)
        srv(cm_srv.ListHardwareComponents, '~/list_hardware_components', self._list_hw)
        srv(cm_srv.ListHardwareInterfaces, '~/list_hardware_interfaces', self._list_itfs)
        srv(
            cm_srv.SetHardwareComponentState,
            '~/set_hardware_component_state',
            self._set_hw,
            self._waiting_group,
        )
        srv(cm_srv.ReloadControllerLibraries, '~/reload_controller_libraries', self._reload)
        srv(Trigger, '~/get_statistics', self._get_statistics)
        srv(Trigger, '~/reset_statistics', self._reset_statistics)
        latched = QoSProfile(
            depth=1,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        )
        self._activity_pub = node.create_publisher(
            cm_msg.ControllerManagerActivity, '~/activity', latched
        )
        self._diag_pub = node.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self._activity_seen = -1
        # The manager wakes this guard condition when something changed (~/activity goes
        # out) and when the loop handed work to the executor (logs, ROS calls).
        wake = node.create_guard_condition(self._on_wake)
        manager.on_change = wake.trigger
        manager.deferred.wake = wake.trigger
        self._publish_activity_if_changed()
        node.create_timer(1.0, self._publish_diagnostics)

    def _on_wake(self) -> None:
        self.cm.deferred.run_pending()
        self._publish_activity_if_changed()

    # --- controllers -------------------------------------------------------------
    def _list_controllers(self, request: Any, response: Any) -> Any:
        cm = self.cm
        for name, spec in list(cm.controllers.items()):
            ctrl = spec.controller
            state = cm.state_of(name)
            required_cmd, required_state = cm.required_interfaces(spec)
            chain = [
                cm_msg.ChainConnection(
                    name=follower,
                    reference_interfaces=[i for i in required_cmd if cm.rm.owner_of(i) == follower],
                )
                for follower in cm.following(name)
            ]
            exported = cm.rm.exported_by(name)
            response.controller.append(
                cm_msg.ControllerState(
                    name=name,
                    state=state.label,
                    type=spec.type,
                    is_async=ctrl.is_async,
                    update_rate=int(ctrl.update_rate),
                    claimed_interfaces=list(spec.claimed),
                    required_command_interfaces=required_cmd,
                    required_state_interfaces=required_state,
                    is_chainable=spec.is_chainable,
                    is_chained=bool(getattr(ctrl, 'is_in_chained_mode', lambda: False)()),
                    exported_state_interfaces=[i for i in exported if i in cm.rm.state_interfaces],
                    reference_interfaces=[i for i in exported if i in cm.rm.command_interfaces],
                    chain_connections=chain,
                )
            )
        return response

    def _list_types(self, request: Any, response: Any) -> Any:
        group = plugins.CONTROLLERS_GROUP
        for name in plugins.available(group):
            response.types.append(name)
            response.base_classes.append(plugins.base_class_name(group, name))
        return response

    def _load(self, request: Any, response: Any) -> Any:
        response.ok, message = self.cm.load_controller(request.name)
        self._log(response.ok, message)
        return response

    def _configure(self, request: Any, response: Any) -> Any:
        response.ok, message = self.cm.configure_controller(request.name)
        self._log(response.ok, message)
        return response

    def _cleanup(self, request: Any, response: Any) -> Any:
        response.ok, message = self.cm.cleanup_controller(request.name)
        self._log(response.ok, message)
        return response

    def _unload(self, request: Any, response: Any) -> Any:
        response.ok, message = self.cm.unload_controller(request.name)
        self._log(response.ok, message)
        return response

    def _switch(self, request: Any, response: Any) -> Any:
        response.ok, response.message = self.cm.switch_controller(
            list(request.activate_controllers),
            list(request.deactivate_controllers),
            int(request.strictness),
            timeout_s=duration_to_s(request.timeout),
        )
        self._log(response.ok, f'switch_controller: {response.message}')
        return response

    def _reload(self, request: Any, response: Any) -> Any:
        cm = self.cm
        active = cm.active_controllers()
        if active and not request.force_kill:
            self.node.get_logger().error(
                f'reload_controller_libraries: controllers are active {active}; '
                'use force_kill to deactivate them'
            )
            response.ok = False
            return response
        if active:
            cm.switch_controller([], active, 1)
        response.ok = all(cm.unload_controller(n)[0] for n in list(cm.controllers))
        reloaded, errors = plugins.reload(plugins.CONTROLLERS_GROUP)
        log = self.node.get_logger()
        log.info(f'reload_controller_libraries: re-imported {reloaded}')
        if errors:
            log.error(f'reload_controller_libraries: could not re-import {errors}')
            response.ok = False
        return response

    # --- hardware -----------------------------------------------------------------
    def _interface_msgs(self, names: list[str], command: bool) -> list[Any]:
        rm = self.cm.rm
        table = rm.command_interfaces if command else rm.state_interfaces
        available = rm.is_command_available if command else rm.is_state_available
        return [
            cm_msg.HardwareInterface(
                name=n,
                data_type=table[n].data_type,
                is_available=available(n),
                is_claimed=command and n in rm.claimed,  # state interfaces: never, as upstream
            )
            for n in names
        ]

    def _list_hw(self, request: Any, response: Any) -> Any:
        rm = self.cm.rm
        for name, managed in rm.components.items():
            cmd, state = rm.interfaces_of(name)
            response.component.append(
                cm_msg.HardwareComponentState(
                    name=name,
                    type=managed.type,
                    is_async=bool(getattr(managed.info, 'is_async', False)),
                    rw_rate=int(getattr(managed.info, 'rw_rate', 0) or self.cm.update_rate),
                    plugin_name=managed.info.plugin,
                    state=State(id=int(managed.state), label=managed.state.label),
                    command_interfaces=self._interface_msgs(cmd, True),
                    state_interfaces=self._interface_msgs(state, False),
                )
            )
        return response

    def _list_itfs(self, request: Any, response: Any) -> Any:
        rm = self.cm.rm
        response.command_interfaces = self._interface_msgs(list(rm.command_interfaces), True)
        response.state_interfaces = self._interface_msgs(list(rm.state_interfaces), False)
        return response

    async def _set_hw(self, request: Any, response: Any) -> Any:
        """The transition runs in a thread of its own: the executor serves other callbacks
        (and the loop runs) while this one waits for it."""
        target = request.target_state
        try:
            goal = S(target.id) if target.id else S.from_label(target.label)
        except ValueError as exc:
            self.node.get_logger().error(f'set_hardware_component_state: {exc}')
            response.ok = False
            return response
        ok, state = await self._wait(self.cm.supervisor.request_hardware_state(request.name, goal))
        response.ok = ok
        if state is not None:
            response.state = State(id=int(state), label=state.label)
        self._log(ok, f"hardware '{request.name}' -> {goal.label}: {'ok' if ok else 'failed'}")
        return response

    async def _wait(self, future: Future) -> Any:
        """Await a concurrent future from an executor callback without blocking the executor."""
        done = RclpyFuture()
        wake = self.node.create_guard_condition(lambda: None, self._waiting_group)

        def finished(f: Future) -> None:
            done.set_result(f.result())
            wake.trigger()  # resumes the waiting callback

        future.add_done_callback(finished)
        try:
            return await done
        finally:
            self.node.destroy_guard_condition(wake)

    # --- statistics and activity ----------------------------------------------------
    def statistics(self) -> dict:
        """Loop statistics with per-controller execution times."""
        per_controller = {n: s.execution for n, s in list(self.cm.controllers.items())}
        wake_up = getattr(self.loop, 'wake_up', None)  # a stepped manager's loop has none
        return {
            **self.loop.stats.snapshot(per_controller),
            'hot_path': compiled.variant(),
            'spin_us': None if wake_up is None else wake_up.spin_ns / 1000,
            # each collection holds the GIL, and so the loop: how many objects it leaves out
            # (start-up's, ros2_control_node freezes them) and how many collections ran
            'cycle_collector': {
                'frozen_objects': gc.get_freeze_count(),
                'collections': [generation['collections'] for generation in gc.get_stats()],
            },
        }

    def _get_statistics(self, request: Any, response: Any) -> Any:
        response.success = True
        response.message = json.dumps(self.statistics())
        return response

    def _reset_statistics(self, request: Any, response: Any) -> Any:
        """Start a new measurement window (a sample recorded meanwhile may be lost)."""
        self.loop.stats.clear()
        for spec in list(self.cm.controllers.values()):
            spec.execution.clear()
        response.success = True
        response.message = 'statistics cleared'
        return response

    def publish_diagnostics(self) -> None:
        """The loop's figures on /diagnostics; ERROR when the loop has ended on a failure."""
        self._publish_diagnostics()

    def _publish_diagnostics(self) -> None:
        stats = self.loop.stats.brief()
        period = stats['period']
        failure = getattr(self.loop, 'failure', None)
        level, message = (
            DiagnosticStatus.OK,
            f'{stats["measured_rate_hz"]:.1f} Hz measured, {stats["overruns"]} overruns',
        )
        if failure is not None:
            level, message = DiagnosticStatus.ERROR, f'control loop stopped: {failure!r}'
        elif getattr(self.loop, 'stall', None):
            level, message = DiagnosticStatus.ERROR, self.loop.stall
        status = DiagnosticStatus(
            level=level,
            name=f'{self.node.get_name()}: Controllers Activity',
            hardware_id=self.node.get_fully_qualified_name(),
            message=message,
            values=[
                KeyValue(key=k, value=f'{v:.3f}' if isinstance(v, float) else str(v))
                for k, v in [
                    ('hot_path', compiled.variant()),
                    ('update_rate_hz', stats['update_rate_hz']),
                    ('measured_rate_hz', stats['measured_rate_hz']),
                    ('period_mean_us', period['mean_us']),
                    ('period_stddev_us', period['stddev_us']),
                    ('period_min_us', period['min_us']),
                    ('period_max_us', period['max_us']),
                    ('execution_mean_us', stats['execution']['mean_us']),
                    ('execution_max_us', stats['execution']['max_us']),
                    ('overruns', stats['overruns']),
                ]
            ],
        )
        msg = DiagnosticArray(status=[status])
        msg.header.stamp = self.node.get_clock().now().to_msg()
        self._diag_pub.publish(msg)

    def _publish_activity_if_changed(self) -> None:
        version = self.cm.activity_version
        if version == self._activity_seen:
            return
        self._activity_seen = version
        cm = self.cm
        msg = cm_msg.ControllerManagerActivity()
        msg.header.stamp = self.node.get_clock().now().to_msg()
        for name in list(cm.controllers):
            state = cm.state_of(name)
            msg.controllers.append(
                cm_msg.NamedLifecycleState(name=name, state=State(id=int(state), label=state.label))
            )
        for name, managed in cm.rm.components.items():
            msg.hardware_components.append(
                cm_msg.NamedLifecycleState(
                    name=name, state=State(id=int(managed.state), label=managed.state.label)
                )
            )
        self._activity_pub.publish(msg)

    def _log(self, ok: bool, message: str) -> None:
        # rclpy ties a severity to each call site: one call per severity
        if ok:
            self.node.get_logger().info(message)
        else:
            self.node.get_logger().error(message)
