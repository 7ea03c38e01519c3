"""The machine's floor: a bare Python absolute-deadline loop, measured like the manager's."""

from __future__ import annotations

import threading
import time

import numpy as np

from py_controllers.controller_manager.loop import default_spin_ns, sleep_until
from py_controllers.controller_manager.statistics import summarize
from py_controllers.realtime_tools import scheduling


def bare_loop(rate_hz: int, seconds: float, spin_ns: int | None = None, priority: int = 50) -> dict:
    """An empty loop on absolute deadlines in a thread scheduled like the manager's loop
    (SCHED_FIFO `priority` when permitted, the same final spin); its statistics."""
    result: dict = {}

    def run() -> None:
        scheduling.set_fifo_priority(priority)
        result.update(_loop(rate_hz, seconds, spin_ns))

    thread = threading.Thread(target=run, name='floor')
    thread.start()
    thread.join()
    return result


def _loop(rate_hz: int, seconds: float, spin_ns: int | None) -> dict:
    period = round(1e9 / rate_hz)
    if spin_ns is None:
        spin_ns = default_spin_ns(period)
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
