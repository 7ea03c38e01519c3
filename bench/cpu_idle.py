"""CPU use of an idle manager: the demo controllers active, no commands, no goals."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bench.common import running_demo, spin_for

_TICKS_PER_S = os.sysconf('SC_CLK_TCK')


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far (from /proc)."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS_PER_S


def idle_cpu_run(rate_hz: int, seconds: float, params: dict | None = None) -> float:
    """Percent of one core the manager process uses over `seconds`, idle at `rate_hz`."""
    with running_demo(rate_hz, params) as (proc, ros, _):
        spin_for(ros, 1.0)
        pid = proc.process.pid
        cpu0, wall0 = cpu_seconds(pid), time.monotonic()
        spin_for(ros, seconds)
        return 100.0 * (cpu_seconds(pid) - cpu0) / (time.monotonic() - wall0)
