"""Which variant of the hot path runs: modules compiled with mypyc, or the pure Python.

The pure Python is the reference: every module below is ordinary Python that a user reads
and steps through, and the package runs without any compiled file. `scripts/setup.sh` builds
the modules of `MODULES` with mypyc next to their sources (`scripts/build_compiled.py`) when a
C compiler is there; Python then imports the extension instead of the `.py`.

The pure variant runs instead, for every module of the list at once (compiled modules call
each other directly), when
- `PY_CONTROLLERS_PURE=1` is set (to compare, or to step through the code in a debugger);
- no compiled module is there (no compiler at setup, or not built yet);
- a source changed since the build: the build records each source's hash, and a compiled
  module older than its source would run stale code, so none is used (`make setup` rebuilds).

`variant()` says which one runs and why; `py-controllers stats`, /diagnostics and the bench
print it.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent
STAMP = PACKAGE / 'compiled.json'
"""Written by the build: {module: sha256 of the source compiled}."""

PURE_ENV = 'PY_CONTROLLERS_PURE'

MODULES = (
    'py_controllers.control_toolbox.pid',
    'py_controllers.joint_limits.soft_limiter',
    'py_controllers.hardware_interface.command_limits',
    'py_controllers.joint_limits.data',
    'py_controllers.joint_limits.helpers',
    'py_controllers.joint_limits.limits',
    'py_controllers.joint_limits.saturation_limiter',
    'py_controllers.hardware.sim_steps',
)
"""The modules a cycle runs through that gain from compiling (A/B of instruction counts per
cycle in docs/speed.md); plain Python either way."""


def source_of(module: str) -> Path:
    """The `.py` file of `module` (one of MODULES)."""
    return PACKAGE.parent.joinpath(*module.split('.')).with_suffix('.py')


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _extension_of(module: str) -> Path | None:
    source = source_of(module)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = source.with_suffix(suffix)
        if candidate.exists():
            return candidate
    return None


def _why_pure() -> str | None:
    """None when the compiled modules can run; else why the pure Python runs."""
    if os.environ.get(PURE_ENV, '') not in ('', '0'):
        return f'{PURE_ENV} is set'
    missing = [m for m in MODULES if _extension_of(m) is None]
    if len(missing) == len(MODULES):
        return 'not built (no C compiler at setup, or setup not run since)'
    if missing:
        return f'not built: {", ".join(missing)} (run make setup)'
    try:
        built = json.loads(STAMP.read_text())
    except (OSError, ValueError):
        return f'{STAMP.name} missing: the build is incomplete (run make setup)'
    stale = [m for m in MODULES if built.get(m) != digest(source_of(m))]
    if stale:
        return f'sources changed since the build: {", ".join(stale)} (make setup rebuilds)'
    return None


class _PureFinder(importlib.abc.MetaPathFinder):
    """Imports each module of MODULES from its `.py` file, never from a compiled one."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, source_of(fullname))


_REASON = _why_pure()
if _REASON is not None and any(_extension_of(m) is not None for m in MODULES):
    sys.meta_path.insert(0, _PureFinder())


def variant() -> str:
    """'compiled (mypyc: N modules)' or 'pure Python (why)'."""
    if _REASON is None:
        return f'compiled (mypyc: {len(MODULES)} modules)'
    return f'pure Python ({_REASON})'


def is_compiled(module: Any) -> bool:
    """True when `module` was loaded from a compiled extension."""
    return not str(getattr(module, '__file__', '')).endswith('.py')
