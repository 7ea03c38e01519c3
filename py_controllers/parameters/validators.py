"""Validators of parameter values: the built-in ones of generate_parameter_library, lookup of
custom ones, and the texts (messages, descriptor ranges and constraints) built from them.

Pure (no rclpy). A validator is ``fn(param: ParamView, *args) -> str``: '' for a valid value,
else the reason, worded as upstream's ``rsl::parameter_validators`` word it.
"""

from __future__ import annotations

import json
import math
import numbers
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from py_controllers.parameters.errors import SchemaError
from py_controllers.parameters.value_types import ARRAY_TYPES, SCALAR_TYPES, plain_value

if TYPE_CHECKING:
    from py_controllers.parameters.parsing import Leaf

_BUILTIN_NAMESPACES = ('', 'rsl', 'parameter_traits')

Validate = Callable[..., str]
"""A validator: ``fn(param: ParamView, *args) -> str`` ('' when the value is valid)."""


@dataclass(frozen=True)
class Validator:
    """One entry of a ``validation:`` block: the name as written and its arguments."""

    name: str
    args: tuple[Any, ...] = ()

    @property
    def base_name(self) -> str:
        """The function name without namespace and ``<>``: ``gt_eq`` for ``rsl::gt_eq<>``."""
        return self.name.removesuffix('<>').rsplit('::', 1)[-1]

    @property
    def is_builtin(self) -> bool:
        """True for the built-in validators (bare, ``rsl::`` or ``parameter_traits::`` names)."""
        namespace = self.name.removesuffix('<>').rpartition('::')[0]
        return namespace in _BUILTIN_NAMESPACES and self.base_name in BUILTIN_VALIDATORS

    def describe(self) -> str:
        """The rule as a schema author wrote it, e.g. ``gt_eq<>: [0.1]``."""
        if not self.args:
            return self.name
        return f'{self.name}: {json.dumps(plain_value(self.args), default=str)}'


@dataclass(frozen=True)
class ParamView:
    """What a validator sees, shaped like rclpy's ``Parameter``: the full name and the value."""

    name: str
    value: Any


