"""A client of the controller manager's services, shared by spawner, unspawner, the CLI,
the demo and the tests.

Every call waits for its service (forever, or up to `wait_timeout_s`) and retries a
call that times out, as upstream's spawner does; failures raise ServiceError.

Waiting is done in short slices, so a caller that passes `stop` (anything with
`is_set()`: a threading.Event, or a SignalStop set by SIGINT/SIGTERM) gets Interrupted
within about POLL_S of it being set, whether the client waits for the manager to appear
or for an answer.
"""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import controller_manager_msgs.srv as cm_srv
import rclpy
from lifecycle_msgs.msg import State
from rcl_interfaces.srv import SetParameters
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.signals import SignalHandlerOptions
from rclpy.utilities import remove_ros_args
from std_srvs.srv import Trigger

from py_controllers.controller_manager.tool_process import report_status

STRICT = cm_srv.SwitchController.Request.STRICT
BEST_EFFORT = cm_srv.SwitchController.Request.BEST_EFFORT


POLL_S = 0.1
"""Longest the client waits (for a service or an answer) before it looks at `stop` again."""
GRAPH_POLL_S = 0.02
"""How often the client looks whether a service has appeared: discovery takes 0.1-0.3 s, and
polling at POLL_S added 50 ms to it on average (rclpy offers no wait on the graph here)."""
TEARDOWN_BOUND_S = 10.0
"""Longest a tool waits for rclpy to tear its node down once its outcome is known."""


class ServiceError(RuntimeError):
    """A controller manager service is missing, timed out or answered with a failure."""


class Interrupted(Exception):  # noqa: N818 (it is not an error: someone asked us to stop)
    """The client's `stop` was set while it waited; the text says what it was waiting for."""


class Stop(Protocol):
    """What `ControllerManagerClient(stop=...)` needs: threading.Event and SignalStop fit."""

    def is_set(self) -> bool: ...


class SignalStop:
    """A stop flag set by signal handlers (`install()`), for `ControllerManagerClient`.

    Setting it takes no lock, unlike threading.Event.set(): a Python signal handler runs
    in the main thread between two bytecodes, possibly while that thread holds the very
    lock (or inside a first handler, when Ctrl-C arrives twice), which would deadlock.
    """

    def __init__(self) -> None:
        self.signum: int | None = None

    def is_set(self) -> bool:
        """True once a signal arrived (or `set()` was called)."""
        return self.signum is not None

    def set(self, signum: int = signal.SIGINT) -> None:
        """Remember the first signal; later ones change nothing."""
        if self.signum is None:
            self.signum = signum

    @property
    def name(self) -> str:
        """Name of the signal received ('SIGINT'), '' before one arrived."""
        return '' if self.signum is None else signal.Signals(self.signum).name

    def _handle(self, signum: int, _frame: Any) -> None:
        self.set(signum)

    def install(self, signals: Iterable[int] = (signal.SIGINT, signal.SIGTERM)) -> SignalStop:
        """Make `signals` set this flag (instead of raising or killing the process)."""
        for sig in signals:
            signal.signal(sig, self._handle)
        return self


def split_command_line(prog: str, argv: list[str]) -> tuple[list[str], list[str]]:
    """(the tool's own arguments, the arguments for rclpy.init) of a command line.

    As upstream's tools do, the ROS arguments (`--ros-args ... [--]`, anywhere on the line)
    go to rclpy, which takes `-r __ns:=/robot1` and `-r __node:=...` from them; everything
    else is the tool's.
    """
    full = [prog, *argv]
    return remove_ros_args(args=full)[1:], full


def run_command_line_tool(
    node_name: str, ros_argv: list[str], stop: SignalStop, work: Callable[[Node], bool]
) -> int:
    """Run a command-line tool's `work(node)` with rclpy up: 0 when it returns True, 1 when
    it returns False or a service fails (logged), 128 + signal number when interrupted."""
    rclpy.init(args=ros_argv, signal_handler_options=SignalHandlerOptions.NO)
    node = Node(node_name)
    status = 1
    try:
        status = 0 if work(node) else 1
    except ServiceError as exc:
        node.get_logger().error(str(exc))
    except Interrupted as exc:
        assert stop.signum is not None
        node.get_logger().warning(f'{stop.name} received {exc}: exiting')
        status = 128 + stop.signum
    finally:
        tear_down(node, status)
    return status


def tear_down(node: Node | None, status: int) -> None:
    """Report `status` to a tool's parent process (tool_process), then destroy `node` (None:
    it was never made) and shut rclpy down, within TEARDOWN_BOUND_S. rclpy's destroy_node has
    been seen to wait for good (jazzy, in DDS's teardown, rarely); a tool that a launch file
    waits for must not, and its work is done: past the bound a watchdog thread prints every
    thread's stack and ends the process with the work's `status`. Should the hung call hold
    the GIL (no thread can run then), faulthandler's C timer ends it at twice the bound, with
    status 1."""
    report_status(status)
    done = threading.Event()

    def watchdog() -> None:
        if done.wait(TEARDOWN_BOUND_S):
            return
        print(
            f'rclpy did not tear the node down within {TEARDOWN_BOUND_S:g} s; the work is '
            f'done: exiting with status {status}. Every thread:',
            file=sys.stderr,
            flush=True,
        )
        faulthandler.dump_traceback(all_threads=True)
        sys.stdout.flush()
        os._exit(status)

    threading.Thread(target=watchdog, name='teardown_watchdog', daemon=True).start()
    faulthandler.dump_traceback_later(2 * TEARDOWN_BOUND_S, exit=True)
    try:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    finally:
        done.set()
        faulthandler.cancel_dump_traceback_later()


