"""A controller type's parameter schemas (the generate_parameter_library YAMLs its class
names), the rows the tuning page shows from it, and the text a user types read as a
value of the parameter's type. No rclpy.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from py_controllers import plugins
from py_controllers.parameters.errors import ParameterError, SchemaError
from py_controllers.parameters.schema import ParamSpec, Schema, load_schema
from py_controllers.parameters.validators import constraints_text, value_range
from py_controllers.parameters.value_types import coerce, plain_value

SCHEMA_ATTRIBUTES = ('SCHEMA', 'GEOMETRY_SCHEMA')
"""The class attributes naming a controller's parameter files, in the order the page shows
them: its own `SCHEMA` (a steering controller's is the library's) and a steering controller's
`GEOMETRY_SCHEMA` (its own parameters beside the library's)."""


def schema_paths(controller_type: str) -> list[Path]:
    """The parameter files of `controller_type` (e.g. 'pid_controller/PidController') as its
    class names them; [] when it names none (or the type is unknown)."""
    try:
        cls = plugins.load(plugins.CONTROLLERS_GROUP, controller_type, object)
    except plugins.PluginError:
        return []
    named = (getattr(cls, attribute, None) for attribute in SCHEMA_ATTRIBUTES)
    return [Path(path) for path in named if isinstance(path, str | Path)]


def schema_of(controller_type: str) -> tuple[list[Schema], str]:
    """(the parsed schemas, '') or ([], why not) for the page to say."""
    paths = schema_paths(controller_type)
    if not paths:
        return [], f"no parameter schema found for type '{controller_type}'"
    try:
        return [load_schema(path) for path in paths], ''
    except SchemaError as exc:
        return [], str(exc)


@dataclass(frozen=True)
class ParamRow:
    """One parameter as the tuning page shows it."""

    name: str
    type: str  # base type: double, int, bool, string, <type>_array
    type_name: str  # as written in the schema, e.g. string_fixed_25
    description: str
    read_only: bool
    value: Any  # as the node holds it (None: not set)
    default: Any
    range: tuple[float, float] | None  # closed range of a bounded int/double
    rules: str  # the validation rules as the schema writes them

    @property
    def range_text(self) -> str:
        """'[0, inf]' style, or ''."""
        if self.range is None:
            return ''
        return '[' + ', '.join(_plain(v) for v in self.range) + ']'


def param_rows(schemas: Sequence[Schema], values: Mapping[str, Any]) -> list[ParamRow]:
    """Every parameter of `schemas` for the map keys in `values` (dotted name -> value as
    the node holds it), in schema order."""
    return [
        ParamRow(
            name=spec.name,
            type=spec.leaf.type,
            type_name=spec.leaf.type_name,
            description=spec.leaf.description,
            read_only=spec.leaf.read_only,
            value=values.get(spec.name),
            default=plain_value(spec.leaf.default),
            range=value_range(spec.leaf),
            rules=constraints_text(spec.leaf),
        )
        for spec in parameter_specs(schemas, values)
    ]


def parameter_specs(schemas: Sequence[Schema], values: Mapping[str, Any]) -> list[ParamSpec]:
    """Every parameter of `schemas`, in order, for the map keys in `values`."""
    return [spec for schema in schemas for spec in schema.parameters(values)]


def key_parameters(schemas: Sequence[Schema]) -> list[str]:
    """The parameters whose values name the `__map_` entries (read them first)."""
    return sorted({key for schema in schemas for key in schema.key_parameters})


def value_text(value: Any) -> str:
    """A parameter value as the user would type it back."""
    if value is None:
        return ''
    if isinstance(value, str):
        return value
    return _plain(value)


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, float):
        return repr(value)  # 'inf', '-inf', 'nan' read back by parse_value
    if isinstance(value, list | tuple):
        return json.dumps(plain_value(value))
    return str(value)


def parse_value(type_: str, name: str, text: str) -> Any:
    """The text typed for parameter `name` as a value of its type: YAML scalars and flow
    lists (`true`, `2.5`, `.inf`, `inf`, `[1, 2]`); strings as typed. Raises ParameterError
    saying what was expected."""
    if type_ == 'string':
        return text
    stripped = text.strip()
    if type_ == 'double' and stripped.lower() in ('inf', '+inf', '-inf', 'nan'):
        return float(stripped)
    try:
        raw = yaml.safe_load(stripped) if stripped else None
    except yaml.YAMLError:
        raw = stripped
    if type_ == 'double' and isinstance(raw, str):
        with contextlib.suppress(ValueError):
            raw = float(raw)  # YAML 1.1 reads 1e-3 as a string
    if type_ == 'string_array' and isinstance(raw, list):
        raw = [str(v) for v in raw]
    return coerce(type_, name, raw)


__all__ = [
    'ParamRow',
    'ParameterError',
    'key_parameters',
    'param_rows',
    'parameter_specs',
    'parse_value',
    'schema_of',
    'schema_paths',
    'value_text',
]
