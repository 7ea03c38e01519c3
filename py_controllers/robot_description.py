"""Edits of a robot description that launch files and tests share."""

from __future__ import annotations

import re
from xml.sax.saxutils import escape

_HARDWARE_PLUGIN = re.compile(r'(<hardware>\s*)<plugin>\s*([^<]*?)\s*</plugin>')


def swap_hardware(
    urdf: str, plugin: str, params: dict[str, object] | None = None, *, old: str | None = None
) -> str:
    """`urdf` with its `<hardware>` plugin (only `old`, if given) replaced by `plugin`,
    followed by `params`: how one description serves a mock, a simulated and a real robot.

    ValueError when there is no such plugin to replace.
    """
    extra = ''.join(
        f'<param name="{escape(str(name))}">{escape(str(value))}</param>'
        for name, value in (params or {}).items()
    )

    replaced = 0

    def replace(match: re.Match) -> str:
        nonlocal replaced
        if old is not None and match.group(2) != old:
            return match.group(0)
        replaced += 1
        return f'{match.group(1)}<plugin>{escape(plugin)}</plugin>{extra}'

    swapped = _HARDWARE_PLUGIN.sub(replace, urdf)
    if not replaced:
        raise ValueError(f'the robot description has no <hardware><plugin>{old or ""} to replace')
    return swapped
