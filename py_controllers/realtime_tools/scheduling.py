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
