"""The floors: a bare Python absolute-deadline loop, and the manager with next to nothing to do,
measured like the manager's loop, in turn with the loaded demo."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from bench.common import BROADCASTER_TOPICS, listening, measure, running_manager
from bench.demo_load import demo_run
from py_controllers.controller_manager.statistics import summarize
from py_controllers.controller_manager.wake_up import sleep_until, wake_up_policy
from py_controllers.realtime_tools import scheduling
from py_controllers.testing import CONFIG


def bare_loop(rate_hz: int, seconds: float, spin_ns: int | None = None, priority: int = 50) -> dict:
    """An empty loop on absolute deadlines in a thread scheduled like the manager's loop
    (SCHED_FIFO `priority` when permitted, the same timer slack and final spin); its
    statistics."""
    result: dict = {}

    def run() -> None:
        scheduling.set_fifo_priority(priority)
        scheduling.set_timer_slack(scheduling.LOOP_TIMER_SLACK_NS)
        result.update(_loop(rate_hz, seconds, spin_ns))

    thread = threading.Thread(target=run, name='floor')
    thread.start()
    thread.join()
    return result


def _loop(rate_hz: int, seconds: float, spin_ns: int | None) -> dict:
    period = round(1e9 / rate_hz)
    wake_up = wake_up_policy(period, spin_ns)
    n = int(seconds * rate_hz)
    periods = np.zeros(n, dtype=np.int64)
    lateness = np.zeros(n, dtype=np.int64)
    overruns = 0
    last = time.monotonic_ns()
    deadline = last + period
    for i in range(n):
        wake_up.record(sleep_until(deadline, wake_up.spin_ns))
        now = time.monotonic_ns()
        periods[i] = now - last
        lateness[i] = now - deadline
        last = now
        deadline += period
        if now - deadline > 0:
            missed = (now - deadline) // period + 1
            overruns += 1
            deadline += missed * period
    return {
        'period': summarize(periods).as_dict(),
        'lateness': summarize(lateness).as_dict(),
        'overruns': overruns,
        'cycles': n,
        'measured_rate_hz': 1e9 / float(periods.mean()),
    }


def empty_manager_loop(rate_hz: int, seconds: float) -> dict:
    """The manager's own floor: ros2_control_node with the minimal mock robot and only a
    joint state broadcaster whose messages are heard, so its loop, executor and publishing
    thread are alive but the cycle does next to nothing; the loop's statistics."""
    with (
        running_manager(
            [CONFIG / 'minimal_controllers.yaml'],
            CONFIG / 'minimal_robot.urdf',
            ['joint_state_broadcaster'],
            rate_hz=rate_hz,
        ) as (_, ros, cm),
        listening(ros, BROADCASTER_TOPICS),
    ):
        return measure(ros, cm, seconds)


@dataclass
class LoopWindows:
    """Statistics of each measuring window, in the order they were taken: the bare loop, the
    nearly empty manager and the loaded demo, one window of each per round."""

    bare: list[dict] = field(default_factory=list)
    empty: list[dict] = field(default_factory=list)
    demo: list[dict] = field(default_factory=list)


def alternating_windows(rate_hz: int, seconds: float, rounds: int) -> LoopWindows:
    """The three loops measured in turn, `rounds` times, so that a spell of the host (a
    window's p99 moves 1-20x from one minute to the next on a shared VM) falls on each of
    them alike rather than on whichever ran during it."""
    windows = LoopWindows()
    for _ in range(rounds):
        windows.bare.append(bare_loop(rate_hz, seconds))
        windows.demo.append(demo_run(rate_hz, seconds))
        windows.empty.append(empty_manager_loop(rate_hz, seconds))
    return windows
