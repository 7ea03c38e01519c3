"""What a controller asks the manager for: which command and state interfaces."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum


class InterfaceConfigurationType(IntEnum):
    """How `names` is read, numbered like controller_interface's enum."""

    ALL = 0
    INDIVIDUAL = 1
    NONE = 2
    INDIVIDUAL_BEST_EFFORT = 3
    REGEX = 10


@dataclass
class InterfaceConfiguration:
    """A claim request: ALL interfaces, NONE, or the INDIVIDUAL `names` in this order."""

    type: InterfaceConfigurationType = InterfaceConfigurationType.NONE
    names: list[str] = field(default_factory=list)

    @classmethod
    def individual(cls, names: list[str]) -> InterfaceConfiguration:
        """Exactly these interfaces, in this order (the order controllers index by)."""
        return cls(InterfaceConfigurationType.INDIVIDUAL, list(names))

    @classmethod
    def all(cls) -> InterfaceConfiguration:
        """Every interface there is."""
        return cls(InterfaceConfigurationType.ALL, [])

    @classmethod
    def none(cls) -> InterfaceConfiguration:
        """No interfaces."""
        return cls(InterfaceConfigurationType.NONE, [])
