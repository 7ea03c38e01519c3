"""Parameter schemas in the generate_parameter_library YAML format: parse, type-check, validate.

Pure (no rclpy). A schema has one root key (the namespace, e.g. ``joint_trajectory_controller``);
below it, nested mappings are groups (dotted parameter names such as ``constraints.goal_time``)
and a mapping with a ``type`` is a parameter. ``__map_<key>`` repeats its sub-tree once for
every string of the ``string_array`` parameter ``<key>`` (``gains.joint1.p``, ...). Validators
are the built-in ones of generate_parameter_library (``rsl::`` names and messages) or custom
functions looked up by name; a validator returns '' for a valid value, else the reason.
"""

from __future__ import annotations

import array
import json
import math
import numbers
import operator
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from py_controllers.parameters.errors import ParameterError, SchemaError

SCALAR_TYPES = ('bool', 'int', 'double', 'string')
ARRAY_TYPES = ('bool_array', 'int_array', 'double_array', 'string_array')
TYPES = SCALAR_TYPES + ARRAY_TYPES
ELEMENT_TYPE = {
    'bool_array': 'bool',
    'int_array': 'int',
    'double_array': 'double',
    'string_array': 'string',
}
MAP_PREFIX = '__map_'
_LEAF_KEYS = frozenset(
    {'type', 'default_value', 'description', 'read_only', 'validation', 'additional_constraints'}
)
# namespaces under which upstream ships its built-in validators
_BUILTIN_NAMESPACES = ('', 'rsl', 'parameter_traits')

Validate = Callable[..., str]
"""A validator: ``fn(param: ParamView, *args) -> str`` ('' when the value is valid)."""


# --- YAML ------------------------------------------------------------------------------------
class _SchemaLoader(yaml.SafeLoader):
    """SafeLoader that also reads ``1e-3`` (no dot) as a float, as YAML 1.2 and C++ do."""


_SchemaLoader.add_implicit_resolver(
    'tag:yaml.org,2002:float',
    re.compile(r'^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$'),
    list('-+0123456789.'),
)


# --- data model ------------------------------------------------------------------------------
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
        return f'{self.name}: {json.dumps(_plain(self.args), default=str)}'


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


@dataclass(frozen=True)
class ParamView:
    """What a validator sees, shaped like rclpy's ``Parameter``: the full name and the value."""

    name: str
    value: Any


