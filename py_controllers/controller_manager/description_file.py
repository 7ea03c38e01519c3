"""A robot description read from a file named by `robot_description_file`.

A file whose name ends in `.xacro` (`robot.urdf.xacro`) is expanded with xacro, the ROS
package on PyPI, as a launch file's `xacro robot.urdf.xacro name:=value` would: `$(find pkg)`
resolves through the ament index (AMENT_PREFIX_PATH, which the setup's virtual environment
sets), and `robot_description_xacro_args` gives the xacro arguments as `name:=value`
strings (a list, or one string as on xacro's command line). Any other file is taken as it
is; xacro arguments without a `.xacro` file are refused.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from py_controllers.controller_manager.startup_parameters import StartupParameterError

XACRO_ARGS = 'robot_description_xacro_args'


class DescriptionFileError(ValueError):
    """The description file cannot be read or expanded."""


def is_xacro(path: str) -> bool:
    return path.endswith('.xacro')


def xacro_arguments(value: Any) -> list[str]:
    """`robot_description_xacro_args` as a list: a list of strings is one argument each;
    one string is split as xacro's command line is by a shell
    (`"prefix:=left_ use_mock_hardware:=true"`); unset is []."""
    if value is None:
        return []
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError as exc:
            raise StartupParameterError(f"parameter '{XACRO_ARGS}': {exc} in {value!r}") from exc
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return list(value)
    raise StartupParameterError(
        f"parameter '{XACRO_ARGS}' must be a list of 'name:=value' strings, got {value!r}"
    )


def xacro_mappings(args: Sequence[str]) -> dict[str, str]:
    """`name:=value` strings as xacro's argument mappings; StartupParameterError naming
    the first one that is not of that form."""
    mappings = {}
    for arg in args:
        name, sep, value = arg.partition(':=')
        if not sep or not name.strip():
            raise StartupParameterError(
                f"parameter '{XACRO_ARGS}': '{arg}' is not of the form name:=value"
            )
        mappings[name.strip()] = value
    return mappings


def check_description_file(path: str, xacro_args: Sequence[str]) -> dict[str, str]:
    """The xacro mappings to expand `path` with; StartupParameterError for arguments
    that no xacro file takes (a misspelt file name would otherwise drop them silently)."""
    mappings = xacro_mappings(xacro_args)
    if mappings and not is_xacro(path):
        named = f"'{path}' is not a .xacro file" if path else "'robot_description_file' is unset"
        raise StartupParameterError(
            f"parameter '{XACRO_ARGS}' is for a .xacro robot_description_file, but {named}"
        )
    return mappings


def read_description_file(path: str, mappings: dict[str, str] | None = None) -> str:
    """The description in `path`, a `.xacro` file expanded with `mappings`."""
    if not is_xacro(path):
        try:
            return Path(path).read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise DescriptionFileError(f'cannot be read: {exc}') from exc
    if not Path(path).is_file():
        raise DescriptionFileError('cannot be read: no such file')
    try:
        import xacro
    except ImportError as exc:
        raise DescriptionFileError(
            'is a xacro file and the xacro package is not installed (pip install xacro)'
        ) from exc
    try:
        return xacro.process_file(path, mappings=dict(mappings or {})).toprettyxml(indent='  ')
    except Exception as exc:  # xacro raises its own, XML, name and lookup errors
        raise DescriptionFileError(f'xacro failed: {exc}') from exc


def description_from_parameters(path: str, xacro_args: Any = None) -> str:
    """What the manager loads from its `robot_description_file` and `XACRO_ARGS` parameter
    values, for a program that reads them (the dashboard); ValueError saying why not."""
    return read_description_file(path, check_description_file(path, xacro_arguments(xacro_args)))
