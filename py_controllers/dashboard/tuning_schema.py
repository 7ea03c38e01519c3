"""A controller type's parameter schema (its generate_parameter_library YAML beside its
module), the rows the tuning page shows from it, and the text a user types read as a
value of the parameter's type. No rclpy.
"""

from __future__ import annotations

import contextlib
import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from py_controllers import plugins
from py_controllers.parameters.errors import ParameterError, SchemaError
from py_controllers.parameters.schema import Schema, load_schema
from py_controllers.parameters.validators import constraints_text, value_range
from py_controllers.parameters.value_types import coerce, plain_value

SCHEMA_SUFFIX = '_parameters.yaml'
SCHEMA_ATTRIBUTES = ('schema', 'SCHEMA', '_SCHEMA')
"""Where a controller class (or its module) names its schema file, as ours do."""


def schema_path(controller_type: str) -> Path | None:
    """The schema file of `controller_type` (e.g. 'pid_controller/PidController'): the one
    its class or module names, else the only `*_parameters.yaml` beside its module, else
    `<package>_parameters.yaml` there; None when there is none (or the type is unknown)."""
    try:
        cls = plugins.load(plugins.CONTROLLERS_GROUP, controller_type, object)
    except plugins.PluginError:
        return None
    module = importlib.import_module(cls.__module__)
    for owner in (cls, module):
        for attribute in SCHEMA_ATTRIBUTES:
            named = getattr(owner, attribute, None)
            if isinstance(named, str | Path) and str(named).endswith('.yaml'):
                return Path(named)
    if module.__file__ is None:
        return None
    folder = Path(module.__file__).parent
    found = sorted(folder.glob(f'*{SCHEMA_SUFFIX}'))
    if len(found) == 1:
        return found[0]
    package = folder / f'{controller_type.split("/")[0]}{SCHEMA_SUFFIX}'
    return package if package.is_file() else None


def schema_of(controller_type: str) -> tuple[Schema | None, str]:
    """(the parsed schema, '') or (None, why not) for the page to say."""
    path = schema_path(controller_type)
    if path is None:
        return None, f"no parameter schema found for type '{controller_type}'"
    try:
        return load_schema(path), ''
    except SchemaError as exc:
        return None, str(exc)


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


def param_rows(schema: Schema, values: Mapping[str, Any]) -> list[ParamRow]:
    """Every parameter of `schema` for the map keys in `values` (dotted name -> value as
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
        for spec in schema.parameters(values)
    ]


def key_parameters(schema: Schema) -> list[str]:
    """The parameters whose values name the `__map_` entries (read them first)."""
    return sorted(schema.key_parameters)


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
    'parse_value',
    'schema_of',
    'schema_path',
    'value_text',
]