# --- the schema ------------------------------------------------------------------------------
class Schema:
    """A parsed parameter schema; immutable, shareable between listeners."""

    def __init__(self, namespace: str, root: Group) -> None:
        self.namespace = namespace
        self._static: dict[str, Leaf] = {
            s.name: s.leaf for s in _walk(root, '', None, with_static=True, with_maps=False)
        }
        self.root = _resolve_maps(root, ('',), self._static)

    @classmethod
    def from_dict(cls, document: Mapping[str, Any]) -> Schema:
        """Parse an already loaded YAML document; raises SchemaError."""
        if not isinstance(document, Mapping) or len(document) != 1:
            raise SchemaError(
                'A parameter schema must have exactly one root element (the namespace)'
            )
        ((namespace, body),) = document.items()
        if not isinstance(body, Mapping) or not body:
            raise SchemaError(f"The namespace '{namespace}' declares no parameters")
        return cls(str(namespace), _parse_group(body, ()))

    @classmethod
    def from_yaml(cls, text: str) -> Schema:
        """Parse schema YAML text; raises SchemaError."""
        try:
            document = yaml.load(text, Loader=_SchemaLoader)  # a SafeLoader subclass
        except yaml.YAMLError as exc:
            raise SchemaError(f'Invalid YAML: {exc}') from exc
        return cls.from_dict(document)

    @classmethod
    def from_file(cls, path: str | Path) -> Schema:
        """Parse a schema file; raises SchemaError naming the file."""
        try:
            return cls.from_yaml(Path(path).read_text(encoding='utf-8'))
        except SchemaError as exc:
            raise SchemaError(f'{path}: {exc}') from exc

    def static_parameters(self) -> list[ParamSpec]:
        """The parameters outside any ``__map_``, in schema order."""
        return list(_walk(self.root, '', None, with_static=True, with_maps=False))

    def mapped_parameters(self, values: Mapping[str, Any]) -> list[ParamSpec]:
        """The ``__map_`` parameters for the map keys found in ``values`` (else the defaults)."""
        return list(_walk(self.root, '', self._keys_from(values), with_static=False))

    def parameters(self, values: Mapping[str, Any]) -> list[ParamSpec]:
        """Every parameter: the static ones, then the mapped ones for the current map keys."""
        return self.static_parameters() + self.mapped_parameters(values)

    @property
    def key_parameters(self) -> frozenset[str]:
        """Names of the parameters whose values are map keys."""
        return frozenset(m.key_parameter for m in _iter_maps(self.root))

    def check_validators(self, custom_validators: Mapping[str, Validate] | None = None) -> None:
        """Raise SchemaError naming every validator that is neither built in nor supplied."""
        unknown = [
            f"'{v.name}' (parameter '{name}')"
            for name, leaf in _iter_leaves(self.root, '')
            for v in leaf.validators
            if _lookup(v, custom_validators) is None
        ]
        if unknown:
            raise SchemaError(
                f"Unknown validator {', '.join(unknown)} in schema '{self.namespace}': "
                'not a built-in validator and not in custom_validators'
            )

    def _keys_from(self, values: Mapping[str, Any]) -> Callable[[str], tuple[str, ...]]:
        def keys(name: str) -> tuple[str, ...]:
            value = values.get(name)
            if value is None:
                value = self._static[name].default or ()
            return tuple(dict.fromkeys(value))  # a repeated key gives one entry

        return keys


@lru_cache(maxsize=64)
def _load_cached(path: str, _mtime_ns: int) -> Schema:
    return Schema.from_file(path)


def load_schema(path: str | Path) -> Schema:
    """The schema in file ``path``, parsed once per file version; raises SchemaError."""
    resolved = Path(path).resolve()
    try:
        mtime_ns = resolved.stat().st_mtime_ns
    except OSError as exc:
        raise SchemaError(f'Cannot read parameter schema {path}: {exc}') from exc
    return _load_cached(str(resolved), mtime_ns)


# --- parsing ---------------------------------------------------------------------------------
def _is_leaf(node: Any) -> bool:
    return isinstance(node, Mapping) and isinstance(node.get('type'), str)


def _parse_group(raw: Mapping[str, Any], path: tuple[str, ...]) -> Group:
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
            entry = _parse_group(value, (*path, key))
            map_spec = MapSpec(key[len(MAP_PREFIX) :], '', entry)
        elif _is_leaf(value):
            leaf = _parse_leaf(value, where)
            if leaf is not None:
                children[key] = leaf
        elif isinstance(value, Mapping) and value:
            children[key] = _parse_group(value, (*path, key))
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
                f'expected {type_name}, got {_kind(default)} {default!r}'
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
            args = _frozen(raw_args)
        else:  # a lone argument, e.g. `fixed_size<>: 6`
            args = (_frozen(raw_args),)
        validator = Validator(str(function), args)
        if validator.is_builtin:
            _check_builtin(validator, name, type_)
        validators.append(validator)
    return tuple(validators)


def _check_builtin(v: Validator, name: str, type_: str) -> None:
    arity, types, arg_kind = _BUILTIN_RULES[v.base_name]
    if type_ not in types:
        raise SchemaError(f"Validator '{v.name}' cannot check parameter '{name}' of type {type_}")
    if len(v.args) != arity:
        raise SchemaError(
            f"Validator '{v.name}' of parameter '{name}' takes {arity} argument(s), "
            f'got {len(v.args)}: {list(_plain(v.args))}'
        )
    for arg in v.args:
        if not _ARG_CHECKS[arg_kind](arg):
            raise SchemaError(
                f"Validator '{v.name}' of parameter '{name}' expects {arg_kind} arguments, "
                f'got {_plain(arg)!r}'
            )


