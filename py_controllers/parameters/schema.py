"""Parameter schemas in the generate_parameter_library YAML format: parse, type-check, validate.

Pure (no rclpy). A schema has one root key (the namespace, e.g. ``joint_trajectory_controller``);
below it, nested mappings are groups (dotted parameter names such as ``constraints.goal_time``)
and a mapping with a ``type`` is a parameter. ``__map_<key>`` repeats its sub-tree once for
every string of the ``string_array`` parameter ``<key>`` (``gains.joint1.p``, ...). Validators
are the built-in ones of generate_parameter_library (``rsl::`` names and messages) or custom
functions looked up by name; a validator returns '' for a valid value, else the reason.

The package is split along its seams: ``value_types`` (types and coercion), ``validators``
(built-in and custom validators, their messages), ``parsing`` (YAML to the data model),
``snapshots`` (immutable parameter values) and this module (the :class:`Schema` and checks of
whole value sets). Every public name stays importable from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from py_controllers.parameters.errors import SchemaError
from py_controllers.parameters.parsing import (
    MAP_PREFIX,
    Group,
    Leaf,
    MapSpec,
    ParamSpec,
    load_yaml,
    parse_group,
    resolve_maps,
)
from py_controllers.parameters.snapshots import ParamGroup, build_params
from py_controllers.parameters.validators import (
    BUILTIN_VALIDATORS,
    ParamView,
    Validate,
    Validator,
    constraints_text,
    invalid_message,
    lookup_validator,
    missing_message,
    resolve_validator,
    validate,
    value_range,
)
from py_controllers.parameters.value_types import (
    ARRAY_TYPES,
    ELEMENT_TYPE,
    SCALAR_TYPES,
    TYPES,
    coerce,
)

__all__ = [
    'ARRAY_TYPES',
    'BUILTIN_VALIDATORS',
    'ELEMENT_TYPE',
    'MAP_PREFIX',
    'SCALAR_TYPES',
    'TYPES',
    'Group',
    'Leaf',
    'MapSpec',
    'ParamGroup',
    'ParamSpec',
    'ParamView',
    'Schema',
    'Validate',
    'Validator',
    'build_params',
    'check_values',
    'coerce',
    'constraints_text',
    'invalid_message',
    'load_schema',
    'missing_message',
    'resolve_validator',
    'validate',
    'value_range',
]


# --- the schema ------------------------------------------------------------------------------
class Schema:
    """A parsed parameter schema; immutable, shareable between listeners."""

    def __init__(self, namespace: str, root: Group) -> None:
        self.namespace = namespace
        self._static: dict[str, Leaf] = {
            s.name: s.leaf for s in _walk(root, '', None, with_static=True, with_maps=False)
        }
        self.root = resolve_maps(root, ('',), self._static)

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
        return cls(str(namespace), parse_group(body, ()))

    @classmethod
    def from_yaml(cls, text: str) -> Schema:
        """Parse schema YAML text; raises SchemaError."""
        return cls.from_dict(load_yaml(text))

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
        return list(_walk(self.root, '', self.keys_from(values), with_static=False))

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
            if lookup_validator(v, custom_validators) is None
        ]
        if unknown:
            raise SchemaError(
                f"Unknown validator {', '.join(unknown)} in schema '{self.namespace}': "
                'not a built-in validator and not in custom_validators'
            )

    def keys_from(self, values: Mapping[str, Any]) -> Callable[[str], tuple[str, ...]]:
        """``keys(name)``: the map keys held by key parameter ``name`` in ``values``.

        A key parameter missing from ``values`` (or None there) gives its default keys.
        """

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
