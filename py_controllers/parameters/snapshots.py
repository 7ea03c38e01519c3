"""Parameter snapshots: immutable values shaped like the schema, swapped whole on a change.

Pure (no rclpy). Readers (the control loop) hold a reference to one snapshot; a change of
parameters builds a new one instead of mutating it, so a reader never sees half an update.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from py_controllers.parameters.parsing import Group, Leaf

if TYPE_CHECKING:
    from py_controllers.parameters.schema import Schema


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
    return _build_group(schema.root, '', values, schema.keys_from(values))


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