def _resolve_maps(
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
            child = _resolve_maps(child, inner, static, in_map=in_map)
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
        entry = _resolve_maps(map_spec.entry, scopes, static, in_map=True)
        map_spec = MapSpec(map_spec.key, found, entry)
    return Group(MappingProxyType(children), map_spec)


def _walk(
    group: Group,
    prefix: str,
    keys: Callable[[str], tuple[str, ...]] | None,
    *,
    with_static: bool,
    with_maps: bool = True,
    mapped: bool = False,
) -> Iterator[ParamSpec]:
    for name, child in group.children.items():
        if isinstance(child, Leaf):
            if with_static or mapped:
                yield ParamSpec(prefix + name, child, mapped)
        else:
            yield from _walk(
                child,
                f'{prefix}{name}.',
                keys,
                with_static=with_static,
                with_maps=with_maps,
                mapped=mapped,
            )
    if group.map is not None and with_maps and keys is not None:
        for key in keys(group.map.key_parameter):
            yield from _walk(
                group.map.entry, f'{prefix}{key}.', keys, with_static=with_static, mapped=True
            )


def _iter_leaves(group: Group, prefix: str) -> Iterator[tuple[str, Leaf]]:
    for name, child in group.children.items():
        if isinstance(child, Leaf):
            yield prefix + name, child
        else:
            yield from _iter_leaves(child, f'{prefix}{name}.')
    if group.map is not None:
        yield from _iter_leaves(group.map.entry, f'{prefix}<{group.map.key}>.')


def _iter_maps(group: Group) -> Iterator[MapSpec]:
    for child in group.children.values():
        if isinstance(child, Group):
            yield from _iter_maps(child)
    if group.map is not None:
        yield group.map
        yield from _iter_maps(group.map.entry)


# --- types -----------------------------------------------------------------------------------
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
        f"Wrong type for parameter '{name}': expected {type_}, got {_kind(value)} {value!r}"
    )


def _kind(value: Any) -> str:
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


