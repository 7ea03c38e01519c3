"""Reading hardware `<param>`s and joint descriptions: numbers, limits, initial values."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from py_controllers.hardware_interface.hardware_component import initial_value
from py_controllers.hardware_interface.types import (
    HW_IF_ACCELERATION,
    HW_IF_EFFORT,
    HW_IF_POSITION,
    HW_IF_VELOCITY,
)

_INF = math.inf
_TRUE, _FALSE = ('true', '1', 'yes', 'on'), ('false', '0', 'no', 'off')


@dataclass
class JointBounds:
    """The limits a simulated joint obeys; infinite where there is none."""

    lower: float = -_INF
    upper: float = _INF
    max_velocity: float = _INF
    max_effort: float = _INF
    max_acceleration: float = _INF


def float_param(params: Mapping[str, str], name: str, default: float, where: str) -> float:
    """`params[name]` as a float (`default` if absent); ValueError naming `where` if bad."""
    text = params.get(name)
    if text is None or str(text).strip() == '':
        return default
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{where}: parameter '{name}' is not a number: '{text}'") from None


def bool_param(params: Mapping[str, str], name: str, default: bool, where: str) -> bool:
    """`params[name]` as a bool (`default` if absent); ValueError naming `where` if bad."""
    text = str(params.get(name, '')).strip().lower()
    if not text:
        return default
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise ValueError(f"{where}: parameter '{name}' is not a bool: '{params[name]}'")


def joint_bounds(info: Any, joint: Any) -> JointBounds:
    """Limits of `joint` from `info.limits` if it has them, else from its interfaces' min/max."""
    limits = (getattr(info, 'limits', None) or {}).get(joint.name)
    if limits is not None:
        bounds = JointBounds()
        if getattr(limits, 'has_position_limits', False):
            bounds.lower, bounds.upper = float(limits.lower), float(limits.upper)
        if getattr(limits, 'has_velocity_limits', False):
            bounds.max_velocity = abs(float(limits.velocity))
        if getattr(limits, 'has_effort_limits', False):
            bounds.max_effort = abs(float(limits.effort))
        if getattr(limits, 'has_acceleration_limits', False):
            bounds.max_acceleration = abs(float(limits.acceleration))
        return bounds
    return _interface_bounds(joint)


def _interface_bounds(joint: Any) -> JointBounds:
    bounds = JointBounds()
    where = f"joint '{joint.name}'"
    for itf in joint.command_interfaces:
        low = float_param({'min': itf.min}, 'min', -_INF, where)
        high = float_param({'max': itf.max}, 'max', _INF, where)
        if itf.name == HW_IF_POSITION:
            bounds.lower, bounds.upper = low, high
        elif itf.name in (HW_IF_VELOCITY, HW_IF_EFFORT, HW_IF_ACCELERATION):
            bound = min(abs(low), abs(high))  # symmetric: the tighter side
            setattr(bounds, f'max_{itf.name}', bound)
    return bounds


def initial_state(joint: Any, name: str, fallback_command: bool = False) -> float:
    """Initial value of state interface `name` of `joint` (else its command's, if asked), or 0."""
    sources = [joint.state_interfaces] + ([joint.command_interfaces] if fallback_command else [])
    for interfaces in sources:
        for itf in interfaces:
            if itf.name == name:
                value = initial_value(itf.initial_value)
                if not math.isnan(value):
                    return value
    return 0.0
