"""What every bench table needs: a manager process with its controllers, a measuring
window, and markdown tables."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import rclpy
from control_msgs.msg import DynamicJointState, JointTrajectoryControllerState
from nav_msgs.msg import Odometry
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

DEMO_CONTROLLERS = [
    'joint_state_broadcaster',
    'arm_controller',
    'diff_drive_controller',
    'gripper_controller',
]
# What the demo's controllers send in the loop; rviz, robot_state_publisher and a bag
# recorder would listen to all of it. A message nobody listens to is not filled.
DEMO_STATE_TOPICS = {
    '/joint_states': JointState,
    '/dynamic_joint_states': DynamicJointState,
    '/arm_controller/controller_state': JointTrajectoryControllerState,
    '/diff_drive_controller/odom': Odometry,
    '/tf': TFMessage,
}
# The joint state broadcaster's, for the minimal robot.
BROADCASTER_TOPICS = {'/joint_states': JointState, '/dynamic_joint_states': DynamicJointState}

WAIT_S = 120.0
"""How long the bench waits for something that must happen (a message, a server, a goal's
acceptance) before the table says it could not measure: a guard for a loaded host (discovery
alone took over 10 s on a busy 2-core VM), never a figure the bench reports."""

MANAGER_PARAMS = {'watchdog.max_switch_ms': 120_000}
"""The bench's managers let a controller's activation hold the loop off for up to 2 minutes
(reported, not fatal): a slow host activating a 300-joint broadcaster is not what a table
measures."""


def rate_file(rate_hz: int, folder: Path) -> Path:
    """A parameter file that sets the manager's update_rate."""
    path = folder / f'rate_{rate_hz}.yaml'
    path.write_text(f'controller_manager:\n  ros__parameters:\n    update_rate: {rate_hz}\n')
    return path


@contextmanager
def running_manager(
    params_files: Sequence[Path | str],
    urdf: Path | str,
    controllers: Sequence[str],
    *,
    rate_hz: int,
    params: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[tuple[ManagerProcess, RosHarness, Any]]:
    """ros2_control_node at `rate_hz` with `controllers` spawned (`env`: more environment for
    the manager process); (process, harness, client)."""
    with tempfile.TemporaryDirectory() as folder:
        files = [*params_files, rate_file(rate_hz, Path(folder))]
        params = {**MANAGER_PARAMS, **(params or {})}
        with (
            ManagerProcess(files, urdf, params=params, env=env) as proc,
            RosHarness('bench') as ros,
        ):
            result = run_tool(
                'spawner',
                *controllers,
                '--controller-manager-timeout',
                str(WAIT_S),
                '--service-call-timeout',
                str(WAIT_S),
                timeout_s=5 * WAIT_S,
            )
            if result.returncode != 0:
                raise RuntimeError(f'spawner failed:\n{result.stderr}\n{proc.output()[-3000:]}')
            yield proc, ros, ros.manager()


def running_demo(
    rate_hz: int, params: dict[str, Any] | None = None, env: dict[str, str] | None = None
) -> AbstractContextManager[tuple[ManagerProcess, RosHarness, Any]]:
    """`running_manager` with the demo robot and its four controllers."""
    return running_manager(
        [CONFIG / 'demo_controllers.yaml'],
        CONFIG / 'demo_robot.urdf',
        DEMO_CONTROLLERS,
        rate_hz=rate_hz,
        params=params,
        env=env,
    )


def measure(ros: RosHarness, cm: Any, seconds: float, warmup_s: float = 1.0) -> dict:
    """Spin `warmup_s`, start a new statistics window, spin `seconds`, return the statistics."""
    spin_for(ros, warmup_s)
    cm.reset_statistics()
    spin_for(ros, seconds)
    return cm.statistics()


@contextmanager
def listening(
    ros: RosHarness,
    topics: dict[str, Any],
    wait: Callable[[Callable[[], bool]], bool] | None = None,
) -> Iterator[None]:
    """Subscribers on `topics` that cost the bench next to nothing: on a node of their own
    that nothing spins, so DDS delivers each message but Python never takes it. Enters once
    a message has arrived on every topic (seen by a second set of subscriptions on the
    harness's node, gone again), waiting with `wait` (`ros.spin_until` by default) up to
    WAIT_S."""
    quiet = rclpy.create_node('bench_listener', context=ros.context)
    seen: dict[str, list] = {}
    confirming = []
    try:
        for topic, msg_type in topics.items():
            quiet.create_subscription(msg_type, topic, lambda _m: None, 10, raw=True)
            seen[topic] = got = []
            confirming.append(
                ros.node.create_subscription(
                    msg_type, topic, lambda _m, g=got: g.append(1), 10, raw=True
                )
            )
        arrived = (wait or (lambda done: ros.spin_until(done, WAIT_S)))(lambda: all(seen.values()))
        if not arrived:
            raise RuntimeError(
                f'no message within {WAIT_S:g} s on {[t for t, got in seen.items() if not got]}'
            )
        for subscription in confirming:
            ros.node.destroy_subscription(subscription)
        yield
    finally:
        quiet.destroy_node()


def spin_for(ros: RosHarness, seconds: float) -> None:
    """Serve the harness's callbacks for `seconds` of wall time."""
    end = time.monotonic() + seconds
    ros.spin_until(lambda: time.monotonic() >= end, seconds + 5.0)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A markdown table; floats with one decimal."""

    def cell(value: Any) -> str:
        return f'{value:.1f}' if isinstance(value, float) else str(value)

    lines = ['| ' + ' | '.join(headers) + ' |', '|' + '---|' * len(headers)]
    lines += ['| ' + ' | '.join(cell(v) for v in row) + ' |' for row in rows]
    return '\n'.join(lines)


def verdict(ok: bool | None) -> str:
    """A target's last column: met, NOT met, or not measured (None)."""
    if ok is None:
        return 'not measured'
    return 'met' if ok else 'NOT met'


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """(result, seconds) of `fn()`."""
    start = time.monotonic()
    result = fn()
    return result, time.monotonic() - start


def median_after_gaps(
    step: Callable[[], None],
    gaps_s: Sequence[float],
    count: int,
    between: Callable[[], None] | None = None,
) -> list[float]:
    """The median time of `step()` (us) right after each pause of `gaps_s`, over `count`
    calls a pause; `between()` runs untimed after each call (the cycle's messages sent)."""
    medians = []
    clock = time.perf_counter_ns
    for gap in gaps_s:
        costs = np.empty(count, dtype=np.int64)
        for i in range(count):
            if gap:
                time.sleep(gap)
            t0 = clock()
            step()
            costs[i] = clock() - t0
            if between is not None:
                between()
        medians.append(float(np.median(costs)) * 1e-3)
    return medians
