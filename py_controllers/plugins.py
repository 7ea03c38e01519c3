"""Entry points as Python's pluginlib: controller and hardware types by upstream name.

Discovery logs and skips a broken plug-in; loading one that was asked for by name fails
loudly with a message that says what is wrong.
"""

from __future__ import annotations

import difflib
import importlib
import logging
import sys
from importlib.metadata import EntryPoint, entry_points

CONTROLLERS_GROUP = 'py_controllers.controllers'
HARDWARE_GROUP = 'py_controllers.hardware'

_log = logging.getLogger(__name__)

SUGGESTIONS = 3
"""Most names an unknown-type error suggests (the full list belongs to a listing command)."""
CUTOFF = 0.6
"""Least similarity (difflib ratio) of a suggestion, as difflib.get_close_matches."""
BAND = 0.1
"""Suggestions are within this of the best one: a one-letter typo gets one answer."""

LISTING = {
    CONTROLLERS_GROUP: '`ros2 control list_controller_types` or `py-controllers types`',
    HARDWARE_GROUP: "the README's table 'Controllers and hardware'",
}
"""Where a user sees every name of a group, for the unknown-type error."""

# Classes registered in-process (tests, notebooks) take precedence over entry points.
_registered: dict[str, dict[str, type]] = {CONTROLLERS_GROUP: {}, HARDWARE_GROUP: {}}


class PluginError(RuntimeError):
    """A requested plug-in is unknown, fails to import or has the wrong base class."""


def register(group: str, name: str, cls: type) -> None:
    """Register `cls` under `name` in `group` without an entry point."""
    _registered.setdefault(group, {})[name] = cls


# Reading the entry points scans every installed distribution's metadata (about 18 ms with
# this venv's), whatever the group: one scan serves every group asked for so far (a manager
# asks for two, each alone cost the scan). reload() reads them again, as upstream's
# reload_controller_libraries makes a new class loader, and so does a name not found (a
# package installed since).
_scanned: dict[str, dict[str, EntryPoint]] = {}


def _entry_points(group: str, *, rescan: bool = False) -> dict[str, EntryPoint]:
    if rescan or group not in _scanned:
        everything = entry_points()
        for name in {group, *_scanned, *_registered}:
            _scanned[name] = {ep.name: ep for ep in everything.select(group=name)}
    return _scanned[group]


def _entry_point(group: str, name: str) -> EntryPoint | None:
    found = _entry_points(group).get(name)
    return found if found is not None else _entry_points(group, rescan=True).get(name)


def has(group: str, name: str) -> bool:
    """Whether a plug-in named `name` is registered or installed in `group`."""
    return name in _registered.get(group, {}) or _entry_point(group, name) is not None


def available(group: str) -> list[str]:
    """Names of every plug-in in `group`, sorted."""
    return sorted(set(_entry_points(group)) | set(_registered.get(group, {})))


def close_names(name: str, known: list[str]) -> list[str]:
    """The registered names most like `name`, best first; a name without '/' (the package
    left out) is compared with the class part of each."""

    def key(k: str) -> str:
        return k if '/' in name else k.rpartition('/')[2]

    scored = sorted(
        ((difflib.SequenceMatcher(None, name, key(k)).ratio(), k) for k in known),
        key=lambda rk: -rk[0],
    )
    if not scored:
        return []
    least = max(CUTOFF, scored[0][0] - BAND)
    return [k for ratio, k in scored[:SUGGESTIONS] if ratio >= least]


def unknown_type_message(group: str, name: str) -> str:
    """Why `name` cannot be loaded from `group`: the closest registered names (a misspelling
    is the usual cause) and where to see them all, not the whole list."""
    known = available(group)
    close = close_names(name, known)
    hint = f'did you mean {" or ".join(repr(c) for c in close)}? ' if close else ''
    if len(known) <= SUGGESTIONS:  # a short list is the best hint
        return f"unknown type '{name}' in {group}: {hint}(known: {', '.join(known) or 'none'})"
    where = LISTING.get(group, f"entry-point group '{group}'")
    return f"unknown type '{name}' in {group}: {hint}({len(known)} known: see {where})"


def load(group: str, name: str, base: type) -> type:
    """The class registered as `name` in `group`, checked to derive from `base`."""
    cls = _registered.get(group, {}).get(name)
    if cls is None:
        ep = _entry_point(group, name)
        if ep is None:
            raise PluginError(unknown_type_message(group, name))
        try:
            cls = ep.load()
        except Exception as exc:  # an import error of a plug-in must not kill the caller
            raise PluginError(f"type '{name}' ({ep.value}) failed to import: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise PluginError(f"type '{name}' is {cls!r}, which is not a {base.__name__}")
    return cls


def base_class_name(group: str, name: str) -> str:
    """The upstream base class name reported by list_controller_types for `name`."""
    try:
        from py_controllers.controller_interface.chainable_controller import (
            ChainableControllerInterface,
        )

        cls = load(group, name, object)
        if issubclass(cls, ChainableControllerInterface):
            return 'controller_interface::ChainableControllerInterface'
    except PluginError as exc:
        _log.debug('skipping broken plug-in %s: %s', name, exc)
    return 'controller_interface::ControllerInterface'


def reload(group: str) -> tuple[list[str], list[str]]:
    """Re-import the modules of the plug-ins of `group` that are imported already, so edited
    code is what the next load() gets, and read the entry points again;
    (modules reloaded, errors). A module that fails to re-import keeps its old code."""
    importlib.invalidate_caches()
    _scanned.clear()
    reloaded: list[str] = []
    errors: list[str] = []
    for ep in _entry_points(group).values():
        module = ep.value.split(':')[0].strip()
        if module in reloaded or module not in sys.modules:
            continue
        try:
            importlib.reload(sys.modules[module])
            reloaded.append(module)
        except Exception as exc:  # a syntax error in the edited file must not kill the caller
            errors.append(f'{module}: {exc!r}')
    return reloaded, errors
