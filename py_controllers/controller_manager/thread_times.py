"""Where a thread's time went, from Linux's scheduler statistics: for the watchdog to say
whether a silent loop computed, waited for a processor, or slept.

`/proc/self/task/<tid>/schedstat` holds the time the thread ran and the time it sat
runnable on a run queue; `/proc/stat` the time the host took from this machine's
processors (steal). Elsewhere (no /proc) a sample is None and nothing is said.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

_TICK_NS = 1_000_000_000 // (os.sysconf('SC_CLK_TCK') if hasattr(os, 'sysconf') else 100)


@dataclass(frozen=True)
class ThreadTimes:
    """One thread's cumulative times (ns), its state letter, and the host's steal (ns)."""

    ran_ns: int
    waited_ns: int
    state: str
    steal_ns: int | None


def sample(native_id: int) -> ThreadTimes | None:
    """The thread `native_id` of this process now, or None if Linux does not say."""
    task = f'/proc/self/task/{native_id}'
    try:
        with open(f'{task}/schedstat') as f:
            ran, waited, _ = f.read().split()
        with open(f'{task}/stat') as f:
            state = f.read().rpartition(')')[2].split()[0]
    except (OSError, ValueError, IndexError):
        return None
    return ThreadTimes(int(ran), int(waited), state, _steal_ns())


def _steal_ns() -> int | None:
    """The host's steal over all processors since boot (the 8th field of /proc/stat's cpu
    line), None where there is none."""
    try:
        with open('/proc/stat') as f:
            fields = f.readline().split()
        return int(fields[8]) * _TICK_NS
    except (OSError, ValueError, IndexError):
        return None


def describe(before: ThreadTimes | None, after: ThreadTimes | None) -> str:
    """One line on `after - before`: what the thread did meanwhile, '' if unknown."""
    if before is None or after is None:
        return ''
    ran_s = (after.ran_ns - before.ran_ns) * 1e-9
    waited_s = (after.waited_ns - before.waited_ns) * 1e-9
    line = (
        f'the loop thread meanwhile ran {ran_s:.3f} s, waited {waited_s:.3f} s for a '
        f'processor, and is now in state {after.state}'
    )
    if before.steal_ns is not None and after.steal_ns is not None:
        line += f'; the host took {(after.steal_ns - before.steal_ns) * 1e-9:.2f} s (steal)'
    return line
