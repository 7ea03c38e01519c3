"""Test helpers shipped with the package, so users test their own controllers the same way.

`RosHarness` gives a test its own rclpy context, node and single-threaded executor, and
waits for conditions by spinning (never by sleeping). `SteppedManager` runs a manager in
the test's process whose control cycles the test runs one at a time on a clock of its
own, so numbers depend on cycle counts only. `ManagerProcess` starts the real
`ros2_control_node` executable as a user would and stops it with SIGINT.
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rclpy
from rcl_interfaces.msg import Log
from rclpy.clock import ClockType
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter
from rclpy.parameter_client import AsyncParameterClient
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

from py_controllers.child_process import ChildProcess
from py_controllers.controller_manager.client import ControllerManagerClient
from py_controllers.controller_manager.loop_time import LoopDuration, LoopTime
from py_controllers.controller_manager.node import ControllerManagerRuntime
from py_controllers.realtime_tools import realtime_publisher
from py_controllers.realtime_tools.realtime_publisher import RealtimePublisher
from py_controllers.ros_conversions import stamp_to_ns

BIN = Path(sys.executable).parent
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
CONFIG = PACKAGE_ROOT / 'config'


def stamp_ns(msg: Any) -> int:
    """A stamped message's header stamp in nanoseconds."""
    return stamp_to_ns(msg.header.stamp)


def latched_qos(depth: int = 1) -> QoSProfile:
    """Reliable, transient-local (depth 1: what robot_state_publisher and ~/activity use)."""
    return QoSProfile(
        depth=depth,
        reliability=ReliabilityPolicy.RELIABLE,
        durability=DurabilityPolicy.TRANSIENT_LOCAL,
    )


class RosoutLines(list):
    """The /rosout messages received so far, and the checks tests make of them."""

    def has(self, *texts: str) -> bool:
        """True once a line contains every one of `texts`."""
        return any(all(t in m.msg for t in texts) for m in self)

    def wait_for(self, run_until: Callable[[Callable[[], bool]], bool], *texts: str) -> None:
        """Run (`run_until(predicate)`) until a line contains every one of `texts`; fail
        showing every line."""
        seen = run_until(lambda: self.has(*texts))
        assert seen, f'{texts} not logged; /rosout: {[m.msg for m in self]}'


GUARD_S = 60.0
"""How long a test waits for something that must happen before it fails: a guard against a
hang, never a duration a result depends on. `make test` runs two suites side by side, often
beside other work, on 2 cores: there, discovering a new subscription has taken over 10 s and
a manager process's start and spawn over 20 s."""