def resolve_manager_name(node: Node, name: str) -> str:
    """Absolute name of the manager node: relative names live in the caller's namespace."""
    if name.startswith('/'):
        return name.rstrip('/')
    ns = node.get_namespace().rstrip('/')
    return f'{ns}/{name}'


class ControllerManagerClient:
    """Typed calls to `<manager>/<service>`."""

    def __init__(
        self,
        node: Node,
        manager: str = 'controller_manager',
        *,
        wait_timeout_s: float = 0.0,
        call_timeout_s: float = 10.0,
        retries: int = 3,
        executor: Any = None,
        stop: Stop | None = None,
    ) -> None:
        self.node = node
        self.manager = resolve_manager_name(node, manager)
        self.wait_timeout_s = wait_timeout_s
        self.call_timeout_s = call_timeout_s
        self.retries = retries
        self.executor = executor
        self.stop = stop
        self._clients: dict[str, Any] = {}

    def _client(self, srv_type: Any, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = self.node.create_client(srv_type, f'{self.manager}/{service}')
        return self._clients[service]

    def wait_for_manager(self) -> None:
        """Block until the manager's services exist (forever when wait_timeout_s is 0)."""
        self._wait(self._client(cm_srv.ListControllers, 'list_controllers'), 'list_controllers')

    def _check(self, doing: str) -> None:
        """Raise Interrupted if `stop` is set, ServiceError if ROS was shut down."""
        if self.stop is not None and self.stop.is_set():
            raise Interrupted(doing)
        if not self.node.context.ok():
            raise ServiceError(f'ROS was shut down {doing}')

    def _wait(self, client: Any, service: str) -> None:
        if client.service_is_ready():
            return
        name = f'{self.manager}/{service}'
        doing = f"while waiting for '{name}'"
        self.node.get_logger().info(f"waiting for '{name}'...")
        start = time.monotonic()
        next_warning = start + 10.0
        while True:
            self._check(doing)
            if client.service_is_ready():
                return
            now = time.monotonic()
            if self.wait_timeout_s > 0 and now - start >= self.wait_timeout_s:
                raise ServiceError(
                    f"controller manager '{self.manager}' not available: service "
                    f"'{service}' did not appear within {self.wait_timeout_s:g} s "
                    f'({self._graph_says(name)})'
                )
            if now >= next_warning:
                self.node.get_logger().warning(f"still waiting for '{name}'...")
                next_warning = now + 10.0
            # the graph is updated by the middleware's threads: nothing to spin here
            time.sleep(GRAPH_POLL_S)

    def _graph_says(self, name: str) -> str:
        """What the ROS graph knows of service `name`: no server at all (no manager, or
        discovery has not heard of it), or a server this client was never matched with."""
        servers = self.node.count_services(name)
        if servers:
            return (
                f'the ROS graph lists {servers} server(s) of it, but the middleware has not '
                'matched this client with one'
            )
        nodes = sorted(
            f'{ns.rstrip("/")}/{n}' for n, ns in self.node.get_node_names_and_namespaces()
        )
        return f'the ROS graph lists no server of it; nodes seen: {", ".join(nodes) or "none"}'

    def _spin(self, future: Any, timeout_s: float) -> None:
        if self.executor is not None:
            self.executor.spin_until_future_complete(future, timeout_sec=timeout_s)
        else:
            rclpy.spin_until_future_complete(self.node, future, timeout_sec=timeout_s)

    def spin_until(self, predicate: Callable[[], bool], timeout_s: float, doing: str) -> bool:
        """Serve the node's callbacks (e.g. a subscription) until `predicate()` holds; False
        after `timeout_s`. Interrupted when `stop` is set, as every wait of the client."""
        deadline = time.monotonic() + timeout_s
        while not predicate():
            self._check(doing)
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if self.executor is not None:
                self.executor.spin_once(timeout_sec=min(POLL_S, left))
            else:
                rclpy.spin_once(self.node, timeout_sec=min(POLL_S, left))
        return True

    def _await(self, client: Any, future: Any, service: str) -> None:
        """Spin until `future` is done, `call_timeout_s` passed, `stop` is set or the server
        disappeared, looking at each every POLL_S."""
        doing = f"during a call of '{self.manager}/{service}'"
        deadline = time.monotonic() + self.call_timeout_s
        while not future.done():
            try:
                self._check(doing)
            except (Interrupted, ServiceError):
                client.remove_pending_request(future)
                raise
            left = deadline - time.monotonic()
            if left <= 0:
                return
            if not client.service_is_ready():
                client.remove_pending_request(future)
                raise ServiceError(f"controller manager '{self.manager}' went away {doing}")
            self._spin(future, min(POLL_S, left))

    def call(self, srv_type: Any, service: str, request: Any) -> Any:
        """Call `service` and return its response; raises ServiceError, or Interrupted
        when `stop` is set before the answer arrived."""
        client = self._client(srv_type, service)
        self._wait(client, service)
        for attempt in range(1, self.retries + 1):
            self._check(f"before calling '{self.manager}/{service}'")
            future = client.call_async(request)
            self.node.get_logger().debug(f"'{self.manager}/{service}' called, awaiting the answer")
            self._await(client, future, service)
            if future.done():
                if future.exception() is not None:
                    raise ServiceError(f'{service} failed: {future.exception()}')
                return future.result()
            client.remove_pending_request(future)
            self.node.get_logger().warning(
                f"'{self.manager}/{service}' timed out (attempt {attempt}/{self.retries})"
            )
        raise ServiceError(f"'{self.manager}/{service}' did not answer after {self.retries} tries")

    # --- controllers -------------------------------------------------------------
    def list_controllers(self) -> list[Any]:
        """ControllerState messages of every loaded controller."""
        req = cm_srv.ListControllers.Request()
        return list(self.call(cm_srv.ListControllers, 'list_controllers', req).controller)

    def list_controller_types(self) -> list[tuple[str, str]]:
        """(type, base class) of every available controller type."""
        res = self.call(
            cm_srv.ListControllerTypes,
            'list_controller_types',
            cm_srv.ListControllerTypes.Request(),
        )
        return list(zip(res.types, res.base_classes))

    def _named(self, srv_type: Any, service: str, name: str) -> bool:
        return bool(self.call(srv_type, service, srv_type.Request(name=name)).ok)

    def load_controller(self, name: str) -> bool:
        """Load `name` (its `<name>.type` must be set on the manager)."""
        return self._named(cm_srv.LoadController, 'load_controller', name)

    def configure_controller(self, name: str) -> bool:
        """Configure `name`."""
        return self._named(cm_srv.ConfigureController, 'configure_controller', name)

    def cleanup_controller(self, name: str) -> bool:
        """Clean up `name`."""
        return self._named(cm_srv.CleanupController, 'cleanup_controller', name)

    def unload_controller(self, name: str) -> bool:
        """Unload `name`."""
        return self._named(cm_srv.UnloadController, 'unload_controller', name)

    def switch_controllers(
        self,
        activate: list[str],
        deactivate: list[str],
        *,
        strictness: int = STRICT,
        activate_asap: bool = False,
        timeout_s: float = 5.0,
    ) -> tuple[bool, str]:
        """Switch; (ok, message)."""
        req = cm_srv.SwitchController.Request(
            activate_controllers=activate,
            deactivate_controllers=deactivate,
            strictness=strictness,
            activate_asap=activate_asap,
        )
        req.timeout.sec, req.timeout.nanosec = divmod(round(timeout_s * 1e9), 1_000_000_000)
        res = self.call(cm_srv.SwitchController, 'switch_controller', req)
        return bool(res.ok), str(res.message)

    # --- hardware -----------------------------------------------------------------
    def list_hardware_components(self) -> list[Any]:
        """HardwareComponentState messages."""
        res = self.call(
            cm_srv.ListHardwareComponents,
            'list_hardware_components',
            cm_srv.ListHardwareComponents.Request(),
        )
        return list(res.component)

    def list_hardware_interfaces(self) -> tuple[list[Any], list[Any]]:
        """(command, state) HardwareInterface messages."""
        res = self.call(
            cm_srv.ListHardwareInterfaces,
            'list_hardware_interfaces',
            cm_srv.ListHardwareInterfaces.Request(),
        )
        return list(res.command_interfaces), list(res.state_interfaces)

    def set_hardware_component_state(self, name: str, label: str) -> tuple[bool, str]:
        """Drive component `name` to `label`; (ok, resulting state label)."""
        req = cm_srv.SetHardwareComponentState.Request(name=name, target_state=State(label=label))
        res = self.call(cm_srv.SetHardwareComponentState, 'set_hardware_component_state', req)
        return bool(res.ok), str(res.state.label)

    # --- parameters and statistics ------------------------------------------------
    def set_parameters(self, values: dict[str, Any]) -> None:
        """Set parameters on the manager node (e.g. `<controller>.type`)."""
        req = SetParameters.Request(
            parameters=[Parameter(k, value=v).to_parameter_msg() for k, v in values.items()]
        )
        res = self.call(SetParameters, 'set_parameters', req)
        failed = [
            f'{p.name}: {r.reason}' for p, r in zip(req.parameters, res.results) if not r.successful
        ]
        if failed:
            raise ServiceError(f'setting manager parameters failed: {failed}')

    def statistics(self) -> dict:
        """The loop statistics as a dict."""
        res = self.call(Trigger, 'get_statistics', Trigger.Request())
        return json.loads(res.message)

    def reset_statistics(self) -> None:
        """Start a new statistics window."""
        self.call(Trigger, 'reset_statistics', Trigger.Request())
