"""Turn a group of PID parameters into :class:`~py_controllers.control_toolbox.pid.Gains`.

One reader for every controller that takes PID gains from parameters (the ROS 1 style joint
controllers' ``pid.*``, pid_controller's ``gains.<dof>.*``, the trajectory controller's
``gains.<joint>.*``), so the parameter names mean the same everywhere. A group is any object
with attributes (a parameter snapshot) or a mapping; a missing name takes its default:

========================= ============== ==========================================
name                      default        meaning
========================= ============== ==========================================
p, i, d                   0              gains
i_clamp                   NaN (unset)    ROS 1 symmetric integral bound: +-abs(i_clamp);
                                         NaN or inf leaves it unset (jazzy JTC: inf)
i_clamp_max / i_clamp_min +inf / -inf    integral bounds (finite values win over
                                         i_clamp)
u_clamp_max / u_clamp_min +inf / -inf    output bounds
saturation                (unset)        false drops the output bounds (PidROS)
antiwindup_strategy       'none'         none, back_calculation,
                                         conditional_integration, legacy (jazzy)
tracking_time_constant    0              back_calculation Tt (0 picks a default)
error_deadband            machine eps    no integration while abs(error) <= this
antiwindup                false          jazzy's legacy flag (only used by 'legacy')
========================= ============== ==========================================

Deliberate deviations from ROS 1: a missing ``i_clamp`` leaves the integral unbounded (ROS 1
bounded it to 0, i.e. no integral action), and a positive ``i_clamp_min`` or negative
``i_clamp_max`` is rejected (as control_toolbox 5.x/6.x does) instead of having its sign
flipped silently.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Any

from py_controllers.control_toolbox.pid import AntiWindupStrategy, Gains

__all__ = ['antiwindup_flag', 'gains_from_parameters']

_INF = math.inf


def _get(group: Any, name: str, default: Any) -> Any:
    if isinstance(group, Mapping):
        value = group.get(name, default)
    else:
        value = getattr(group, name, default)
    return default if value is None else value


def _float(group: Any, prefix: str, name: str, default: float) -> float:
    value = _get(group, name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"parameter '{prefix}{name}' must be a number, got {value!r}")
    return float(value)


def gains_from_parameters(group: Any, *, prefix: str = '') -> Gains:
    """Gains from one parameter group, validated; raises ``ValueError`` naming the parameter.

    ``prefix`` (e.g. ``'gains.joint1.'``) only decorates error messages. The back-calculation
    tracking time constant is left as given (0 = default); :class:`Pid` resolves it.
    """
    p = _float(group, prefix, 'p', 0.0)
    i = _float(group, prefix, 'i', 0.0)
    d = _float(group, prefix, 'd', 0.0)

    i_max, i_min = _INF, -_INF
    i_clamp = _float(group, prefix, 'i_clamp', math.nan)
    if math.isfinite(i_clamp):
        i_max, i_min = abs(i_clamp), -abs(i_clamp)
    i_clamp_max = _float(group, prefix, 'i_clamp_max', _INF)
    i_clamp_min = _float(group, prefix, 'i_clamp_min', -_INF)
    if i_clamp_max != _INF:
        i_max = i_clamp_max
    if i_clamp_min != -_INF:
        i_min = i_clamp_min
    if math.isnan(i_max) or i_max < 0.0:
        raise ValueError(f"parameter '{prefix}i_clamp_max' must be >= 0, got {i_max}")
    if math.isnan(i_min) or i_min > 0.0:
        raise ValueError(f"parameter '{prefix}i_clamp_min' must be <= 0, got {i_min}")

    u_max = _float(group, prefix, 'u_clamp_max', _INF)
    u_min = _float(group, prefix, 'u_clamp_min', -_INF)
    if _get(group, 'saturation', True) is False:
        u_max, u_min = _INF, -_INF
    if not u_min < u_max:
        raise ValueError(
            f"parameter '{prefix}u_clamp_min' ({u_min}) must be less than "
            f"'{prefix}u_clamp_max' ({u_max})"
        )

    strategy = AntiWindupStrategy(
        type=str(_get(group, 'antiwindup_strategy', 'none')),
        i_max=i_max,
        i_min=i_min,
        tracking_time_constant=_float(group, prefix, 'tracking_time_constant', 0.0),
        error_deadband=_float(group, prefix, 'error_deadband', sys.float_info.epsilon),
        legacy_antiwindup=bool(_get(group, 'antiwindup', False)),
    )
    gains = Gains(p=p, i=i, d=d, u_max=u_max, u_min=u_min, antiwindup_strategy=strategy)
    try:
        gains.resolved()
    except ValueError as exc:
        raise ValueError(f"PID parameters '{prefix}*': {exc}") from exc
    return gains


def antiwindup_flag(gains: Gains) -> bool:
    """The ``antiwindup`` boolean reported in control_msgs/JointControllerState.

    True when the integral is actively kept from winding up: a back-calculation or
    conditional-integration strategy, or jazzy's legacy flag.
    """
    strategy = gains.antiwindup_strategy
    return strategy.type in ('back_calculation', 'conditional_integration') or (
        strategy.type == 'legacy' and strategy.legacy_antiwindup
    )


def gains_problem(groups: dict[str, Any]) -> str:
    """'' when every group (prefix -> parameter group) holds valid gains, else the reasons:
    the consistency check that refuses invalid gains at `ros2 param set`."""
    problems = []
    for prefix, group in groups.items():
        try:
            gains_from_parameters(group, prefix=prefix)
        except (KeyError, ValueError) as exc:
            problems.append(str(exc))
    return '; '.join(problems)
