"""A controller type's parameter schemas (the generate_parameter_library YAMLs its class
names), the rows the tuning page shows from it, and the text a user types read as a
value of the parameter's type. No rclpy.
"""

from __future__ import annotations

import contextlib
import json
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from py_controllers import plugins, yaml_loading
from py_controllers.parameters.errors import ParameterError, SchemaError
from py_controllers.parameters.schema import ParamSpec, Schema, load_schema
from py_controllers.parameters.validators import constraints_text, value_range
from py_controllers.parameters.value_types import coerce, plain_value

SCHEMA_ATTRIBUTES = ('SCHEMA', 'GEOMETRY_SCHEMA')
"""The class attributes naming a controller's parameter files, in the order the page shows
them: its own `SCHEMA` (a steering controller's is the library's) and a steering controller's
`GEOMETRY_SCHEMA` (its own parameters beside the library's)."""
PREFIXED_ATTRIBUTE = 'PREFIXED_SCHEMAS'
"""The class attribute naming parameter files declared under a prefix made of one of the
controller's own string parameters: ((path, 'gains.{joint}.'), ...), shown after the others."""


@dataclass(frozen=True)
class PrefixedSchema:
    """A schema a controller declares under a prefix filled in from one of its parameters
    (the effort gripper's PID gains under `gains.<joint>.`)."""

    schema: Schema
    template: str  # 'gains.{joint}.': `joint` is the parameter whose value goes there

    def __post_init__(self) -> None:
        if len(self._fields()) != 1:
            raise SchemaError(f"prefix '{self.template}' must name exactly one parameter")

    def _fields(self) -> list[str]:
        return [f for _, f, _, _ in string.Formatter().parse(self.template) if f]

    @property
    def key(self) -> str:
        """The parameter the prefix is made of."""
        return self._fields()[0]

    @property
    def key_parameters(self) -> frozenset[str]:
        """The parameter to read first (its value makes the names)."""
        return frozenset({self.key}) | self.schema.key_parameters

    def parameters(self, values: Mapping[str, Any]) -> list[ParamSpec]:
        """The schema's parameters under the prefix `values` gives; none while the key
        parameter is unset (nothing is declared then)."""
        key = values.get(self.key)
        if not isinstance(key, str) or not key:
            return []
        prefix = self.template.format(**{self.key: key})
        inner = {k[len(prefix) :]: v for k, v in values.items() if k.startswith(prefix)}
        return [
            ParamSpec(prefix + spec.name, spec.leaf, True) for spec in self.schema.parameters(inner)
        ]


AnySchema = Schema | PrefixedSchema


def schema_paths(controller_type: str) -> list[Path]:
    """The parameter files of `controller_type` (e.g. 'pid_controller/PidController') as its
    class names them; [] when it names none (or the type is unknown)."""
    try:
        cls = plugins.load(plugins.CONTROLLERS_GROUP, controller_type, object)
    except plugins.PluginError:
        return []
    named = (getattr(cls, attribute, None) for attribute in SCHEMA_ATTRIBUTES)
    return [Path(path) for path in named if isinstance(path, str | Path)]


def prefixed_paths(controller_type: str) -> list[tuple[Path, str]]:
    """The (parameter file, prefix template) pairs `controller_type` declares under a
    prefix (PREFIXED_ATTRIBUTE); [] when none."""
    try:
        cls = plugins.load(plugins.CONTROLLERS_GROUP, controller_type, object)
    except plugins.PluginError:
        return []
    return [(Path(path), template) for path, template in getattr(cls, PREFIXED_ATTRIBUTE, ())]


def schema_of(controller_type: str) -> tuple[list[AnySchema], str]:
    """(the parsed schemas, '') or ([], why not) for the page to say."""
    paths = schema_paths(controller_type)
    if not paths:
        return [], f"no parameter schema found for type '{controller_type}'"
    try:
        schemas: list[AnySchema] = [load_schema(path) for path in paths]
        for path, template in prefixed_paths(controller_type):
            schemas.append(PrefixedSchema(load_schema(path), template))
        return schemas, ''
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


def param_rows(schemas: Sequence[AnySchema], values: Mapping[str, Any]) -> list[ParamRow]:
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


def parameter_specs(schemas: Sequence[AnySchema], values: Mapping[str, Any]) -> list[ParamSpec]:
    """Every parameter of `schemas`, in order, for the map keys in `values`."""
    return [spec for schema in schemas for spec in schema.parameters(values)]


def key_parameters(schemas: Sequence[AnySchema]) -> list[str]:
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
        raw = yaml_loading.safe_load(stripped) if stripped else None
    except yaml.YAMLError:
        raw = stripped
    if type_ == 'double' and isinstance(raw, str):
        with contextlib.suppress(ValueError):
            raw = float(raw)  # YAML 1.1 reads 1e-3 as a string
    if type_ == 'string_array' and isinstance(raw, list):
        raw = [str(v) for v in raw]
    return coerce(type_, name, raw)


__all__ = [
    'AnySchema',
    'ParamRow',
    'ParameterError',
    'PrefixedSchema',
    'key_parameters',
    'param_rows',
    'parameter_specs',
    'parse_value',
    'prefixed_paths',
    'schema_of',
    'schema_paths',
    'value_text',
]
