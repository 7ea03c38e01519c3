"""What a command interface holds once no controller commands it: the one table.

Every way a claim ends (deactivate, failed activation, error, fallback, unspawn, a hardware
state change, shutdown, a second signal) goes through the manager's release transaction
(`controller_manager/release.py`), which writes these values; the command guard keeps them
at every write() until the interface is claimed again, and uses the same table for a
command that is not a finite number while it is claimed.

    kind                         hold
    position-like (`position`)   the measured value (the state interface of the same name)
                                 when finite, else the last finite command, else the
                                 interface's declared hold, else 0.0
    every other kind (velocity,  the interface's declared hold, else 0.0
    acceleration, effort,
    torque, current, force,
    gpio, unknown kinds)
    `nan_means_no_command`       NaN (the hardware's own "nothing new")

A hardware component declares a hold of its own with `CommandInterface(..., hold=value)`.
Only `nan_means_no_command` interfaces ever hold NaN. This module never imports rclpy.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

from py_controllers.hardware_interface.types import (
    HW_IF_ACCELERATION,
    HW_IF_CURRENT,
    HW_IF_EFFORT,
    HW_IF_FORCE,
    HW_IF_POSITION,
    HW_IF_TORQUE,
    HW_IF_VELOCITY,
)

#: Interface kinds that hold where they are measured; every other kind holds 0.
POSITION_LIKE = frozenset((HW_IF_POSITION,))
#: Kinds that move a joint by their value: a non-finite command on one, while claimed,
#: stops it (0). On any other kind (position-like, gpio, unknown kinds) it keeps the last
#: finite command the hardware got: NaN is upstream's "nothing new".
MOTION_KINDS = frozenset(
    (HW_IF_VELOCITY, HW_IF_ACCELERATION, HW_IF_EFFORT, HW_IF_TORQUE, HW_IF_CURRENT, HW_IF_FORCE)
)


def as_finite_float(value: Any) -> float | None:
    """`value` as a Python float when it is a finite real number (int, bool, float, numpy
    scalar), else None. Never raises: a huge int that overflows a float is None."""
    if type(value) is float:
        return value if value - value == 0.0 else None
    if not isinstance(value, numbers.Real):
        return None
    try:
        converted = float(value)
    except (OverflowError, TypeError, ValueError):
        return None
    return converted if converted - converted == 0.0 else None


def is_finite_number(value: Any) -> bool:
    """True for a finite real number that converts to a finite float (see as_finite_float)."""
    return as_finite_float(value) is not None


def declared_hold(handle: Any) -> float | None:
    """The hold the exporting hardware declared for `handle` (None: the table decides)."""
    return as_finite_float(getattr(handle, 'hold', None))


def hold_value(handle: Any, measured: Any = None, last_command: Any = None) -> float:
    """The value command interface `handle` holds when nobody commands it; `measured` is its
    position state's value (position-like kinds), `last_command` its last finite command."""
    if getattr(handle, 'nan_means_no_command', False):
        return math.nan
    declared = declared_hold(handle)
    if handle.interface_name in POSITION_LIKE:
        for candidate in (measured, last_command, declared):
            value = as_finite_float(candidate)
            if value is not None:
                return value
        return 0.0
    return 0.0 if declared is None else declared


def measured_value(handle: Any, states: Mapping[str, Any]) -> Any:
    """The measured value a position-like `handle` holds at: its state of the same name."""
    if handle.interface_name not in POSITION_LIKE:
        return None
    state = states.get(handle.name)
    return None if state is None else state.value


def apply_holds(
    names: Iterable[str], commands: Mapping[str, Any], states: Mapping[str, Any]
) -> None:
    """Set every command interface in `names` to its hold value (unknown names skipped); the
    last command is the value it has now. Used for controllers' reference interfaces: a
    chained follower of a released controller holds too."""
    for name in names:
        handle = commands.get(name)
        if handle is not None:
            handle.value = hold_value(handle, measured_value(handle, states), handle.value)
