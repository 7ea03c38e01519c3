"""The dashboard's ROS side: one rclpy node in its own context, spun by its own thread.

Every rclpy call runs on that thread: the web server's event loop only hands work over
(`Executor.create_task`, which takes a lock for a moment and never waits for the
middleware) and awaits the answer as an asyncio future. Service calls and action goals
have timeouts; a missing service is reported at once instead of waited for.
Subscriptions keep the latest message (and, on request, a bounded history) for the pages
to read.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import rclpy
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.srv import GetParameters, ListParameters
from rclpy.action import ActionClient
from rclpy.action.client import ClientGoalHandle
from rclpy.clock import Clock, ClockType
from rclpy.context import Context
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from unique_identifier_msgs.msg import UUID

from py_controllers.type_registration import message_types, register_message_types

LOG = logging.getLogger('py_controllers.dashboard')


class NotAvailableError(RuntimeError):
    """The service or action server is not there (no such node, or it went away)."""


class CallFailedError(RuntimeError):
    """A call timed out or raised; the text says which and why."""


@dataclass
class Latest:
    """The most recent message on a topic, how many arrived, and an optional history of
    (monotonic time, message) at most every `min_interval_s`."""

    keep: int = 0
    min_interval_s: float = 0.0
    msg: Any = None
    count: int = 0
    received_at: float = 0.0

    def __post_init__(self) -> None:
        self.history: deque[tuple[float, Any]] = deque(maxlen=max(self.keep, 1))

    def on_message(self, msg: Any) -> None:
        """Subscription callback (the ROS thread)."""
        now = time.monotonic()
        self.msg, self.count = msg, self.count + 1
        if self.keep and (not self.history or now - self.history[-1][0] >= self.min_interval_s):
            self.history.append((now, msg))
        self.received_at = now


def parameter_value(value: Any) -> Any:
    """Python value of an rcl_interfaces/ParameterValue (None when not set)."""
    t = value.type
    simple = {
        ParameterType.PARAMETER_BOOL: 'bool_value',
        ParameterType.PARAMETER_INTEGER: 'integer_value',
        ParameterType.PARAMETER_DOUBLE: 'double_value',
        ParameterType.PARAMETER_STRING: 'string_value',
    }
    arrays = {
        ParameterType.PARAMETER_BYTE_ARRAY: 'byte_array_value',
        ParameterType.PARAMETER_BOOL_ARRAY: 'bool_array_value',
        ParameterType.PARAMETER_INTEGER_ARRAY: 'integer_array_value',
        ParameterType.PARAMETER_DOUBLE_ARRAY: 'double_array_value',
        ParameterType.PARAMETER_STRING_ARRAY: 'string_array_value',
    }
    if t in simple:
        return getattr(value, simple[t])
    if t in arrays:
        return list(getattr(value, arrays[t]))
    return None


class RosBridge:
    """An rclpy node spun in a background thread, with asyncio-friendly calls."""

    def __init__(
        self, node_name: str = 'py_controllers_dashboard', *, ros_args: Any = None
    ) -> None:
        register_message_types(message_types())  # before the node discovers anyone
        self.context = Context()
        rclpy.init(
            args=ros_args,
            context=self.context,
            signal_handler_options=SignalHandlerOptions.NO,
        )
        self.node = rclpy.create_node(node_name, context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._clients: dict[str, Any] = {}
        self._actions: dict[str, Any] = {}
        self._topics: dict[str, Latest] = {}
        self._publishers: dict[str, Any] = {}
        self._running = False
        self._thread = threading.Thread(target=self._spin, name='dashboard-ros', daemon=True)

    # --- the thread -------------------------------------------------------------------
    def start(self) -> None:
        """Start spinning."""
        self._running = True
        self._thread.start()

    def _spin(self) -> None:
        while self._running and self.context.ok():
            try:
                self.executor.spin_once(timeout_sec=0.1)
            except ExternalShutdownException:
                break
            except Exception:  # one bad callback must not end the dashboard's ROS side
                LOG.exception('error in a ROS callback of the dashboard')

    def close(self) -> None:
        """Stop the thread, destroy the node, shut the context down."""
        if not self._running:
            return
        self._running = False
        self._thread.join(timeout=2.0)
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)

    def in_ros(self, fn: Callable[..., Any], *args: Any) -> concurrent.futures.Future:
        """Run `fn(*args)` on the ROS thread; its result (or exception) in a future."""
        out: concurrent.futures.Future = concurrent.futures.Future()
        if not self._running:
            out.set_exception(NotAvailableError('the dashboard is shutting down'))
            return out

        def run() -> None:
            if out.set_running_or_notify_cancel():
                try:
                    out.set_result(fn(*args))
                except BaseException as exc:
                    out.set_exception(exc)

        self.executor.create_task(run)
        return out

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`in_ros`, awaited."""
        return await asyncio.wrap_future(self.in_ros(fn, *args))

    # --- services -----------------------------------------------------------------------
    def _client(self, srv_type: Any, service: str) -> Any:
        """(ROS thread) the cached client of `service`."""
        if service not in self._clients:
            self._clients[service] = self.node.create_client(srv_type, service)
        return self._clients[service]

    def prepare(self, services: list[tuple[Any, str]]) -> None:
        """Create these service clients now, so discovery is done before the first call."""
        for srv_type, service in services:
            self.in_ros(self._client, srv_type, service)

    async def service_ready(self, srv_type: Any, service: str) -> bool:
        """True when a server of `service` is there."""
        return await self.run(lambda: self._client(srv_type, service).service_is_ready())

    async def call(
        self, srv_type: Any, service: str, request: Any, *, timeout_s: float = 5.0
    ) -> Any:
        """Call `service` and return its response; raises NotAvailableError at once when there is
        no server, CallFailedError when it does not answer within `timeout_s` or fails."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future = loop.create_future()

        def on_answer(f: Any) -> None:
            exc = f.exception()
            _threadsafe(loop, _settle, answer, None if exc else f.result(), exc)

        def start() -> tuple[Any, Any]:
            client = self._client(srv_type, service)
            if not client.service_is_ready():
                raise NotAvailableError(f"service '{service}' is not available")
            future = client.call_async(request)
            future.add_done_callback(on_answer)
            return client, future

        client, future = await asyncio.wrap_future(self.in_ros(start))
        try:
            return await asyncio.wait_for(answer, timeout_s)
        except asyncio.TimeoutError:
            self.in_ros(client.remove_pending_request, future)
            raise CallFailedError(f"'{service}' did not answer within {timeout_s:g} s") from None

    async def get_parameters(self, node: str, names: list[str]) -> dict[str, Any]:
        """Values of `names` on `node` (a fully qualified name); unset ones are None."""
        res = await self.call(
            GetParameters, f'{node}/get_parameters', GetParameters.Request(names=names)
        )
        return {n: parameter_value(v) for n, v in zip(names, res.values)}

    async def list_parameters(self, node: str) -> list[str]:
        """Names of every parameter of `node`."""
        res = await self.call(
            ListParameters, f'{node}/list_parameters', ListParameters.Request(depth=0)
        )
        return list(res.result.names)

    # --- topics ----------------------------------------------------------------------------
    def watch(
        self,
        msg_type: Any,
        topic: str,
        *,
        qos: Any = 10,
        keep: int = 0,
        min_interval_s: float = 0.0,
    ) -> Latest:
        """The Latest of `topic`, subscribing on first use (the subscription is made on the
        ROS thread; until then it simply has no message)."""
        latest = self._topics.get(topic)
        if latest is None:
            latest = self._topics[topic] = Latest(keep=keep, min_interval_s=min_interval_s)
            self.in_ros(self.node.create_subscription, msg_type, topic, latest.on_message, qos)
        return latest

    def publisher(self, msg_type: Any, topic: str, qos: Any = 10) -> Any:
        """(ROS thread) the cached publisher of `topic`."""
        if topic not in self._publishers:
            self._publishers[topic] = self.node.create_publisher(msg_type, topic, qos)
        return self._publishers[topic]

    def publish(self, msg_type: Any, topic: str, msg: Any, qos: Any = 10) -> None:
        """Publish `msg` from the ROS thread (returns at once)."""
        self.in_ros(lambda: self.publisher(msg_type, topic, qos).publish(msg))

    def timer(self, period_s: float, callback: Callable[[], None]) -> None:
        """A timer on the ROS thread, on the steady clock: it keeps its pace when the node
        follows a simulation's /clock (paused, or slower than real time)."""
        steady = Clock(clock_type=ClockType.STEADY_TIME)
        self.in_ros(lambda: self.node.create_timer(period_s, callback, clock=steady))

    # --- actions -----------------------------------------------------------------------
    def _action(self, action_type: Any, name: str) -> Any:
        if name not in self._actions:
            self._actions[name] = ActionClient(self.node, action_type, name)
        return self._actions[name]

    def prepare_action(self, action_type: Any, name: str) -> None:
        """Create the action client now, so the server is discovered before the first goal."""
        self.in_ros(self._action, action_type, name)

    async def send_goal(
        self, action_type: Any, name: str, goal: Any, *, accept_timeout_s: float = 5.0
    ) -> Goal:
        """Send `goal`; returns once the server accepted it (raises NotAvailableError, or
        CallFailedError when rejected or not answered in time). A goal not answered in time
        is canceled: its answer may only have been lost (a server that has not yet matched
        this client drops it), and a goal the page reports as failed must not run unseen."""
        loop = asyncio.get_running_loop()
        accepted: asyncio.Future = loop.create_future()
        result: asyncio.Future = loop.create_future()
        goal_id = UUID(uuid=list(uuid.uuid4().bytes))
        given_up = threading.Event()

        def on_result(f: Any) -> None:
            exc = f.exception()
            res = f.result() if exc is None else None
            _threadsafe(loop, _settle, result, res, exc)

        def on_accepted(f: Any) -> None:
            exc = f.exception()
            handle = f.result() if exc is None else None
            if handle is not None and handle.accepted:
                if given_up.is_set():  # answered after the page was told it failed
                    handle.cancel_goal_async()
                    return
                handle.get_result_async().add_done_callback(on_result)
            _threadsafe(loop, _settle, accepted, handle, exc)

        def start() -> None:
            client = self._action(action_type, name)
            if not client.server_is_ready():
                raise NotAvailableError(f"action server '{name}' is not available")
            client.send_goal_async(goal, goal_uuid=goal_id).add_done_callback(on_accepted)

        def give_up() -> None:
            given_up.set()
            # the action client's own cancel service, matched with the server since
            # server_is_ready(): a new client's first request could be lost as the answer was
            answered = action_type.Impl.SendGoalService.Response(accepted=True)
            ClientGoalHandle(self._action(action_type, name), goal_id, answered).cancel_goal_async()

        await self.run(start)
        try:
            handle = await asyncio.wait_for(accepted, accept_timeout_s)
        except asyncio.TimeoutError:
            self.in_ros(give_up)
            raise CallFailedError(
                f"'{name}' did not answer the goal within {accept_timeout_s:g} s: "
                'canceled it, in case it runs'
            ) from None
        if not handle.accepted:
            raise CallFailedError(f"'{name}' rejected the goal")
        return Goal(self, handle, result)


