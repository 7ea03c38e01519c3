"""Parameter value types of the generate_parameter_library format, and coercion to them.

Pure (no rclpy). Arrays are held as tuples; an int is accepted where a double is expected.
"""

from __future__ import annotations

import array
import numbers
from typing import Any

from py_controllers.parameters.errors import ParameterError

SCALAR_TYPES = ('bool', 'int', 'double', 'string')
ARRAY_TYPES = ('bool_array', 'int_array', 'double_array', 'string_array')
TYPES = SCALAR_TYPES + ARRAY_TYPES
ELEMENT_TYPE = {
    'bool_array': 'bool',
    'int_array': 'int',
    'double_array': 'double',
    'string_array': 'string',
}

_BAD = object()


def _coerce_scalar(type_: str, value: Any) -> Any:
    if type_ == 'bool':
        return value if isinstance(value, bool) else _BAD
    if isinstance(value, bool):
        return _BAD
    if type_ == 'int':
        return int(value) if isinstance(value, numbers.Integral) else _BAD
    if type_ == 'double':  # an int is fine where a double is expected
        return float(value) if isinstance(value, numbers.Real) else _BAD
    return value if isinstance(value, str) else _BAD


def coerce(type_: str, name: str, value: Any) -> Any:
    """``value`` as a value of parameter ``name`` of base type ``type_``; raises ParameterError.

    Ints are accepted for doubles (also inside arrays); arrays become tuples, and an empty
    sequence of any element type is an empty array of ``type_``.
    """
    element = ELEMENT_TYPE.get(type_)
    if element is None:
        result = _coerce_scalar(type_, value)
        if result is not _BAD:
            return result
    elif isinstance(value, list | tuple | array.array):
        items = tuple(_coerce_scalar(element, item) for item in value)
        if _BAD not in items:
            return items
    raise ParameterError(
        f"Wrong type for parameter '{name}': expected {type_}, got {kind_of(value)} {value!r}"
    )


def kind_of(value: Any) -> str:
    """The parameter type name of ``value`` for messages ('int', 'array', 'nothing', ...)."""
    if isinstance(value, bool):
        return 'bool'
    if isinstance(value, numbers.Integral):
        return 'int'
    if isinstance(value, numbers.Real):
        return 'double'
    if isinstance(value, str):
        return 'string'
    if isinstance(value, list | tuple | array.array):
        return 'array'
    return 'nothing' if value is None else type(value).__name__


def frozen_value(value: Any) -> Any:
    """``value`` with every list turned into a tuple (hashable, immutable)."""
    if isinstance(value, list | tuple):
        return tuple(frozen_value(v) for v in value)
    return value


def plain_value(value: Any) -> Any:
    """``value`` with every tuple turned back into a list (for JSON and messages)."""
    if isinstance(value, tuple | list):
        return [plain_value(v) for v in value]
    return value
