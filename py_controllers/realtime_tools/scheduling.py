"""Realtime settings for the calling thread: SCHED_FIFO, CPU affinity, locked memory, the
timer slack.

Each returns None on success or the reason it could not be applied; none is required
(an ordinary user on an ordinary kernel gets the reasons, and the loop runs anyway).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_MCL_CURRENT = 1
_MCL_FUTURE = 2
_PR_SET_TIMERSLACK = 29

LOOP_TIMER_SLACK_NS = 1
"""The loop thread's timer slack: Linux lets a thread's sleep end up to its slack late (50 us
by default) to batch wake-ups; a SCHED_FIFO thread has none, the default scheduler's does."""


def has_realtime_kernel() -> bool:
    """True on a PREEMPT_RT kernel (it publishes /sys/kernel/realtime = 1)."""
    try:
        return Path('/sys/kernel/realtime').read_text().strip() == '1'
    except OSError:
        return False


def set_fifo_priority(priority: int) -> str | None:
    """Run the calling thread under SCHED_FIFO at `priority` (1..99)."""
    if not 1 <= priority <= 99:
        return f'priority {priority} is outside 1..99'
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    except (OSError, AttributeError) as exc:
        return str(exc)
    return None


def set_cpu_affinity(cpus: Sequence[int]) -> str | None:
    """Pin the calling thread to `cpus`."""
    try:
        os.sched_setaffinity(0, set(cpus))
    except (OSError, ValueError, AttributeError) as exc:
        return f'{list(cpus)}: {exc}'
    return None


def _libc() -> Any:
    name = ctypes.util.find_library('c')
    return None if name is None else ctypes.CDLL(name, use_errno=True)


def set_timer_slack(slack_ns: int) -> str | None:
    """Let the calling thread's sleeps end at most `slack_ns` (>= 1) after their time."""
    libc = _libc()
    if libc is None:
        return 'no C library found'
    if libc.prctl(_PR_SET_TIMERSLACK, ctypes.c_ulong(slack_ns), 0, 0, 0) != 0:
        return os.strerror(ctypes.get_errno())
    return None


def lock_memory() -> str | None:
    """mlockall: keep every page of the process in RAM, now and later."""
    libc = _libc()
    if libc is None:
        return 'no C library found'
    if libc.mlockall(_MCL_CURRENT | _MCL_FUTURE) != 0:
        return os.strerror(ctypes.get_errno())
    return None


def configure_thread(priority: int, cpus: Sequence[int], lock: bool, log: Any) -> None:
    """In the control loop's thread: SCHED_FIFO at `priority` (0 keeps the default
    scheduler), affinity to `cpus` (none: any), `lock` the process memory, and the least
    timer slack (which the default scheduler would add to every sleep); what the operating
    system refuses only warns on `log` (info/warning), as upstream."""
    if priority > 0:
        error = set_fifo_priority(priority)
        if error is None:
            log.info(f'control loop thread: SCHED_FIFO priority {priority}')
        else:
            log.warning(
                f'could not enable SCHED_FIFO priority {priority} for the control loop '
                f'({error}); running with the default scheduler'
            )
    error = set_timer_slack(LOOP_TIMER_SLACK_NS)
    if error is not None:
        log.warning(
            f'could not set the timer slack of the control loop thread: {error}; its sleeps may '
            'end up to 50 us late'
        )
    if cpus:
        error = set_cpu_affinity(list(cpus))
        if error is None:
            log.info(f'control loop thread pinned to CPUs {list(cpus)}')
        else:
            log.warning(f'could not set the CPU affinity of the control loop: {error}')
    if lock:
        error = lock_memory()
        if error is not None:
            log.warning(f'could not lock the process memory: {error}')
