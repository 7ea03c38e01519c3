"""What a command interface holds once no controller claims it: one rule for every path.

Deactivate, error, unspawn, fallback, switch and shutdown all end a claim the same way: the
hardware is told through its command-mode switch (so a component with a hold of its own, a
brake or a simulator's servo, engages it) and the released handles get their hold values:

    position                     the measured position (the state interface of the same
                                 name, hardware's or a chainable controller's) when
                                 finite, else the last finite command, else NaN
    velocity, effort,
    acceleration                 0
    anything else                its last value when finite, else NaN
    NaN-means-no-command         NaN (the hardware's "nothing new")

A controller's reference interface follows the same rule, so a chained follower whose
predecessor failed stops too. NaN means "no command": the command guard turns it into the
hold value before write(), so it never reaches the hardware.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from py_controllers.hardware_interface.types import (
    HW_IF_ACCELERATION,
    HW_IF_EFFORT,
    HW_IF_POSITION,
    HW_IF_VELOCITY,
)

#: Command interfaces whose hold is 0.
STOP_ON_RELEASE = frozenset((HW_IF_VELOCITY, HW_IF_EFFORT, HW_IF_ACCELERATION))


def _finite(value: Any) -> bool:
    return type(value) in (float, int) and math.isfinite(value)


def hold_value(command: Any, states: Mapping[str, Any]) -> float:
    """The value `command` (a CommandInterface) holds when released; `states` maps state
    interface names to handles (a measured position is read from there)."""
    kind = command.interface_name
    if getattr(command, 'nan_means_no_command', False):
        return math.nan
    if kind in STOP_ON_RELEASE:
        return 0.0
    if kind == HW_IF_POSITION:
        measured = states.get(command.name)
        if measured is not None and _finite(measured.value):
            return float(measured.value)
    if _finite(command.value):
        return float(command.value)
    return math.nan


def apply_holds(
    names: Iterable[str], commands: Mapping[str, Any], states: Mapping[str, Any]
) -> None:
    """Set every command interface in `names` to its hold value (unknown names skipped)."""
    for name in names:
        handle = commands.get(name)
        if handle is not None:
            handle.value = hold_value(handle, states)
