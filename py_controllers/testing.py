"""Test helpers shipped with the package, so users test their own controllers the same way.

`RosHarness` gives a test its own rclpy context, node and single-threaded executor, and
waits for conditions by spinning (never by sleeping). `ManagerProcess` starts the real
`ros2_control_node` executable as a user would and stops it with SIGINT.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from py_controllers.controller_manager.client import ControllerManagerClient

BIN = Path(sys.executable).parent
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
CONFIG = PACKAGE_ROOT / 'config'


def latched_qos() -> QoSProfile:
    """Reliable, transient-local, depth 1: what robot_state_publisher and ~/activity use."""
    return QoSProfile(
        depth=1,
        reliability=ReliabilityPolicy.RELIABLE,
        durability=DurabilityPolicy.TRANSIENT_LOCAL,
    )


class RosHarness:
    """An isolated rclpy context with one node and an executor, for a test."""

    def __init__(self, name: str = 'test_client', *, args: list[str] | None = None) -> None:
        self.context = Context()
        rclpy.init(context=self.context, args=args)
        self.node = rclpy.create_node(name, context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def spin_until(self, predicate: Callable[[], bool], timeout_s: float = 20.0) -> bool:
        """Spin until `predicate()` is true; False after `timeout_s` (a failure guard only)."""
        deadline = time.monotonic() + timeout_s
        while not predicate():
            if time.monotonic() > deadline:
                return False
            self.executor.spin_once(timeout_sec=0.02)
        return True

    def spin_for_messages(self, store: list, count: int, timeout_s: float = 20.0) -> bool:
        """Spin until `store` has grown by `count` items."""
        target = len(store) + count
        return self.spin_until(lambda: len(store) >= target, timeout_s)

    def subscribe(self, msg_type: Any, topic: str, qos: Any = 10) -> list:
        """A list that collects every message received on `topic`."""
        received: list = []
        self.node.create_subscription(msg_type, topic, received.append, qos)
        return received

    def manager(self, name: str = '/controller_manager', **kwargs: Any) -> ControllerManagerClient:
        """A client of the manager's services that spins this harness's executor."""
        kwargs.setdefault('wait_timeout_s', 30.0)
        return ControllerManagerClient(self.node, name, executor=self.executor, **kwargs)

    def close(self) -> None:
        """Destroy everything and shut the context down."""
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)

    def __enter__(self) -> RosHarness:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class ManagerProcess:
    """`ros2_control_node` in a subprocess, its output captured in a temporary file."""

    def __init__(
        self,
        params_files: list[Path | str],
        urdf: Path | str | None = None,
        *,
        params: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        args = [str(BIN / 'ros2_control_node'), '--ros-args']
        for path in params_files:
            args += ['--params-file', str(path)]
        if urdf is not None:
            args += ['-p', f'robot_description_file:={urdf}']
        for key, value in (params or {}).items():
            args += ['-p', f'{key}:={value}']
        self._log = tempfile.NamedTemporaryFile('w+', suffix='.log', delete=False)  # noqa: SIM115
        self.process = subprocess.Popen(
            args,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )

    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self.process.poll() is None

    def output(self) -> str:
        """Everything the process printed so far."""
        self._log.flush()
        return Path(self._log.name).read_text(errors='replace')

    def stop(self, timeout_s: float = 15.0) -> int:
        """SIGINT, then wait; kill if it does not stop. Returns the exit code."""
        if self.alive:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        return self.process.returncode

    def __enter__(self) -> ManagerProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def run_tool(name: str, *args: str, timeout_s: float = 60.0) -> subprocess.CompletedProcess:
    """Run one of our console scripts (spawner, unspawner, ...) and capture its output."""
    return subprocess.run(
        [str(BIN / name), *args],
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
