"""The demo robot under load: a 6-joint trajectory executing, cmd_vel at 50 Hz, odometry
and TF publishing, every state broadcast; the manager's statistics over a window."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from builtin_interfaces.msg import Duration as DurationMsg
from control_msgs.action import FollowJointTrajectory
from geometry_msgs.msg import TwistStamped
from rclpy.action import ActionClient
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from bench.common import (
    DEMO_CONTROLLERS,
    DEMO_STATE_TOPICS,
    WAIT_S,
    listening,
    measure,
    median_after_gaps,
    running_demo,
)
from py_controllers.realtime_tools import realtime_publisher
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

ARM_JOINTS = [f'joint{i}' for i in range(1, 7)]
AMPLITUDE_RAD = 0.3
PERIOD_S = 8.0


def sine_goal(start: list[float], duration_s: float) -> FollowJointTrajectory.Goal:
    """Every arm joint on a slow sine about `start`, with positions, velocities and
    accelerations (quintic), ending at rest."""
    goal = FollowJointTrajectory.Goal()
    goal.trajectory.joint_names = ARM_JOINTS
    w = 2.0 * math.pi / PERIOD_S
    steps = int(duration_s / 0.25) + 1
    for k in range(1, steps + 1):
        t = k * 0.25
        phase = [w * t + j * 0.5 for j in range(len(ARM_JOINTS))]
        point = JointTrajectoryPoint(
            positions=[
                start[j] + AMPLITUDE_RAD * (math.sin(p) - math.sin(j * 0.5))
                for j, p in enumerate(phase)
            ],
            velocities=[AMPLITUDE_RAD * w * math.cos(p) for p in phase],
            accelerations=[-AMPLITUDE_RAD * w * w * math.sin(p) for p in phase],
        )
        point.time_from_start = DurationMsg(sec=int(t), nanosec=int((t % 1.0) * 1e9))
        goal.trajectory.points.append(point)
    last = goal.trajectory.points[-1]  # the trajectory must end at rest
    last.velocities = [0.0] * len(ARM_JOINTS)
    last.accelerations = [0.0] * len(ARM_JOINTS)
    return goal


def demo_run(
    rate_hz: int, seconds: float, params: dict | None = None, env: dict[str, str] | None = None
) -> dict:
    """Statistics of ros2_control_node running the demo at `rate_hz` under load (`env`:
    more environment for the manager, e.g. the pure Python hot path)."""
    with running_demo(rate_hz, params, env) as (proc, ros, cm), listening(ros, DEMO_STATE_TOPICS):
        states: list[JointState] = []
        start = ros.node.create_subscription(JointState, '/joint_states', states.append, 10)
        if not ros.spin_until(lambda: bool(states), WAIT_S):
            raise RuntimeError(f'no /joint_states within {WAIT_S:g} s')
        ros.node.destroy_subscription(start)  # only the start: no Python work while measuring
        current = dict(zip(states[-1].name, states[-1].position))
        client = ActionClient(
            ros.node, FollowJointTrajectory, '/arm_controller/follow_joint_trajectory'
        )
        if not client.wait_for_server(timeout_sec=WAIT_S):
            raise RuntimeError(f'no FollowJointTrajectory server within {WAIT_S:g} s')
        goal = sine_goal([current[j] for j in ARM_JOINTS], seconds + 5.0)
        sent = client.send_goal_async(goal)
        if not ros.spin_until(sent.done, WAIT_S):
            raise RuntimeError(f'no answer to the trajectory goal within {WAIT_S:g} s')
        if not sent.result().accepted:
            raise RuntimeError('trajectory goal rejected: ' + proc.output()[-1500:])
        result = sent.result().get_result_async()

        pub = ros.node.create_publisher(TwistStamped, '/diff_drive_controller/cmd_vel', 10)

        def drive() -> None:
            msg = TwistStamped()
            msg.header.stamp = ros.node.get_clock().now().to_msg()
            msg.twist.linear.x, msg.twist.angular.z = 0.2, 0.4
            pub.publish(msg)

        ros.node.create_timer(0.02, drive)
        stats = measure(ros, cm, seconds)
        stats['goal'] = (
            'executing' if not result.done() else result.result().result.error_string or 'done'
        )
        return stats


def warm_cycle_us(cycles: int = 2000) -> dict[str, float]:
    """The demo's read -> update -> write run back to back in this process
    (`SteppedManager`, trajectory executing, every state topic subscribed), us: `mean` and
    `p99` with every message filled and sent between cycles, as in the loop;
    `mean_unwaited` without waiting for the publishing thread, which then falls behind, so
    most cycles skip filling messages (the loop's own arithmetic with hot caches);
    `median_after_pause` with every message, each cycle after a `PAUSE_S` sleep, as in the loop
    (the caches as the host leaves them)."""
    with stepped_demo() as stepped:
        return _stepped_cycle_costs(stepped, cycles)


@contextmanager
def stepped_demo(
    update_rate: int | None = 1000, trajectory_s: float = 30.0, name: str = 'bench_warm'
) -> Iterator[SteppedManager]:
    """The demo stepped at 1 kHz in this process (`SteppedManager`), every state topic
    subscribed, its arm following a sine trajectory of `trajectory_s`; the manager's
    `update_rate` parameter as given (None: the demo's YAML's)."""
    args = ['--ros-args', '--params-file', str(CONFIG / 'demo_controllers.yaml')]
    if update_rate is not None:
        args += ['-p', f'update_rate:={update_rate}']
    harness = RosHarness(name, args=args)
    start_ns = harness.node.get_clock().now().nanoseconds
    stepped = SteppedManager(
        harness, (CONFIG / 'demo_robot.urdf').read_text(), period_ns=1_000_000, start_ns=start_ns
    )
    try:
        stepped.start(*DEMO_CONTROLLERS)
        with listening(
            harness, DEMO_STATE_TOPICS, wait=lambda done: stepped.run_until(done, WAIT_S)
        ):
            arm = stepped.manager.controllers['arm_controller'].controller
            current = [stepped.state(f'{j}/position') for j in ARM_JOINTS]
            stepped.send_until(
                '/arm_controller/joint_trajectory',
                JointTrajectory,
                sine_goal(current, trajectory_s).trajectory,
                lambda: arm._trajectory is not None and not arm._holding,
            )
            yield stepped
    finally:
        stepped.shutdown()
        harness.close()


def _stepped_cycle_costs(stepped: SteppedManager, cycles: int) -> dict[str, float]:
    def step_costs(drain: bool) -> np.ndarray:
        costs = np.empty(cycles)
        for i in range(cycles):
            t0 = time.perf_counter_ns()
            stepped.step()
            costs[i] = time.perf_counter_ns() - t0
            if drain:
                realtime_publisher.drain()
        return costs

    costs, unwaited = step_costs(drain=True), step_costs(drain=False)
    realtime_publisher.drain()
    (paused,) = median_after_gaps(stepped.step, [PAUSE_S], PAUSED_CYCLES, realtime_publisher.drain)
    return {
        'mean': float(costs.mean()) * 1e-3,
        'p99': float(np.percentile(costs, 99)) * 1e-3,
        'mean_unwaited': float(unwaited.mean()) * 1e-3,
        'median_after_pause': paused,
    }


PAUSE_S = 0.001
"""The pause before each cycle of `warm_cycle_us`'s third figure: about the sleep of the 1 kHz
loop between its cycles."""
PAUSED_CYCLES = 300
