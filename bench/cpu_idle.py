"""CPU use of an idle manager: controllers active, no commands, no goals."""

from __future__ import annotations

import os
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import (
    BROADCASTER_TOPICS,
    DEMO_CONTROLLERS,
    DEMO_STATE_TOPICS,
    listening,
    running_manager,
    spin_for,
)
from py_controllers.realtime_tools.realtime_publisher import HEARD_CHECK_S
from py_controllers.testing import CONFIG

_TICKS_PER_S = os.sysconf('SC_CLK_TCK')

ROBOTS = {
    'demo robot (4 controllers, simulated physics)': (
        CONFIG / 'demo_controllers.yaml',
        CONFIG / 'demo_robot.urdf',
        DEMO_CONTROLLERS,
        DEMO_STATE_TOPICS,
    ),
    'minimal robot (mock, broadcaster + forward controller)': (
        CONFIG / 'minimal_controllers.yaml',
        CONFIG / 'minimal_robot.urdf',
        ['joint_state_broadcaster', 'forward_position_controller'],
        BROADCASTER_TOPICS,
    ),
}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far (from /proc)."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS_PER_S


@dataclass
class IdleWindows:
    """Percent of a core one idle manager process used in each measuring window, in the
    order taken: nobody subscribed (`unheard`), every state topic subscribed (`heard`)."""

    unheard: list[float] = field(default_factory=list)
    heard: list[float] = field(default_factory=list)


def idle_windows(
    robot: str, rate_hz: int, seconds: float, rounds: int, *, heard: bool = False
) -> IdleWindows:
    """One manager process idle at `rate_hz`: `rounds` windows of `seconds` with nobody
    subscribed and, with `heard`, as many with every state topic of the robot subscribed,
    taken in turn (which comes first swaps every round), so that a busy spell of the host
    falls on both alike; each window follows 1.5 s of settling."""
    params, urdf, controllers, topics = ROBOTS[robot]
    windows = IdleWindows()
    with running_manager([params], urdf, controllers, rate_hz=rate_hz) as (proc, ros, _):
        pid = proc.process.pid
        kinds = [False, True] if heard else [False]
        for i in range(rounds):
            for subscribed in kinds if i % 2 == 0 else kinds[::-1]:
                with listening(ros, topics) if subscribed else nullcontext():
                    # long enough for the publishers to see the listeners gone, as well
                    spin_for(ros, HEARD_CHECK_S + 0.5)
                    cpu0, wall0 = cpu_seconds(pid), time.monotonic()
                    spin_for(ros, seconds)
                    cpu = 100.0 * (cpu_seconds(pid) - cpu0) / (time.monotonic() - wall0)
                (windows.heard if subscribed else windows.unheard).append(cpu)
    return windows
