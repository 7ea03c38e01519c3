"""Per-cycle cost of JointTrajectoryController.update() for 6, 30 and 100 joints.

    python -m bench.bench_jtc [--cycles 3000]

The controller runs on its own: fake state and command handles, a fixed 1 ms step, a quintic
trajectory (positions, velocities and accelerations at every waypoint) fed through its topic
callback, and a "hardware" that copies commands into states between cycles (not timed). Only
update() is timed; the state message it hands over is published after the cycle, as the
manager's loop does. Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import threading
import time

import numpy as np
import rclpy
from builtin_interfaces.msg import Duration as DurationMsg
from rclpy.context import Context
from rclpy.duration import Duration
from rclpy.parameter import Parameter
from rclpy.time import Time
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from py_controllers.controller_manager.statistics import Summary, summarize
from py_controllers.controllers.joint_trajectory.controller import JointTrajectoryController
from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.realtime_tools import realtime_publisher

PERIOD_NS = 1_000_000  # 1 kHz
_SERIAL = itertools.count()


def quintic_trajectory(joints: list[str], seconds: float, waypoints: int) -> JointTrajectory:
    """A sine sweep per joint, sampled into waypoints with exact derivatives."""
    msg = JointTrajectory(joint_names=joints)
    n = len(joints)
    phase = np.linspace(0.0, math.pi, n)
    for k in range(1, waypoints + 1):
        t = seconds * k / waypoints
        w = 2.0 * math.pi / seconds
        point = JointTrajectoryPoint(
            positions=(0.5 * np.sin(w * t + phase)).tolist(),
            velocities=(0.5 * w * np.cos(w * t + phase)).tolist(),
            accelerations=(-0.5 * w * w * np.sin(w * t + phase)).tolist(),
        )
        if k == waypoints:  # the controller wants to stop at the end
            point.velocities = [0.0] * n
        ns = round(t * 1e9)
        point.time_from_start = DurationMsg(sec=ns // 10**9, nanosec=ns % 10**9)
        msg.points.append(point)
    return msg


def run(n_joints: int, command: str, cycles: int, context: Context) -> Summary:
    """Time `cycles` updates of a controller with `n_joints` joints commanding `command`."""
    joints = [f'j{i}' for i in range(n_joints)]
    overrides = [
        Parameter('joints', value=joints),
        Parameter('command_interfaces', value=[command]),
        Parameter('state_interfaces', value=['position', 'velocity']),
        Parameter('update_rate', value=1000),
    ]
    if command != 'position':
        overrides += [Parameter(f'gains.{j}.p', value=50.0) for j in joints]
        overrides += [Parameter(f'gains.{j}.d', value=5.0) for j in joints]
    ctrl = JointTrajectoryController()
    name = f'jtc_bench_{command}_{n_joints}_{next(_SERIAL)}'
    assert ctrl.init(name, cm_update_rate=1000, context=context, parameter_overrides=overrides)
    node = ctrl.get_node()
    node.trigger_configure()
    commands = [CommandInterface(j, command, 0.0) for j in joints]
    positions = [StateInterface(j, 'position', 0.0) for j in joints]
    velocities = [StateInterface(j, 'velocity', 0.0) for j in joints]
    ctrl.assign_interfaces(commands, [h for pair in zip(positions, velocities) for h in pair])
    node.trigger_activate()

    now_ns = node.get_clock().now().nanoseconds
    period = Duration(nanoseconds=PERIOD_NS)
    seconds = (cycles + 500) * PERIOD_NS / 1e9 + 1.0
    ctrl._on_trajectory(quintic_trajectory(joints, seconds, waypoints=max(10, int(seconds * 20))))
    durations = np.zeros(cycles, dtype=np.int64)
    for i in range(-500, cycles):  # 500 warm-up cycles
        now_ns += PERIOD_NS
        t0 = time.perf_counter_ns()
        ctrl.update(Time(nanoseconds=now_ns), period)
        elapsed = time.perf_counter_ns() - t0
        if i >= 0:
            durations[i] = elapsed
        realtime_publisher.flush_deferred()
        if command == 'position':  # mock hardware: the joint goes where it is told
            for c, p in zip(commands, positions):
                p.value = c.value
    node.trigger_deactivate()
    node.trigger_cleanup()
    node.destroy_node()
    return summarize(durations)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog='bench_jtc', description=__doc__.splitlines()[0])
    p.add_argument('--cycles', type=int, default=3000)
    p.add_argument('--joints', type=int, nargs='+', default=[6, 30, 100])
    args = p.parse_args(argv)
    context = Context()
    rclpy.init(context=context)
    realtime_publisher.defer_in_thread(threading.get_ident())
    print(f'machine: {os.cpu_count()} cores, python {sys.version.split()[0]}')
    print(f'update() of joint_trajectory_controller, quintic trajectory, {args.cycles} cycles')
    print('| joints | command             |  mean us |  p50 us |  p99 us | p99.9 us |   max us |')
    print('|---:|---|---:|---:|---:|---:|---:|')
    try:
        run(6, 'position', 1000, context)  # warm the interpreter and the CPU up; not shown
        for command, label in (('position', 'position'), ('effort', 'effort (PID)')):
            for n in args.joints:
                s = run(n, command, args.cycles, context)
                print(
                    f'| {n:6d} | {label:<19} | {s.mean_us:8.1f} | {s.p50_us:7.1f} | '
                    f'{s.p99_us:7.1f} | {s.p999_us:8.1f} | {s.max_us:8.1f} |'
                )
    finally:
        realtime_publisher.defer_in_thread(None)
        realtime_publisher.flush_deferred()
        rclpy.try_shutdown(context=context)
    return 0


if __name__ == '__main__':
    sys.exit(main())
