"""SpeedLimiter: the diff drive's per-axis limits, by their parameter names, on RateLimiter."""

from __future__ import annotations

import math

from py_controllers.control_toolbox.rate_limiter import RateLimiter

_NAN = math.nan


class SpeedLimiter(RateLimiter):
    """`linear.x.*` / `angular.z.*` limits; NaN means unlimited."""

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
        super().__init__(
            min_value=min_velocity,
            max_value=max_velocity,
            min_first_derivative_neg=max_acceleration_reverse,
            max_first_derivative_pos=max_acceleration,
            min_first_derivative_pos=max_deceleration,
            max_first_derivative_neg=max_deceleration_reverse,
            min_second_derivative=min_jerk,
            max_second_derivative=max_jerk,
        )
