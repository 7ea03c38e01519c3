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


MAX_UPDATE_RATE = 1_000_000  # Hz: a period of 1 us, far beyond any loop in Python


@dataclass(frozen=True)
class LoopSettings:
    """The manager's start-up settings, checked."""

    update_rate: int
    thread_priority: int
    cpu_affinity: tuple[int, ...]
    lock_memory: bool
    watchdog_periods: int
    watchdog_min_stall_s: float | None  # None: automatic (see LoopWatchdog)
    watchdog_exit_on_stall: bool
    watchdog_max_switch_s: float
    spin_us: int
    guard_us: int
    enforce_command_limits: bool
    use_sim_time: bool
    strict_by_default: bool
    allow_inactive_hardware: bool
    deactivate_on_hardware_self_deactivate: bool
    initial_unconfigured: tuple[str, ...]
    initial_inactive: tuple[str, ...]


def _int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise StartupParameterError(f"parameter '{name}' must be an integer, got {value!r}")
    return value


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise StartupParameterError(f"parameter '{name}' must be true or false, got {value!r}")
    return value


def _names(name: str, value: Any) -> tuple[str, ...]:
    """A list of component names (unset: none); a lone string is refused, not split."""
    if value is None:
        return ()
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    hint = f' (write [{value}])' if isinstance(value, str) else ''
    raise StartupParameterError(
        f"parameter '{name}' must be a list of hardware component names, got {value!r}{hint}"
    )


def check_loop_settings(param: Any) -> LoopSettings:
    """Read and check the settings through `param(name)`; raises StartupParameterError."""
    rate = _int('update_rate', param('update_rate'))
    if not 0 < rate <= MAX_UPDATE_RATE:
        raise StartupParameterError(
            f"parameter 'update_rate' must be within 1..{MAX_UPDATE_RATE} Hz, got {rate}"
        )
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
    if min_stall_ms < -1:
        raise StartupParameterError(
            f"parameter 'watchdog.min_stall_ms' must be >= 0 (or -1: automatic), got {min_stall_ms}"
        )
    max_switch_ms = _int('watchdog.max_switch_ms', param('watchdog.max_switch_ms'))
    if max_switch_ms < 0:
        raise StartupParameterError(
            f"parameter 'watchdog.max_switch_ms' must be >= 0, got {max_switch_ms}"
        )
    spin_us = _int('loop.spin_us', param('loop.spin_us'))
    if spin_us < -1:
        raise StartupParameterError(
            f"parameter 'loop.spin_us' must be >= 0 (or -1: automatic), got {spin_us}"
        )
    guard_us = _int('loop.guard_us', param('loop.guard_us'))
    if guard_us < 0:
        raise StartupParameterError(f"parameter 'loop.guard_us' must be >= 0, got {guard_us}")
    strictness = param('defaults.switch_controller.strictness')
    if not isinstance(strictness, str) or strictness.lower() not in ('strict', 'best_effort'):
        raise StartupParameterError(
            "parameter 'defaults.switch_controller.strictness' must be one of "
            f'[strict, best_effort], got {strictness!r}'
        )
    initial = 'hardware_components_initial_state.'
    return LoopSettings(
        update_rate=rate,
        thread_priority=priority,
        cpu_affinity=cpus,
        lock_memory=_bool('lock_memory', param('lock_memory')),
        watchdog_periods=periods,
        watchdog_min_stall_s=None if min_stall_ms == -1 else min_stall_ms * 1e-3,
        watchdog_exit_on_stall=_bool('watchdog.exit_on_stall', param('watchdog.exit_on_stall')),
        watchdog_max_switch_s=max_switch_ms * 1e-3,
        spin_us=spin_us,
        guard_us=guard_us,
        enforce_command_limits=_bool('enforce_command_limits', param('enforce_command_limits')),
        use_sim_time=_bool('use_sim_time', param('use_sim_time')),
        strict_by_default=strictness.lower() == 'strict',
        allow_inactive_hardware=_bool(
            'defaults.allow_controller_activation_with_inactive_hardware',
            param('defaults.allow_controller_activation_with_inactive_hardware'),
        ),
        deactivate_on_hardware_self_deactivate=_bool(
            'defaults.deactivate_controllers_on_hardware_self_deactivate',
            param('defaults.deactivate_controllers_on_hardware_self_deactivate'),
        ),
        initial_unconfigured=_names(f'{initial}unconfigured', param(f'{initial}unconfigured')),
        initial_inactive=_names(f'{initial}inactive', param(f'{initial}inactive')),
    )
