"""control_toolbox's `control_filters::*_or_nan` parameter validators (no ROS).

Limits that default to NaN ("not set") use them in upstream's parameter files, e.g. the
mecanum drive's `linear.x.max_acceleration`: NaN passes, any other value must satisfy the
bound.
"""

from __future__ import annotations

import math
from typing import Any


def _or_nan(relation: str, holds: Any) -> Any:
    def check(param: Any, bound: float) -> str:
        value = param.value
        if math.isnan(value) or holds(value, bound):
            return ''
        return (
            f"Parameter '{param.name}' with the value '{value:g}' "
            f"must be NaN or {relation} '{bound:g}'"
        )

    return check


#: for `ControllerParameters(custom_validators=...)`
FILTER_VALIDATORS = {
    'control_filters::gt_eq_or_nan': _or_nan('greater than or equal to', lambda v, b: v >= b),
    'control_filters::lt_eq_or_nan': _or_nan('less than or equal to', lambda v, b: v <= b),
}