class RosHarness:
    """An isolated rclpy context with one node and an executor, for a test."""

    def __init__(self, name: str = 'test_client', *, args: list[str] | None = None) -> None:
        """`args`: the context's command line (`['--ros-args', '--params-file', ...]`); a
        manager made in this harness hands its ROS arguments to its controllers' nodes."""
        self.args = list(args or [])
        self.context = Context()
        rclpy.init(context=self.context, args=args)
        self.node = rclpy.create_node(name, context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._parameter_clients: dict[str, AsyncParameterClient] = {}

    def spin_until(self, predicate: Callable[[], bool], timeout_s: float = GUARD_S) -> bool:
        """Spin until `predicate()` is true; False after `timeout_s` (a failure guard only)."""
        deadline = time.monotonic() + timeout_s
        while not predicate():
            if time.monotonic() > deadline:
                return False
            self.executor.spin_once(timeout_sec=0.02)
        return True

    def spin_for_messages(self, store: list, count: int, timeout_s: float = GUARD_S) -> bool:
        """Spin until `store` has grown by `count` items."""
        target = len(store) + count
        return self.spin_until(lambda: len(store) >= target, timeout_s)

    def subscribe(self, msg_type: Any, topic: str, qos: Any = 10) -> list:
        """A list that collects every message received on `topic`."""
        received: list = []
        self.node.create_subscription(msg_type, topic, received.append, qos)
        return received

    def graph_report(self, topic: str) -> str:
        """Who publishes and who subscribes to `topic` as this node's graph sees it, with
        their reliability and durability (discovery carries no history depth): for the
        failure report of a test that waited for a message."""
        lines = [f'{topic}:']
        for kind, infos in (
            ('publisher', self.node.get_publishers_info_by_topic(topic)),
            ('subscription', self.node.get_subscriptions_info_by_topic(topic)),
        ):
            for info in infos:
                qos = info.qos_profile
                lines.append(
                    f'  {kind} {info.node_namespace.rstrip("/")}/{info.node_name}: '
                    f'{qos.reliability.name} {qos.durability.name}, type {info.topic_type}'
                )
        return '\n'.join(lines)

    def subscribe_rosout(self) -> RosoutLines:
        """Every /rosout line, including those logged before this subscription was matched
        (the nodes' /rosout publishers keep a transient-local history)."""
        lines = RosoutLines()
        self.node.create_subscription(Log, '/rosout', lines.append, latched_qos(1000))
        return lines

    def set_parameters(self, node: str, values: dict[str, Any]) -> list[Any]:
        """SetParameters on `node` over its parameter service, as `ros2 param set` does; each
        parameter's SetParametersResult (empty when the service or its answer never came)."""
        answer = self._parameter_call(
            node, lambda c: c.set_parameters([Parameter(k, value=v) for k, v in values.items()])
        )
        return [] if answer is None else list(answer.results)

    def get_parameters(self, node: str, names: list[str]) -> list[Any]:
        """GetParameters on `node`, as `ros2 param get` does: each name's ParameterValue
        (empty when the service or its answer never came)."""
        answer = self._parameter_call(node, lambda c: c.get_parameters(names))
        return [] if answer is None else list(answer.values)

    def _parameter_call(self, node: str, call: Callable[[AsyncParameterClient], Any]) -> Any:
        """`call(client)` on `node`'s parameter services, its answer (None: none came). One
        client per node: each makes six service clients on the harness's node."""
        client = self._parameter_clients.get(node)
        if client is None:
            client = self._parameter_clients[node] = AsyncParameterClient(self.node, node)
        if not client.wait_for_services(GUARD_S):
            return None
        future = call(client)
        return future.result() if self.spin_until(future.done) else None

    def manager(self, name: str = '/controller_manager', **kwargs: Any) -> ControllerManagerClient:
        """A client of the manager's services that spins this harness's executor."""
        kwargs.setdefault('wait_timeout_s', 30.0)
        return ControllerManagerClient(self.node, name, executor=self.executor, **kwargs)

    def close(self) -> None:
        """Destroy everything and shut the context down.

        Action clients and servers made on the node go first: `destroy_node` leaves them,
        and one left behind keeps the node, and with it the context's DDS participant,
        alive for the rest of the process (participants piling up in one process make
        Fast DDS's shutdown deadlock-prone)."""
        self.executor.shutdown()
        for waitable in list(self.node.waitables):
            destroy = getattr(waitable, 'destroy', None)
            if destroy is not None:
                destroy()
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)

    def __enter__(self) -> RosHarness:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class SteppedManager:
    """A controller manager in this process whose cycles the test runs with `step()`.

    The loop thread never starts; each step is one `ControlLoop.cycle()` (read -> update ->
    write, failures handled as in the real loop) at `now_ns`, which advances by `period_ns`.
    With `use_sim_time` and a simulator among the hardware, each step is the loop's
    `simulated_cycle()` instead (its time the simulator's, /clock published) and `now_ns`
    the simulation time after it. Topics and services are served while the test spins
    `harness`.
    """

    def __init__(
        self,
        harness: RosHarness,
        urdf: str,
        *,
        period_ns: int = 10_000_000,
        start_ns: int = 0,
        use_sim_time: bool = False,
    ) -> None:
        self.harness = harness
        # an earlier manager of this process that only the cycle collector would free keeps
        # its child loggers ('controller_manager.resource_manager...') registered with rcl's
        # rosout, bound to its destroyed node's publisher; rcl then hands this manager's
        # loggers of the same names that publisher, and their lines never reach /rosout
        gc.collect()
        overrides = [Parameter('use_sim_time', value=True)] if use_sim_time else []
        self.node = ControllerManagerRuntime(
            harness.executor,
            context=harness.context,
            args=harness.args,
            start_loop=False,
            parameter_overrides=overrides,
        )
        self.node.on_description(String(data=urdf))
        assert self.node.services is not None, 'robot description refused'
        self.manager = self.node.manager
        self.period_ns = period_ns
        self.now_ns = start_ns
        self._publishers: dict[str, Any] = {}

    def step(
        self, cycles: int = 1, *, record: str | None = None, sent: bool = False
    ) -> list[float]:
        """Run `cycles` cycles; with `record`, that state interface's value after each. With
        `sent`, each cycle waits until the publishing thread has sent what it handed over, so
        that no message is skipped because the one before it was still being sent (q39, a
        starved host: a state already received was still locked ten stepped cycles later).
        Without it, stepping runs far faster than messages can be taken (a subscriber then
        sees a fraction of them), as a loop's does under load."""
        loop, lock = self.node.loop, self.manager.cycle_lock
        period = LoopDuration(self.period_ns)
        trace = []
        simulation = self.manager.rm.simulation_clock if loop.use_sim_time else None
        # as in the loop's thread: what a cycle publishes goes to the publishing thread once
        # the cycle has ended, not while it runs
        realtime_publisher.defer_in_thread(threading.get_ident())
        try:
            for _ in range(cycles):
                with lock:
                    if simulation is None:
                        self.now_ns += self.period_ns
                        loop.cycle(
                            LoopTime(self.now_ns, ClockType.SYSTEM_TIME), period, self.now_ns
                        )
                    else:
                        loop.simulated_cycle(simulation, period)
                        self.now_ns = simulation()
                realtime_publisher.flush_deferred()
                if sent:
                    assert realtime_publisher.drain(GUARD_S), 'the publishing thread is stuck'
                if record is not None:
                    trace.append(self.state(record))
        finally:
            realtime_publisher.defer_in_thread(None)
        return trace

    def catch_up_with_clock(self) -> int:
        """Bring `now_ns` up to the node clock if it lags; the new `now_ns`.

        Controllers check a message's stamp against their node's clock (is it in the past?)
        and follow it on the loop's time axis: a test that stamps relative to `now_ns` needs
        the two to agree, and the wall clock runs on while the test sets up without stepping.
        """
        self.now_ns = max(self.now_ns, self.harness.node.get_clock().now().nanoseconds)
        return self.now_ns

    def run_until(self, predicate: Callable[[], bool], timeout_s: float = GUARD_S) -> bool:
        """Step and serve callbacks until `predicate()`; the timeout only guards."""

        def stepping() -> bool:
            if predicate():
                return True
            self.step()
            self.harness.executor.spin_once(timeout_sec=0.0)
            return False

        return self.harness.spin_until(stepping, timeout_s)

    def run_for(self, seconds: float) -> None:
        """Step `seconds` of controller time, serving callbacks between cycles."""
        for _ in range(round(seconds * 1e9 / self.period_ns)):
            self.step()
            self.harness.executor.spin_once(timeout_sec=0.0)

    def state(self, name: str) -> float:
        return self.manager.rm.state_interfaces[name].value

    def command(self, name: str) -> float:
        return self.manager.rm.command_interfaces[name].value

    def load(self, *names: str) -> list[Any]:
        """Load and configure `names`; the controller objects."""
        controllers = []
        for name in names:
            ok, msg = self.manager.load_controller(name)
            assert ok, msg
            ok, msg = self.manager.configure_controller(name)
            assert ok, msg
            controllers.append(self.manager.controllers[name].controller)
        return controllers

    def start(self, *names: str) -> list[Any]:
        """Load, configure and activate `names` together; the controller objects."""
        controllers = self.load(*names)
        ok, msg = self.manager.switch_controller(list(names), [], 2)
        assert ok, msg
        return controllers

    def publisher_report(self) -> str:
        """Each controller's realtime publishers with their counters and listeners, for a
        failure report of a test that waited for their messages."""
        lines: list[str] = []

        def search(obj: Any, path: str, depth: int) -> None:
            for attr, value in vars(obj).items():
                for item in value if isinstance(value, (list, tuple)) else (value,):
                    if isinstance(item, RealtimePublisher):
                        lines.append(f'{path}.{attr}: {item.describe()}')
                    elif (
                        depth
                        and type(item).__module__.startswith('py_controllers.')
                        and hasattr(item, '__dict__')
                    ):
                        search(item, f'{path}.{attr}', depth - 1)  # e.g. a publishing helper

        for name, entry in self.manager.controllers.items():
            search(entry.controller, name, 1)
        return '\n'.join(lines)

    def publisher(self, topic: str, msg_type: Any) -> Any:
        """The test's one publisher on `topic`, so messages arrive in the order sent."""
        if topic not in self._publishers:
            self._publishers[topic] = self.harness.node.create_publisher(msg_type, topic, 10)
        return self._publishers[topic]

    def publish(self, topic: str, msg_type: Any, msg: Any) -> None:
        self.publisher(topic, msg_type).publish(msg)

    def send(self, topic: str, msg_type: Any, msg: Any, arrived: Callable[[], bool]) -> None:
        """Publish `msg` until `arrived()` says the controller has taken it in."""
        pub = self.publisher(topic, msg_type)

        def check() -> bool:
            if arrived():
                return True
            pub.publish(msg)
            return False

        assert self.harness.spin_until(check), f'{topic}: {msg} did not arrive'

    def send_until(self, topic: str, msg_type: Any, msg: Any, done: Callable[[], bool]) -> None:
        """Publish `msg` and run cycles until `done()`."""
        pub = self.publisher(topic, msg_type)

        def check() -> bool:
            pub.publish(msg)
            self.step(1)
            return done()

        assert self.harness.spin_until(check), f'{topic}: {msg} had no effect'

    def shutdown(self) -> None:
        """Shut the manager down as `ros2_control_node` does, then serve what that left for
        the executor (the results of goals the shutdown ended), as the node's executors do
        until they stop."""
        self.node.shutdown()
        if self.harness.context.ok():  # a test may have shut ROS down first
            for _ in range(10):
                self.harness.executor.spin_once(timeout_sec=0.0)


