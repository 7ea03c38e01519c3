"""Parsing of generate_parameter_library YAML into the schema's data model.

Pure (no rclpy). Below the root key, nested mappings are groups and a mapping with a
``type`` is a parameter (a :class:`Leaf`); a ``__map_<key>`` entry is kept as a
:class:`MapSpec` whose key parameter :func:`resolve_maps` fills in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import yaml

from py_controllers import yaml_loading
from py_controllers.parameters.errors import ParameterError, SchemaError
from py_controllers.parameters.validators import Validator, check_builtin_arguments
from py_controllers.parameters.value_types import (
    ARRAY_TYPES,
    ELEMENT_TYPE,
    TYPES,
    coerce,
    frozen_value,
    kind_of,
)

MAP_PREFIX = '__map_'
_LEAF_KEYS = frozenset(
    {'type', 'default_value', 'description', 'read_only', 'validation', 'additional_constraints'}
)
# namespaces under which upstream ships its built-in validators


# --- YAML ------------------------------------------------------------------------------------
class _SchemaLoader(yaml_loading.SafeLoader):
    """The safe loader (libyaml's where there is one) that also reads ``1e-3`` (no dot) as a
    float, as YAML 1.2 and C++ do."""


_SchemaLoader.add_implicit_resolver(
    'tag:yaml.org,2002:float',
    re.compile(r'^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$'),
    list('-+0123456789.'),
)


def load_yaml(text: str) -> Any:
    """The YAML document in ``text``; raises SchemaError."""
    try:
        return yaml.load(text, Loader=_SchemaLoader)  # a safe loader's subclass
    except yaml.YAMLError as exc:
        raise SchemaError(f'Invalid YAML: {exc}') from exc


# --- data model ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Leaf:
    """One parameter declaration of the schema (a YAML leaf)."""

    type: str  # base type, one of TYPES
    type_name: str  # as written, e.g. 'string_fixed_25'
    has_default: bool
    default: Any = None  # coerced (tuples for arrays); None when required
    description: str = ''
    read_only: bool = False
    additional_constraints: str = ''
    validators: tuple[Validator, ...] = ()

    @property
    def is_array(self) -> bool:
        """True for the ``*_array`` types."""
        return self.type in ELEMENT_TYPE


@dataclass(frozen=True)
class MapSpec:
    """A ``__map_<key>`` entry: ``entry`` repeated for every string of ``key_parameter``."""

    key: str  # as written after __map_, e.g. 'joints'
    key_parameter: str  # the resolved dotted name of the string_array parameter
    entry: Group


@dataclass(frozen=True)
class Group:
    """A group of parameters and sub-groups, optionally with one ``__map_`` entry."""

    children: Mapping[str, Leaf | Group]
    map: MapSpec | None = None


@dataclass(frozen=True)
class ParamSpec:
    """One concrete parameter: its dotted name (``gains.joint1.p``) and its declaration."""

    name: str
    leaf: Leaf
    mapped: bool = False  # True when the name comes from a __map_ expansion


# --- parsing ---------------------------------------------------------------------------------
def _is_leaf(node: Any) -> bool:
    return isinstance(node, Mapping) and isinstance(node.get('type'), str)


def parse_group(raw: Mapping[str, Any], path: tuple[str, ...]) -> Group:
    """The group below ``path`` (names as written); raises SchemaError naming the place."""
    children: dict[str, Leaf | Group] = {}
    map_spec = None
    for key, value in raw.items():
        where = '.'.join((*path, str(key)))
        if not isinstance(key, str) or not key:
            raise SchemaError(f"Invalid name '{where}': names must be non-empty strings")
        if key.startswith(MAP_PREFIX):
            if map_spec is not None:
                raise SchemaError(f"Group '{'.'.join(path)}' has more than one __map_ entry")
            if key == MAP_PREFIX or not isinstance(value, Mapping) or not value:
                raise SchemaError(f"Invalid map '{where}': expected __map_<key>: {{parameters}}")
            entry = parse_group(value, (*path, key))
            map_spec = MapSpec(key[len(MAP_PREFIX) :], '', entry)
        elif _is_leaf(value):
            leaf = _parse_leaf(value, where)
            if leaf is not None:
                children[key] = leaf
        elif isinstance(value, Mapping) and value:
            children[key] = parse_group(value, (*path, key))
        else:
            raise SchemaError(
                f"Invalid syntax at '{where}': expected a parameter (a mapping with 'type') "
                'or a group of parameters'
            )
    return Group(MappingProxyType(children), map_spec)


def _split_type(type_name: str, name: str) -> tuple[str, int | None]:
    match = re.fullmatch(r'(.+)_fixed_([0-9]+)', type_name)
    base, size = (match[1], int(match[2])) if match else (type_name, None)
    if base not in TYPES or (size is not None and base not in ('string', *ARRAY_TYPES)):
        allowed = ', '.join((*TYPES, 'string_fixed_<n>', '<array type>_fixed_<n>', 'none'))
        raise SchemaError(
            f"Invalid parameter type '{type_name}' for parameter '{name}'. "
            f'Allowed types are: {allowed}'
        )
    return base, size


def _parse_leaf(raw: Mapping[str, Any], name: str) -> Leaf | None:
    invalid = sorted(set(raw) - _LEAF_KEYS)
    if invalid:
        raise SchemaError(f"Invalid syntax in parameter '{name}': '{invalid[0]}' is not valid")
    type_name = raw['type']
    if type_name == 'none':  # documentation only: nothing is declared
        return None
    base, fixed_size = _split_type(type_name, name)
    read_only = raw.get('read_only', False)
    if not isinstance(read_only, bool):
        raise SchemaError(f"'read_only' of parameter '{name}' must be true or false")
    validators = _parse_validators(raw.get('validation'), name, base)
    if fixed_size is not None:  # upstream adds this rule to every fixed-size type
        validators += (Validator('size_lt<>', (fixed_size + 1,)),)
    default = raw.get('default_value')
    if default is not None:
        try:
            default = coerce(base, name, default)
        except ParameterError as exc:
            raise SchemaError(
                f"Parameter '{name}' has a default_value of the wrong type: "
                f'expected {type_name}, got {kind_of(default)} {default!r}'
            ) from exc
    constraints = raw.get('additional_constraints')
    return Leaf(
        type=base,
        type_name=type_name,
        has_default=default is not None,
        default=default,
        description=str(raw.get('description') or ''),
        read_only=read_only,
        additional_constraints='' if constraints is None else str(constraints),
        validators=validators,
    )


def _parse_validators(raw: Any, name: str, type_: str) -> tuple[Validator, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        raise SchemaError(f"'validation' of parameter '{name}' must be a mapping")
    validators = []
    for function, raw_args in raw.items():
        if raw_args is None:
            args: tuple[Any, ...] = ()
        elif isinstance(raw_args, list):
            args = frozen_value(raw_args)
        else:  # a lone argument, e.g. `fixed_size<>: 6`
            args = (frozen_value(raw_args),)
        validator = Validator(str(function), args)
        if validator.is_builtin:
            check_builtin_arguments(validator, name, type_)
        validators.append(validator)
    return tuple(validators)


def resolve_maps(
    group: Group, scopes: tuple[str, ...], static: Mapping[str, Leaf], *, in_map: bool = False
) -> Group:
    """Fill in each map's key parameter: the innermost static scope that has it wins.

    ``scopes`` are the dotted prefixes of the enclosing static groups, outermost first; below
    a map, groups add no scope (their names depend on the map keys).
    """
    children: dict[str, Leaf | Group] = {}
    for name, child in group.children.items():
        if isinstance(child, Group):
            inner = scopes if in_map else (*scopes, f'{scopes[-1]}{name}.')
            child = resolve_maps(child, inner, static, in_map=in_map)
        children[name] = child
    map_spec = group.map
    if map_spec is not None:
        candidates = [scope + map_spec.key for scope in reversed(scopes)]
        found = next((c for c in candidates if c in static), None)
        if found is None:
            raise SchemaError(
                f"Map '__map_{map_spec.key}' needs a string_array parameter '{map_spec.key}' "
                'outside any map, in its group or a parent group'
            )
        if static[found].type != 'string_array':
            raise SchemaError(
                f"Map '__map_{map_spec.key}' is keyed by '{found}', which is of type "
                f'{static[found].type_name}, not string_array'
            )
        entry = resolve_maps(map_spec.entry, scopes, static, in_map=True)
        map_spec = MapSpec(map_spec.key, found, entry)
    return Group(MappingProxyType(children), map_spec)
