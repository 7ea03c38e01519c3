"""Checking a `~/commands` message against the commanded GPIO interfaces (no rclpy).

A control_msgs/DynamicInterfaceGroupValues names GPIOs in `interface_groups` and, at the
same index of `interface_values`, the interfaces of that GPIO and their values. Like
upstream, a message may name any subset of the commanded GPIOs and interfaces, in any
order; a value named twice takes the last one; NaN is written as it is (to the hardware:
no command). Unlike upstream, a message is taken whole or not at all: one unknown GPIO or
interface, or a count that does not match, rejects it before anything is written
(upstream writes the parts before the fault and, for a count mismatch, errors the update).
Infinite values are refused too: the mock and simulated hardware take them as a fault.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

# Command = (index into the commanded interfaces, value) pairs, applied in this order.
Command = tuple[tuple[int, float], ...]


class CommandRejectedError(ValueError):
    """A message that must not be written; `kind` names the fault (for log throttling)."""

    def __init__(self, kind: str, text: str) -> None:
        super().__init__(text)
        self.kind = kind


class CommandTable:
    """The commanded `<gpio>/<interface>` names, resolved to indices once (at configure)."""

    def __init__(self, interfaces: Iterable[tuple[str, str]]) -> None:
        """`interfaces`: (gpio, interface) in the order of the claimed command interfaces."""
        self.names: list[str] = []
        self._index: dict[str, dict[str, int]] = {}
        for gpio, interface in interfaces:
            self._index.setdefault(gpio, {})[interface] = len(self.names)
            self.names.append(f'{gpio}/{interface}')

    @property
    def gpios(self) -> list[str]:
        """The GPIOs with at least one commanded interface."""
        return list(self._index)

    def resolve(self, groups: Sequence[str], interface_values: Sequence[Any]) -> Command:
        """The (index, value) pairs of a message's `interface_groups` / `interface_values`.

        Raises CommandRejectedError (naming the GPIO, interface or counts at fault) when any part
        of the message is wrong.
        """
        if len(groups) != len(interface_values):
            raise CommandRejectedError(
                'group count',
                f'{len(groups)} interface_groups {list(groups)} but '
                f'{len(interface_values)} interface_values',
            )
        pairs: list[tuple[int, float]] = []
        for gpio, group in zip(groups, interface_values):
            interfaces = self._index.get(gpio)
            if interfaces is None:
                raise CommandRejectedError(
                    'unknown gpio',
                    f"unknown gpio '{gpio}' (commanded gpios: {self.gpios})",
                )
            names, values = list(group.interface_names), list(group.values)
            if len(names) != len(values):
                raise CommandRejectedError(
                    'value count',
                    f"gpio '{gpio}': {len(names)} interface_names {names} but {len(values)} values",
                )
            for name, value in zip(names, values):
                index = interfaces.get(name)
                if index is None:
                    raise CommandRejectedError(
                        'unknown interface',
                        f"gpio '{gpio}' has no commanded interface '{name}' "
                        f'(commanded: {list(interfaces)})',
                    )
                if math.isinf(value):
                    raise CommandRejectedError(
                        'infinite value', f"gpio '{gpio}' interface '{name}': value {value}"
                    )
                pairs.append((index, value))
        return tuple(pairs)
