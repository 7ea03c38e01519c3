"""Apply `joint_limits.<joint>.*` parameters onto JointLimits / SoftJointLimits.

Mirrors upstream's `joint_limits_rosparam.hpp` (`get_joint_limits` for both structures),
given the parameters as a plain mapping so that no rclpy is needed:

- parameters overwrite the values they set, looser or tighter (no "tighter wins"; that
  rule belongs to the `<ros2_control>` interface min/max, see component_parser);
- a value is read only together with its flag: `has_velocity_limits: true` plus
  `max_velocity` sets the bound, `has_velocity_limits: false` switches the bound off and
  keeps the old value (unused while the flag is off); likewise for position
  (`min_position` and `max_position`), acceleration, deceleration, jerk and effort;
- soft limits are taken only as a whole: `has_soft_limits: true` with all of k_position,
  k_velocity, soft_lower_limit and soft_upper_limit replaces the four values;
  `has_soft_limits: false` leaves the soft limits as they were (it does not remove the
  URDF `<safety_controller>`).

Where upstream silently drops what the user wrote, this raises InvalidJointLimitsError
(a ValueError) naming the joint and parameter instead: an unknown name, a wrong type, a
flag set to true without its value(s), a value without its flag, NaN, a negative
magnitude, min_position >= max_position, soft_lower_limit >= soft_upper_limit, and
`angle_wraparound: true` on a joint that ends up with position limits.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import cast

from py_controllers.joint_limits.errors import InvalidJointLimitsError
from py_controllers.joint_limits.limits import (
    MAGNITUDE_BOUNDS,
    JointLimits,
    SoftJointLimits,
    validate_joint_limits,
)

PARAMETER_NAMESPACE = 'joint_limits'

JOINT_LIMITS_PARAMETERS = (
    'has_position_limits',
    'min_position',
    'max_position',
    'has_velocity_limits',
    'max_velocity',
    'has_acceleration_limits',
    'max_acceleration',
    'has_deceleration_limits',
    'max_deceleration',
    'has_jerk_limits',
    'max_jerk',
    'has_effort_limits',
    'max_effort',
    'angle_wraparound',
)
SOFT_LIMITS_PARAMETERS = (
    'has_soft_limits',
    'k_position',
    'k_velocity',
    'soft_lower_limit',
    'soft_upper_limit',
)
_SOFT_VALUES = SOFT_LIMITS_PARAMETERS[1:]
_BOOL_PARAMETERS = frozenset(
    name for name in JOINT_LIMITS_PARAMETERS + SOFT_LIMITS_PARAMETERS if name.startswith('has_')
) | {'angle_wraparound'}


def joint_limits_parameters(parameters: Mapping[str, object], joint_name: str) -> dict[str, object]:
    """The `joint_limits.<joint_name>.*` entries of a flat {full name: value} mapping (a
    node's parameters), keyed by the name after the prefix."""
    prefix = f'{PARAMETER_NAMESPACE}.{joint_name}.'
    return {
        key[len(prefix) :]: value for key, value in parameters.items() if key.startswith(prefix)
    }


def apply_limits_parameters(
    joint_name: str,
    parameters: Mapping[str, object],
    limits: JointLimits | None = None,
    soft_limits: SoftJointLimits | None = None,
) -> tuple[JointLimits, SoftJointLimits | None]:
    """Merge one joint's parameters (keys without the `joint_limits.<joint>.` prefix) onto
    copies of `limits` (default: no limits) and `soft_limits` (default: none).

    Returns the new (limits, soft limits); the inputs are not changed. The soft limits stay
    None when neither they nor the parameters give any. Raises InvalidJointLimitsError.
    """
    unknown = sorted(set(parameters) - set(JOINT_LIMITS_PARAMETERS + SOFT_LIMITS_PARAMETERS))
    if unknown:
        raise InvalidJointLimitsError(
            f"joint '{joint_name}': unknown joint limits parameter(s) {', '.join(unknown)}"
        )
    for name, value in parameters.items():
        _check_type(joint_name, name, value)
    merged = _apply_hard(joint_name, parameters, limits or JointLimits())
    merged_soft = _apply_soft(joint_name, parameters, soft_limits)
    return merged, merged_soft


def _check_type(joint_name: str, name: str, value: object) -> None:
    where = f"joint '{joint_name}': parameter '{PARAMETER_NAMESPACE}.{joint_name}.{name}'"
    if name in _BOOL_PARAMETERS:
        if not isinstance(value, bool):
            raise InvalidJointLimitsError(f'{where} must be a bool, got {value!r}')
    elif isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidJointLimitsError(f'{where} must be a number, got {value!r}')
    elif math.isnan(value):
        raise InvalidJointLimitsError(f'{where} must be a number, got NaN')


def _number(parameters: Mapping[str, object], name: str) -> float:
    """A parameter already checked by `_check_type` to be a real number."""
    return float(cast(float, parameters[name]))


def _error(joint_name: str, message: str) -> InvalidJointLimitsError:
    return InvalidJointLimitsError(f"joint '{joint_name}': {message}")


def _apply_hard(
    joint_name: str, parameters: Mapping[str, object], limits: JointLimits
) -> JointLimits:
    merged = dataclasses.replace(limits)
    given = parameters.get
    if 'has_position_limits' in parameters:
        merged.has_position_limits = bool(given('has_position_limits'))
        if merged.has_position_limits:
            missing = [n for n in ('min_position', 'max_position') if n not in parameters]
            if missing:
                raise _error(
                    joint_name, f'has_position_limits is true but {" and ".join(missing)} not set'
                )
            low, high = _number(parameters, 'min_position'), _number(parameters, 'max_position')
            if low >= high:
                raise _error(
                    joint_name, f'min_position ({low}) must be below max_position ({high})'
                )
            merged.lower, merged.upper = low, high
    else:
        for name in ('min_position', 'max_position'):
            if name in parameters:
                raise _error(joint_name, f'{name} is set but has_position_limits is not')
    if 'angle_wraparound' in parameters:
        wrap = bool(given('angle_wraparound'))
        if wrap and merged.has_position_limits:
            raise _error(joint_name, 'angle_wraparound cannot be true with position limits')
        merged.angle_wraparound = wrap
    for flag, attr, name in MAGNITUDE_BOUNDS:
        if flag not in parameters:
            if name in parameters:
                raise _error(joint_name, f'{name} is set but {flag} is not')
            continue
        setattr(merged, flag, bool(given(flag)))
        if not given(flag):
            continue
        if name not in parameters:
            raise _error(joint_name, f'{flag} is true but {name} is not set')
        setattr(merged, attr, _number(parameters, name))  # sign checked below
    validate_joint_limits(joint_name, merged)
    return merged


def _apply_soft(
    joint_name: str, parameters: Mapping[str, object], soft_limits: SoftJointLimits | None
) -> SoftJointLimits | None:
    current = dataclasses.replace(soft_limits) if soft_limits is not None else None
    if 'has_soft_limits' not in parameters:
        given = [name for name in _SOFT_VALUES if name in parameters]
        if given:
            raise _error(joint_name, f'{", ".join(given)} set but has_soft_limits is not')
        return current
    if not parameters['has_soft_limits']:
        return current
    missing = [name for name in _SOFT_VALUES if name not in parameters]
    if missing:
        raise _error(joint_name, f'has_soft_limits is true but {", ".join(missing)} not set')
    k_position, k_velocity, low, high = (_number(parameters, n) for n in _SOFT_VALUES)
    for name, gain in (('k_position', k_position), ('k_velocity', k_velocity)):
        if gain < 0.0:
            raise _error(joint_name, f'{name} must be >= 0, got {gain}')
    if low >= high:
        raise _error(
            joint_name, f'soft_lower_limit ({low}) must be below soft_upper_limit ({high})'
        )
    return SoftJointLimits(
        min_position=low, max_position=high, k_position=k_position, k_velocity=k_velocity
    )
