"""CPU use of an idle manager: controllers active, no commands, no goals."""

from __future__ import annotations

import os
import time
from contextlib import nullcontext
from pathlib import Path

from bench.common import (
    BROADCASTER_TOPICS,
    DEMO_CONTROLLERS,
    DEMO_STATE_TOPICS,
    listening,
    running_manager,
    spin_for,
)
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


def idle_cpu_run(robot: str, rate_hz: int, seconds: float, *, heard: bool = False) -> float:
    """Percent of one core the manager process uses over `seconds`, idle at `rate_hz`;
    with `heard`, every state topic of the robot has a subscriber."""
    params, urdf, controllers, topics = ROBOTS[robot]
    with (
        running_manager([params], urdf, controllers, rate_hz=rate_hz) as (proc, ros, _),
        listening(ros, topics) if heard else nullcontext(),
    ):
        spin_for(ros, 1.0)
        pid = proc.process.pid
        cpu0, wall0 = cpu_seconds(pid), time.monotonic()
        spin_for(ros, seconds)
        return 100.0 * (cpu_seconds(pid) - cpu0) / (time.monotonic() - wall0)
