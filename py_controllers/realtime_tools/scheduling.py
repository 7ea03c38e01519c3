"""Realtime settings for the calling thread: SCHED_FIFO, CPU affinity, locked memory.

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


def lock_memory() -> str | None:
    """mlockall: keep every page of the process in RAM, now and later."""
    libc_name = ctypes.util.find_library('c')
    if libc_name is None:
        return 'no C library found'
    libc = ctypes.CDLL(libc_name, use_errno=True)
    if libc.mlockall(_MCL_CURRENT | _MCL_FUTURE) != 0:
        return os.strerror(ctypes.get_errno())
    return None


def configure_thread(priority: int, cpus: Sequence[int], lock: bool, log: Any) -> None:
    """In the control loop's thread: SCHED_FIFO at `priority` (0 keeps the default
    scheduler), affinity to `cpus` (none: any), `lock` the process memory; what the
    operating system refuses only warns on `log` (info/warning), as upstream."""
    if priority > 0:
        error = set_fifo_priority(priority)
        if error is None:
            log.info(f'control loop thread: SCHED_FIFO priority {priority}')
        else:
            log.warning(
                f'could not enable SCHED_FIFO priority {priority} for the control loop '
                f'({error}); running with the default scheduler'
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
