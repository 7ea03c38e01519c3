"""The handles a transmission reads and writes: a named value on one side of the gears.

A transmission takes anything with `prefix_name`, `interface_name` and a read/write
`value` (the `ValueHandle` protocol), so a component's own state and command interfaces
serve as joint handles; `JointHandle` and `ActuatorHandle` are plain ones to own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from py_controllers.hardware_interface.handle import Handle

HW_IF_ABSOLUTE_POSITION = 'absolute_position'
"""An actuator's absolute (encoder) position: mapped actuator -> joint only, as upstream."""


class ValueHandle(Protocol):
    """What a transmission needs of a handle."""

    prefix_name: str
    interface_name: str
    value: float


class JointHandle(Handle):
    """A joint-side value `<joint>/<interface>` (upstream's transmission_interface::JointHandle)."""

    __slots__ = ()


class ActuatorHandle(Handle):
    """An actuator-side value `<actuator>/<interface>`."""

    __slots__ = ()


class TransmissionError(ValueError):
    """A transmission refused its parameters, its handles or its description
    (upstream's transmission_interface::Exception)."""


def checked(handles: Sequence[ValueHandle], side: str) -> list[ValueHandle]:
    """`handles` as a list, refusing an entry that is not a handle (upstream's null handle)."""
    result = list(handles)
    for i, handle in enumerate(result):
        if not all(hasattr(handle, a) for a in ('prefix_name', 'interface_name', 'value')):
            raise TransmissionError(f'{side} handle #{i} is {handle!r}, not a handle')
    return result


def names_of(handles: Sequence[ValueHandle]) -> list[str]:
    """The distinct prefix names of `handles` in the order they first appear.

    Upstream sorts them, so its joint 1 is the alphabetically first joint whatever the
    order of the `<joint>` tags its loaders read reductions from; here joint 1 is the joint
    of the first handle given, which the loader and the helper keep in `<joint>` order."""
    return list(dict.fromkeys(h.prefix_name for h in handles))


def ordered(handles: Sequence[ValueHandle], names: list[str], interface: str) -> list[ValueHandle]:
    """The handles of `interface`, grouped by `names` in that order."""
    return [
        h
        for name in names
        for h in handles
        if h.prefix_name == name and h.interface_name == interface
    ]
