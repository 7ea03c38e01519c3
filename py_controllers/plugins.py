"""Entry points as Python's pluginlib: controller and hardware types by upstream name.

Discovery logs and skips a broken plug-in; loading one that was asked for by name fails
loudly with a message that says what is wrong.
"""

from __future__ import annotations

import importlib
import logging
import sys
from importlib.metadata import EntryPoint, entry_points

CONTROLLERS_GROUP = 'py_controllers.controllers'
HARDWARE_GROUP = 'py_controllers.hardware'

_log = logging.getLogger(__name__)

# Classes registered in-process (tests, notebooks) take precedence over entry points.
_registered: dict[str, dict[str, type]] = {CONTROLLERS_GROUP: {}, HARDWARE_GROUP: {}}


class PluginError(RuntimeError):
    """A requested plug-in is unknown, fails to import or has the wrong base class."""


def register(group: str, name: str, cls: type) -> None:
    """Register `cls` under `name` in `group` without an entry point."""
    _registered.setdefault(group, {})[name] = cls


def _entry_points(group: str) -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=group)}


def available(group: str) -> list[str]:
    """Names of every plug-in in `group`, sorted."""
    return sorted(set(_entry_points(group)) | set(_registered.get(group, {})))


def load(group: str, name: str, base: type) -> type:
    """The class registered as `name` in `group`, checked to derive from `base`."""
    cls = _registered.get(group, {}).get(name)
    if cls is None:
        ep = _entry_points(group).get(name)
        if ep is None:
            known = ', '.join(available(group)) or 'none'
            raise PluginError(f"unknown type '{name}' in {group} (known: {known})")
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
    code is what the next load() gets (newly installed entry points are seen anyway);
    (modules reloaded, errors). A module that fails to re-import keeps its old code."""
    importlib.invalidate_caches()
    reloaded: list[str] = []
    errors: list[str] = []
    for ep in entry_points(group=group):
        module = ep.value.split(':')[0].strip()
        if module in reloaded or module not in sys.modules:
            continue
        try:
            importlib.reload(sys.modules[module])
            reloaded.append(module)
        except Exception as exc:  # a syntax error in the edited file must not kill the caller
            errors.append(f'{module}: {exc!r}')
    return reloaded, errors