class Goal:
    """An accepted action goal: await `result()`, or `cancel()` it."""

    def __init__(self, bridge: RosBridge, handle: Any, result: asyncio.Future) -> None:
        self._bridge = bridge
        self._handle = handle
        self._result = result

    async def result(self) -> tuple[int, Any]:
        """(GoalStatus status, the action's result message)."""
        res = await self._result
        return int(res.status), res.result

    def cancel(self) -> None:
        """Ask the server to cancel (returns at once)."""
        self._bridge.in_ros(self._handle.cancel_goal_async)


def _settle(future: asyncio.Future, value: Any, exc: BaseException | None) -> None:
    if future.done():
        return
    if exc is not None:
        future.set_exception(CallFailedError(str(exc)))
    else:
        future.set_result(value)


def _threadsafe(loop: asyncio.AbstractEventLoop, fn: Callable[..., None], *args: Any) -> None:
    """Run `fn(*args)` on `loop` from another thread; dropped when the loop is closed."""
    with contextlib.suppress(RuntimeError):  # the web server has stopped
        loop.call_soon_threadsafe(fn, *args)


def latched() -> QoSProfile:
    """Reliable, transient local, depth 1 (robot_description, ~/activity)."""
    return QoSProfile(
        depth=1,
        reliability=ReliabilityPolicy.RELIABLE,
        durability=DurabilityPolicy.TRANSIENT_LOCAL,
    )
