"""The manager's start-up parameters checked before anything starts.

A value that can never work (a `cpu_affinity` of 2.5, a `thread_priority` of 'high') is
refused with one line naming the parameter, and `ros2_control_node` exits with status 1:
a loop thread that died on it at start would leave a node that looks healthy and moves
nothing. What the operating system may refuse at run time (SCHED_FIFO without the right,
a CPU the machine lacks, mlockall over the limit) only warns, as upstream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class StartupParameterError(ValueError):
    """A start-up parameter of the manager that cannot work."""


@dataclass(frozen=True)
class LoopSettings:
    """The loop thread's settings, checked."""

    update_rate: int
    thread_priority: int
    cpu_affinity: tuple[int, ...]
    lock_memory: bool
    watchdog_periods: int
    watchdog_min_stall_s: float
    watchdog_exit_on_stall: bool


def _int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise StartupParameterError(f"parameter '{name}' must be an integer, got {value!r}")
    return value


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise StartupParameterError(f"parameter '{name}' must be true or false, got {value!r}")
    return value


def check_loop_settings(param: Any) -> LoopSettings:
    """Read and check the settings through `param(name)`; raises StartupParameterError."""
    rate = _int('update_rate', param('update_rate'))
    if rate <= 0:
        raise StartupParameterError(f"parameter 'update_rate' must be > 0, got {rate}")
    priority = _int('thread_priority', param('thread_priority'))
    if not 0 <= priority <= 99:
        raise StartupParameterError(
            f"parameter 'thread_priority' must be within 0..99 (0: the default scheduler), "
            f'got {priority}'
        )
    affinity = param('cpu_affinity')
    if affinity is None:
        cpus: tuple[int, ...] = ()
    elif isinstance(affinity, list | tuple):
        cpus = tuple(_int('cpu_affinity', c) for c in affinity)
    else:
        cpus = (_int('cpu_affinity', affinity),)
    if any(c < 0 for c in cpus):
        raise StartupParameterError(f"parameter 'cpu_affinity' must be CPU numbers >= 0: {cpus}")
    periods = _int('watchdog.periods', param('watchdog.periods'))
    if periods < 1:
        raise StartupParameterError(f"parameter 'watchdog.periods' must be >= 1, got {periods}")
    min_stall_ms = _int('watchdog.min_stall_ms', param('watchdog.min_stall_ms'))
    if min_stall_ms < 0:
        raise StartupParameterError(
            f"parameter 'watchdog.min_stall_ms' must be >= 0, got {min_stall_ms}"
        )
    return LoopSettings(
        update_rate=rate,
        thread_priority=priority,
        cpu_affinity=cpus,
        lock_memory=_bool('lock_memory', param('lock_memory')),
        watchdog_periods=periods,
        watchdog_min_stall_s=min_stall_ms * 1e-3,
        watchdog_exit_on_stall=_bool('watchdog.exit_on_stall', param('watchdog.exit_on_stall')),
    )