def _frozen(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


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


def _element_bounds(param: ParamView, lower: Any, upper: Any) -> str:
    for value in param.value:
        if value < lower or value > upper:
            return (
                f"Value '{_fmt(value)}' in parameter '{param.name}' "
                f"must be within bounds '[{_fmt(lower)}, {_fmt(upper)}]'"
            )
    return ''


def _lower_element_bounds(param: ParamView, lower: Any) -> str:
    for value in param.value:
        if value < lower:
            return (
                f"Value '{_fmt(value)}' in parameter '{param.name}' "
                f"must be above lower bound of '{_fmt(lower)}'"
            )
    return ''


def _upper_element_bounds(param: ParamView, upper: Any) -> str:
    for value in param.value:
        if value > upper:
            return (
                f"Value '{_fmt(value)}' in parameter '{param.name}' "
                f"must be below upper bound of '{_fmt(upper)}'"
            )
    return ''


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


def _lookup(v: Validator, custom: Mapping[str, Validate] | None) -> Validate | None:
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
    function = _lookup(v, custom)
    if function is None:
        raise SchemaError(f"Unknown validator '{v.name}'")
    return function


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


def check_values(
    schema: Schema,
    values: Mapping[str, Any],
    custom: Mapping[str, Validate] | None = None,
    *,
    prefix: str = '',
    during_init: bool = False,
) -> list[str]:
    """Every problem of ``values`` (dotted name -> value, None = unset) against ``schema``.

    Parameters missing from ``values`` take their default; names in messages get ``prefix``.
    """
    problems = []
    for spec in schema.parameters(values):
        full_name = prefix + spec.name
        value = values.get(spec.name)
        if value is None:
            if not spec.leaf.has_default:
                problems.append(missing_message(full_name))
                continue
            value = spec.leaf.default
        reason = validate(spec.leaf, full_name, value, custom)
        if reason:
            problems.append(invalid_message(full_name, reason, during_init=during_init))
    return problems


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


# --- snapshots -------------------------------------------------------------------------------
class ParamGroup:
    """An immutable group of parameter values: fields as attributes, ``__map_`` entries by key.

    ``group.p`` reads a field. A group with a ``__map_<key>`` also answers ``group['joint1']``,
    ``'joint1' in group``, ``len(group)``, iteration over the keys, ``keys()``, ``values()``,
    ``items()``, ``get_entry(key)`` (upstream's Python name) and ``<key>_map`` (upstream's C++
    name, a read-only dict). A field of the same name wins over these helpers.
    """

    def __init__(
        self,
        fields: Mapping[str, Any],
        entries: Mapping[str, ParamGroup] | None = None,
        map_key: str | None = None,
    ) -> None:
        state = self.__dict__  # written directly: __setattr__ refuses
        state.update(fields)
        state['_ParamGroup__fields'] = tuple(fields)
        state['_ParamGroup__entries'] = MappingProxyType(dict(entries or {}))
        if map_key is not None:
            state.setdefault(f'{map_key}_map', state['_ParamGroup__entries'])

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"parameter snapshots are read-only (cannot set '{name}')")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"parameter snapshots are read-only (cannot delete '{name}')")

    def __getitem__(self, key: str) -> ParamGroup:
        try:
            return self.__entries[key]
        except KeyError:
            raise KeyError(f"no map entry '{key}' (entries: {list(self.__entries)})") from None

    def __contains__(self, key: object) -> bool:
        return key in self.__entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.__entries)

    def __len__(self) -> int:
        return len(self.__entries)

    def __bool__(self) -> bool:
        return True  # a group is never "empty", whatever its map holds

    def keys(self) -> Any:
        """The map keys (e.g. joint names), in order."""
        return self.__entries.keys()

    def values(self) -> Any:
        """The map entries, in key order."""
        return self.__entries.values()

    def items(self) -> Any:
        """(key, entry) pairs, in key order."""
        return self.__entries.items()

    def get_entry(self, key: str) -> ParamGroup:
        """The map entry of ``key`` (generate_parameter_library's Python accessor)."""
        return self[key]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParamGroup):
            return NotImplemented
        return self.__state() == other.__state()

    __hash__ = None  # type: ignore[assignment]

    def __state(self) -> tuple[dict[str, Any], dict[str, ParamGroup]]:
        return {f: self.__dict__[f] for f in self.__fields}, dict(self.__entries)

    def __repr__(self) -> str:
        parts = [f'{f}={self.__dict__[f]!r}' for f in self.__fields]
        if self.__entries:
            parts.append(f'entries={dict(self.__entries)!r}')
        return f'ParamGroup({", ".join(parts)})'


def build_params(schema: Schema, values: Mapping[str, Any]) -> ParamGroup:
    """An immutable snapshot of ``values`` (dotted name -> value) shaped like the schema.

    Parameters missing from ``values`` (or None there) take their default (None if required).
    """
    return _build_group(schema.root, '', values, schema._keys_from(values))


def _build_group(
    group: Group, prefix: str, values: Mapping[str, Any], keys: Callable[[str], tuple[str, ...]]
) -> ParamGroup:
    fields: dict[str, Any] = {}
    for name, child in group.children.items():
        if isinstance(child, Leaf):
            value = values.get(prefix + name)
            fields[name] = child.default if value is None else value
        else:
            fields[name] = _build_group(child, f'{prefix}{name}.', values, keys)
    if group.map is None:
        return ParamGroup(fields)
    entries = {
        key: _build_group(group.map.entry, f'{prefix}{key}.', values, keys)
        for key in keys(group.map.key_parameter)
    }
    return ParamGroup(fields, entries, group.map.key)
