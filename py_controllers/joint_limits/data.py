"""The per-joint values a limiter reads (actual state) and limits (desired command).

Mirrors upstream's `joint_limits::JointControlInterfacesData`: one optional value per
interface type, None when the joint has no such interface (or it is not claimed). A value
that is present but NaN means "no command (yet)" for a command and "not measured" for a state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# The interface types a limiter knows, in the order upstream handles them.
INTERFACE_FIELDS: Final = ('position', 'velocity', 'effort', 'acceleration', 'jerk')


@dataclass(slots=True)
class JointControlInterfacesData:
    """Position, velocity, effort, acceleration and jerk of one joint; None = interface absent."""

    joint_name: str = ''
    position: float | None = None
    velocity: float | None = None
    effort: float | None = None
    acceleration: float | None = None
    jerk: float | None = None

    def has_data(self) -> bool:
        """True when at least one interface value is present (NaN counts as present)."""
        return (
            self.position is not None
            or self.velocity is not None
            or self.effort is not None
            or self.acceleration is not None
            or self.jerk is not None
        )

    def __str__(self) -> str:
        values = ', '.join(
            f'{name}: {getattr(self, name)}'
            for name in INTERFACE_FIELDS
            if getattr(self, name) is not None
        )
        return f"Joint: '{self.joint_name}'" + (f', {values}' if values else '')
