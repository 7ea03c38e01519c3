"""What every filter of a chain shares: its parameter specs and the configuration error.

A filter reads its parameters from a flat mapping (``name -> value``, the part after
``filterN.params.``) once, when it is built; `update()` then runs in the control loop and
returns the filtered value, or None when the filter cannot produce one (upstream's
``update()`` returning false). No rclpy here: the controller turns node parameters into
the mapping.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

REQUIRED = object()  # a ParamSpec default: the parameter must be given


class FilterConfigError(ValueError):
    """A filter chain or one of its filters cannot be configured; the message says why."""


@dataclass(frozen=True)
class ParamSpec:
    """One filter parameter: its name, type ('double' or 'int'), default and rule.

    `check(value)` returns a complaint (e.g. 'must be > 0') or None.
    """

    name: str
    kind: str
    default: Any = REQUIRED
    check: Callable[[float], str | None] | None = None


def gt(bound: float) -> Callable[[float], str | None]:
    """The rule `value > bound`."""
    return lambda v: None if v > bound else f'must be > {bound}'


def bounds(lo: float, hi: float) -> Callable[[float], str | None]:
    """The rule `lo <= value <= hi`."""
    return lambda v: None if lo <= v <= hi else f'must be within [{lo}, {hi}]'


def gt_eq_or_nan(bound: float) -> Callable[[float], str | None]:
    """`value >= bound`, or NaN for 'not set' (control_filters' custom validator)."""
    return lambda v: None if math.isnan(v) or v >= bound else f'must be >= {bound} or NaN'


def lt_eq_or_nan(bound: float) -> Callable[[float], str | None]:
    """`value <= bound`, or NaN for 'not set' (control_filters' custom validator)."""
    return lambda v: None if math.isnan(v) or v <= bound else f'must be <= {bound} or NaN'


def _typed(spec: ParamSpec, value: Any, where: str) -> float | int:
    if isinstance(value, bool):
        raise FilterConfigError(f'{where}: a {spec.kind} is expected, got {value!r}')
    if spec.kind == 'double' and isinstance(value, (int, float)):
        return float(value)
    if spec.kind == 'int' and isinstance(value, int):
        return value
    raise FilterConfigError(f'{where}: a {spec.kind} is expected, got {value!r}')


class Filter:
    """Base of the filters on doubles: subclasses set TYPE and PARAMS and implement update()."""

    TYPE: ClassVar[str]  # upstream's plugin name, e.g. 'control_filters/LowPassFilterDouble'
    PARAMS: ClassVar[tuple[ParamSpec, ...]] = ()

    def __init__(self, name: str, params: Mapping[str, Any]) -> None:
        """Validate `params` (raises FilterConfigError naming the parameter) and configure."""
        self.name = name
        unknown = sorted(set(params) - {spec.name for spec in self.PARAMS})
        if unknown:
            known = ', '.join(spec.name for spec in self.PARAMS)
            raise FilterConfigError(
                f"filter '{name}' ({self.TYPE}): unknown parameter(s) {', '.join(unknown)}; "
                f'it takes {known}'
            )
        values: dict[str, Any] = {}
        for spec in self.PARAMS:
            where = f"filter '{name}' ({self.TYPE}): parameter '{spec.name}'"
            raw = params.get(spec.name)
            if raw is None:
                if spec.default is REQUIRED:
                    raise FilterConfigError(f'{where} is required')
                values[spec.name] = spec.default
                continue
            value = _typed(spec, raw, where)
            complaint = spec.check(value) if spec.check is not None else None
            if complaint:
                raise FilterConfigError(f'{where} {complaint} (got {value!r})')
            values[spec.name] = value
        self.configure(values)

    def configure(self, values: dict[str, Any]) -> None:
        """Set up from validated values (all of PARAMS present); raise FilterConfigError."""

    def update(self, value: float) -> float | None:
        """The filtered value, or None when there is none (the chain stops there)."""
        raise NotImplementedError
