"""SpeedLimiter: a RateLimiter built from the diff drive's `linear.x.*` / `angular.z.*` names."""

from __future__ import annotations

import math
from typing import Any

from py_controllers.control_toolbox.rate_limiter import RateLimiter

_NAN = math.nan

# diff drive parameter name -> RateLimiter argument (as upstream's DiffDriveController wires it)
_RATE_LIMITER_ARG = {
    'min_velocity': 'min_value',
    'max_velocity': 'max_value',
    'max_acceleration_reverse': 'min_first_derivative_neg',
    'max_acceleration': 'max_first_derivative_pos',
    'max_deceleration': 'min_first_derivative_pos',
    'max_deceleration_reverse': 'max_first_derivative_neg',
    'min_jerk': 'min_second_derivative',
    'max_jerk': 'max_second_derivative',
}


class SpeedLimiter(RateLimiter):
    """One axis' velocity, acceleration and jerk limits; NaN means unlimited.

    Signs as in the parameter file: max_deceleration and max_acceleration_reverse are <= 0,
    max_deceleration_reverse >= 0. Raises ValueError naming the diff drive parameters at
    fault when a lower bound exceeds its upper bound.
    """

    def __init__(
        self,
        max_velocity: float = _NAN,
        min_velocity: float = _NAN,
        max_acceleration: float = _NAN,
        max_deceleration: float = _NAN,
        max_acceleration_reverse: float = _NAN,
        max_deceleration_reverse: float = _NAN,
        max_jerk: float = _NAN,
        min_jerk: float = _NAN,
    ) -> None:
        given = locals()
        try:
            super().__init__(**{arg: given[name] for name, arg in _RATE_LIMITER_ARG.items()})
        except ValueError as exc:
            message = str(exc)
            for name, arg in _RATE_LIMITER_ARG.items():
                message = message.replace(arg, name)
            raise ValueError(message) from None

    @classmethod
    def from_parameters(cls, group: Any) -> SpeedLimiter:
        """From a parameter group holding the eight `linear.x.*`-style limits."""
        return cls(**{name: float(getattr(group, name)) for name in _RATE_LIMITER_ARG})
