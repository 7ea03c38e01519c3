"""`make bench ARGS=--hog`: busy loops beside the run, one per core, so that a run on a
loaded host is repeatable (the same load every time, not whatever else the host runs).

Each loop is a Python process pinned to its core that spins and checks now and then that
the bench is still its parent: killed at the end of the run, and gone by itself if the
bench dies without killing it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

# spin; every few million iterations, leave if the parent is gone
BUSY_LOOP = """
import os, sys
os.sched_setaffinity(0, {int(sys.argv[1])})
parent = int(sys.argv[2])
while os.getppid() == parent:
    for _ in range(2_000_000):
        pass
"""


def cores() -> list[int]:
    """The cores this process may run on (each gets one busy loop)."""
    return sorted(os.sched_getaffinity(0))


@contextmanager
def cpu_hog(enabled: bool = True) -> Iterator[list[int]]:
    """One busy loop per core while the block runs; the cores hogged ([] when not `enabled`)."""
    if not enabled:
        yield []
        return
    hogged = cores()
    loops = [
        subprocess.Popen([sys.executable, '-c', BUSY_LOOP, str(core), str(os.getpid())])
        for core in hogged
    ]
    try:
        yield hogged
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait()