class ManagerProcess(ChildProcess):
    """`ros2_control_node` in a subprocess, its output captured in a temporary file."""

    def __init__(
        self,
        params_files: list[Path | str],
        urdf: Path | str | None = None,
        *,
        params: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        ros_args: list[str] | None = None,
    ) -> None:
        """`ros_args` go after the others, e.g. `['-r', '__ns:=/robot1']`."""
        args = [str(BIN / 'ros2_control_node'), '--ros-args']
        for path in params_files:
            args += ['--params-file', str(path)]
        if urdf is not None:
            args += ['-p', f'robot_description_file:={urdf}']
        for key, value in (params or {}).items():
            args += ['-p', f'{key}:={value}']
        args += list(ros_args or [])
        self.process = subprocess.Popen(
            args,
            stdout=self._open_log(),
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )

    def output(self) -> str:
        """Everything the process printed so far."""
        return self._logged()


def run_tool(name: str, *args: str, timeout_s: float = 3 * GUARD_S) -> subprocess.CompletedProcess:
    """Run one of our console scripts (spawner, unspawner, ...) and capture its output. One
    still running after `timeout_s` is asked for every thread's stack (SIGABRT, with
    faulthandler on) and the test fails with its whole output."""
    command = [str(BIN / name), *args]
    env = {**os.environ, 'PYTHONFAULTHANDLER': '1'}
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    ) as tool:
        try:
            out, err = tool.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            tool.send_signal(signal.SIGABRT)
            try:
                out, err = tool.communicate(timeout=GUARD_S)
            except subprocess.TimeoutExpired:
                tool.kill()
                out, err = tool.communicate()
            raise AssertionError(
                f'{" ".join(args)}: {name} still running after {timeout_s:g} s; its output, '
                f'then its stacks:\n{out}{err}'
            ) from None
    return subprocess.CompletedProcess(command, tool.returncode, out, err)