# --- built-in validators (rsl::parameter_validators names and messages) ----------------------
def _fmt(value: Any) -> str:
    """A value as fmt's ``{}`` / ``{:g}`` would print it in the upstream messages."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, float):
        return format(value, 'g')
    return str(value)


def _set(values: Any) -> str:
    return '{' + ', '.join(_fmt(v) for v in values) + '}'


def _compare(relation: str, holds: Callable[[Any, Any], bool]) -> Validate:
    def check(param: ParamView, bound: Any) -> str:
        if holds(param.value, bound):
            return ''
        return (
            f"Parameter '{param.name}' with the value '{_fmt(param.value)}' "
            f"must be {relation} '{_fmt(bound)}'"
        )

    return check


def _compare_size(relation: str, holds: Callable[[int, int], bool]) -> Validate:
    def check(param: ParamView, size: int) -> str:
        if holds(len(param.value), size):
            return ''
        return (
            f"Length of parameter '{param.name}' is '{len(param.value)}' "
            f"but must be {relation} '{size}'"
        )

    return check


def _bounds(param: ParamView, lower: Any, upper: Any) -> str:
    if param.value < lower or param.value > upper:
        return (
            f"Parameter '{param.name}' with the value '{_fmt(param.value)}' "
            f"must be within bounds '[{_fmt(lower)}, {_fmt(upper)}]'"
        )
    return ''


def _one_of(param: ParamView, collection: tuple[Any, ...]) -> str:
    if param.value in collection:
        return ''
    return (
        f"Parameter '{param.name}' with the value '{_fmt(param.value)}' "
        f"is not in the set '{_set(collection)}'"
    )


def _not_empty(param: ParamView) -> str:
    return f"Parameter '{param.name}' cannot be empty" if len(param.value) == 0 else ''


def _unique(param: ParamView) -> str:
    if len(set(param.value)) == len(param.value):
        return ''
    return f"Parameter '{param.name}' must only contain unique values"


def _subset_of(param: ParamView, valid: tuple[Any, ...]) -> str:
    for value in param.value:
        if value not in valid:
            return (
                f"Entry '{_fmt(value)}' in parameter '{param.name}' "
                f"is not in the set '{_set(valid)}'"
            )
    return ''


def _first_element_outside(param: ParamView, lower: Any, upper: Any, requirement: str) -> str:
    """The message for the first element below `lower` or above `upper` (None: no bound)."""
    for value in param.value:
        if (lower is not None and value < lower) or (upper is not None and value > upper):
            return f"Value '{_fmt(value)}' in parameter '{param.name}' must be {requirement}"
    return ''


def _element_bounds(param: ParamView, lower: Any, upper: Any) -> str:
    within = f"within bounds '[{_fmt(lower)}, {_fmt(upper)}]'"
    return _first_element_outside(param, lower, upper, within)


def _lower_element_bounds(param: ParamView, lower: Any) -> str:
    return _first_element_outside(param, lower, None, f"above lower bound of '{_fmt(lower)}'")


def _upper_element_bounds(param: ParamView, upper: Any) -> str:
    return _first_element_outside(param, None, upper, f"below upper bound of '{_fmt(upper)}'")


BUILTIN_VALIDATORS: Mapping[str, Validate] = MappingProxyType(
    {
        'gt': _compare('greater than', operator.gt),
        'gt_eq': _compare('greater than or equal to', operator.ge),
        'lt': _compare('less than', operator.lt),
        'lt_eq': _compare('less than or equal to', operator.le),
        'lower_bounds': _compare('above lower bound of', operator.ge),
        'upper_bounds': _compare('below upper bound of', operator.le),
        'bounds': _bounds,
        'one_of': _one_of,
        'not_empty': _not_empty,
        'size_gt': _compare_size('greater than', operator.gt),
        'size_lt': _compare_size('less than', operator.lt),
        'fixed_size': _compare_size('equal to', operator.eq),
        'unique': _unique,
        'subset_of': _subset_of,
        'element_bounds': _element_bounds,
        'lower_element_bounds': _lower_element_bounds,
        'upper_element_bounds': _upper_element_bounds,
    }
)
"""Built-in validators by base name, each ``fn(param: ParamView, *args) -> str``."""

_NUMERIC = frozenset({'int', 'double'})
_SIZED = frozenset({'string', *ARRAY_TYPES})
_ARRAYS = frozenset(ARRAY_TYPES)
_NUMERIC_ARRAYS = frozenset({'int_array', 'double_array'})
_ARG_CHECKS: Mapping[str, Callable[[Any], bool]] = {
    'number': lambda a: isinstance(a, numbers.Real) and not isinstance(a, bool),
    'size': lambda a: isinstance(a, int) and not isinstance(a, bool) and a >= 0,
    'list': lambda a: isinstance(a, tuple),
}
# base name -> (number of arguments, parameter types it checks, kind of its arguments)
_BUILTIN_RULES: Mapping[str, tuple[int, frozenset[str], str]] = {
    **dict.fromkeys(
        ('gt', 'gt_eq', 'lt', 'lt_eq', 'lower_bounds', 'upper_bounds'), (1, _NUMERIC, 'number')
    ),
    'bounds': (2, _NUMERIC, 'number'),
    'one_of': (1, frozenset(SCALAR_TYPES), 'list'),
    'not_empty': (0, _SIZED, 'size'),
    'size_gt': (1, _SIZED, 'size'),
    'size_lt': (1, _SIZED, 'size'),
    'fixed_size': (1, _SIZED, 'size'),
    'unique': (0, _ARRAYS, 'size'),
    'subset_of': (1, _ARRAYS, 'list'),
    'element_bounds': (2, _NUMERIC_ARRAYS, 'number'),
    'lower_element_bounds': (1, _NUMERIC_ARRAYS, 'number'),
    'upper_element_bounds': (1, _NUMERIC_ARRAYS, 'number'),
}


def lookup_validator(v: Validator, custom: Mapping[str, Validate] | None) -> Validate | None:
    custom = custom or {}
    if v.name in custom:
        return custom[v.name]
    if v.is_builtin:
        return BUILTIN_VALIDATORS[v.base_name]
    for key in (v.name.removesuffix('<>'), v.base_name):
        if key in custom:
            return custom[key]
    return None


def resolve_validator(v: Validator, custom: Mapping[str, Validate] | None = None) -> Validate:
    """The function behind ``v``: an exact custom name, a built-in, then a custom base name.

    Custom validators are found by the name as written (``my_pkg::check<>``), without the
    ``<>``, or by the bare function name (``check``). Raises SchemaError when none matches.
    """
    function = lookup_validator(v, custom)
    if function is None:
        raise SchemaError(f"Unknown validator '{v.name}'")
    return function


def check_builtin_arguments(v: Validator, name: str, type_: str) -> None:
    """Raise SchemaError when built-in ``v`` cannot check ``type_`` or has wrong arguments."""
    arity, types, arg_kind = _BUILTIN_RULES[v.base_name]
    if type_ not in types:
        raise SchemaError(f"Validator '{v.name}' cannot check parameter '{name}' of type {type_}")
    if len(v.args) != arity:
        raise SchemaError(
            f"Validator '{v.name}' of parameter '{name}' takes {arity} argument(s), "
            f'got {len(v.args)}: {list(plain_value(v.args))}'
        )
    for arg in v.args:
        if not _ARG_CHECKS[arg_kind](arg):
            raise SchemaError(
                f"Validator '{v.name}' of parameter '{name}' expects {arg_kind} arguments, "
                f'got {plain_value(arg)!r}'
            )


# --- validating values -----------------------------------------------------------------------
def validate(
    leaf: Leaf, name: str, value: Any, custom: Mapping[str, Validate] | None = None
) -> str:
    """The first broken rule's message for ``value`` of parameter ``name``, or '' if valid."""
    view = ParamView(name, value)
    for v in leaf.validators:
        function = resolve_validator(v, custom)
        try:
            message = function(view, *v.args)
        except Exception as exc:  # a broken custom validator must not kill a set request
            message = f"Validator '{v.name}' failed on parameter '{name}': {exc!r}"
        if message:
            return str(message)
    return ''


