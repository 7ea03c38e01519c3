"""The machine's floor: a bare Python absolute-deadline loop, measured like the manager's."""

from __future__ import annotations

import time

import numpy as np

from py_controllers.controller_manager.loop import sleep_until
from py_controllers.controller_manager.statistics import summarize


def bare_loop(rate_hz: int, seconds: float, spin_ns: int = 200_000) -> dict:
    """Run an empty loop on absolute deadlines; period and lateness statistics."""
    period = round(1e9 / rate_hz)
    n = int(seconds * rate_hz)
    periods = np.zeros(n, dtype=np.int64)
    lateness = np.zeros(n, dtype=np.int64)
    overruns = 0
    last = time.monotonic_ns()
    deadline = last + period
    for i in range(n):
        sleep_until(deadline, spin_ns)
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
