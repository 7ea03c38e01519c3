"""State and command interface handles: one named double shared by hardware and controllers.

A handle is a plain object with a `value` attribute so the control loop reads and writes it
without locks or ROS calls (the loop is the only writer of commands while it runs).
"""

from __future__ import annotations

import math

NAN = math.nan


class Handle:
    """A named value `<prefix>/<interface>`, e.g. `joint1/position`."""

    __slots__ = ('data_type', 'interface_name', 'name', 'prefix_name', 'value')

    def __init__(
        self,
        prefix_name: str,
        interface_name: str,
        value: float = NAN,
        *,
        data_type: str = 'double',
    ) -> None:
        self.prefix_name = prefix_name
        self.interface_name = interface_name
        self.name = f'{prefix_name}/{interface_name}'
        self.value = value
        self.data_type = data_type

    def get_value(self) -> float:
        """The current value (NaN means 'not set yet'); ros2_control's accessor, kept for
        plug-ins ported from C++ (ours read and write `value` directly)."""
        return self.value

    def set_value(self, value: float) -> bool:
        """Store a new value; always succeeds (kept for ros2_control API familiarity)."""
        self.value = value
        return True

    def __repr__(self) -> str:
        return f'{type(self).__name__}({self.name}={self.value})'


class StateInterface(Handle):
    """A value the hardware (or a chainable controller) reports."""

    __slots__ = ()


class CommandInterface(Handle):
    """A value a controller commands; claimed by at most one active controller.

    `nan_means_no_command`: the exporting hardware reads NaN as "nothing new" (upstream's
    motion primitive interfaces, which the hardware clears after taking a command), so NaN
    reaches its write() instead of a hold value; infinities are still refused.

    `hold`: the value the hardware wants while nobody commands this interface (None: the
    manager's table decides, see `hold.py`: position-like kinds the measured position,
    every other kind 0).
    """

    __slots__ = ('hold', 'nan_means_no_command')

    def __init__(
        self,
        prefix_name: str,
        interface_name: str,
        value: float = NAN,
        *,
        data_type: str = 'double',
        nan_means_no_command: bool = False,
        hold: float | None = None,
    ) -> None:
        super().__init__(prefix_name, interface_name, value, data_type=data_type)
        self.nan_means_no_command = nan_means_no_command
        self.hold = hold