def missing_message(name: str) -> str:
    """The message for a required parameter (no default_value) that nobody set."""
    return f"Parameter '{name}' is required (it has no default_value) but was not set"


def invalid_message(name: str, reason: str, *, during_init: bool = False) -> str:
    """The message for a value rejected by a validator (upstream wording)."""
    when = ' set during initialization' if during_init else ''
    return f"Invalid value{when} for parameter '{name}': {reason}"


def value_range(leaf: Leaf) -> tuple[float, float] | None:
    """The closed range implied by the bound validators of an int/double parameter, or None.

    Several bounds intersect; exclusive bounds (gt, lt) give their value, as upstream does,
    and the validator still rejects the end point.
    """
    if leaf.type not in _NUMERIC:
        return None
    lower, upper, found = -math.inf, math.inf, False
    for v in leaf.validators:
        if not v.is_builtin:
            continue
        base = v.base_name
        if base == 'bounds':
            lower, upper = max(lower, v.args[0]), min(upper, v.args[1])
        elif base in ('gt', 'gt_eq', 'lower_bounds'):
            lower = max(lower, v.args[0])
        elif base in ('lt', 'lt_eq', 'upper_bounds'):
            upper = min(upper, v.args[0])
        else:
            continue
        found = True
    return (lower, upper) if found else None


def constraints_text(leaf: Leaf) -> str:
    """Text for the descriptor's additional_constraints: the schema's own, then the rules."""
    parts = [leaf.additional_constraints] if leaf.additional_constraints else []
    if leaf.validators:
        parts.append('Validation: ' + '; '.join(v.describe() for v in leaf.validators))
    return '\n'.join(parts)
