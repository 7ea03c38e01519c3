"""`CommandGuard`: only finite floats reach write(), and a released command keeps its hold.

Run by the resource manager after every controller has updated, once before the joint
limiters (so they only see numbers, and an infinite command is caught before a limiter
clamps it to a legal value) and once after them (what the loop writes).

Claimed hardware command interfaces: a value that is not a finite number is replaced by
the last finite command the hardware got since the claim began, except on kinds that move
the joint by their value (velocity, effort, torque, ...: `hold.MOTION_KINDS`), which stop
(0); with no finite command yet, by the interface's hold value (`hold.py`'s table).
Finite ints and numpy scalars become Python floats. NaN is upstream's "no command yet":
held quietly, except on an interface whose hardware declares NaN its "nothing new"
(`CommandInterface.nan_means_no_command`), where NaN passes. An infinite value, a number
too big for a float (`10**400`) or a non-number (None, a string, an array) is the claiming
controller's fault: `check` returns its name (the caller takes it out) and `why` says what
it wrote where. A non-finite value coming out of a limiter is held and logged once per
claim.

Released hardware command interfaces: when a claim ends, the interface gets its hold value
(measured position first) and keeps it at every write() (`impose_holds`) until it is
claimed again, whatever else writes to it (a controller's cached handle, a callback).
Interfaces never claimed since their component last changed state belong to the hardware
(typically NaN, upstream's "no command yet").

Controllers' reference interfaces are not hardware and are left alone. The handles are
resolved when claims change (`refresh_claims`); the loop only walks two lists.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.hardware_interface.hold import (
    MOTION_KINDS,
    POSITION_LIKE,
    as_finite_float,
    hold_value,
    is_finite_number,
)

__all__ = ['CommandGuard', 'is_finite_number']

_NO_NAMES: tuple[str, ...] = ()


class _Guarded:
    """One claimed hardware command interface and what the guard remembers of it."""

    __slots__ = ('controller', 'handle', 'last', 'measured', 'nan_passes', 'reported')

    def __init__(
        self, handle: CommandInterface, controller: str, measured: StateInterface | None
    ) -> None:
        self.handle = handle
        self.controller = controller
        self.nan_passes = bool(getattr(handle, 'nan_means_no_command', False))
        self.measured = measured  # position-like: the joint's state of the same name, if any
        self.last: float | None = None  # the last finite command the hardware got
        self.reported = False  # a limiter's non-finite output, logged once per claim

    def hold(self) -> float:
        """The value to write instead of a bad one while claimed: the last finite command,
        but on a kind that moves the joint by its value (MOTION_KINDS), which stops."""
        if self.last is not None and self.handle.interface_name not in MOTION_KINDS:
            return self.last
        measured = self.measured.value if self.measured is not None else None
        return hold_value(self.handle, measured, self.last)

    def release_hold(self) -> float:
        """The value held once the claim ends (the table: measured position first)."""
        measured = self.measured.value if self.measured is not None else None
        return hold_value(self.handle, measured, self.last)


class CommandGuard:
    """Keeps every hardware command interface a finite float (see the module docstring)."""

    def __init__(self, log_rt: Callable[[str, str], None]) -> None:
        self._log_rt = log_rt
        # swapped as one object when claims change: the loop walks it, a switch replaces it
        self._guarded: list[_Guarded] = []
        self._by_name: dict[str, _Guarded] = {}
        # released interfaces and their holds (name -> (handle, value)), and the loop's copy
        self._held: dict[str, tuple[CommandInterface, float]] = {}
        self._held_list: list[tuple[CommandInterface, float]] = []
        self.why = ''  # what the controllers `check` last returned wrote, and where

    def refresh_claims(
        self,
        claimed: Mapping[str, str],
        command_interfaces: Mapping[str, CommandInterface],
        state_interfaces: Mapping[str, StateInterface],
        owners: Callable[[str], tuple[str | None, str | None]],
    ) -> None:
        """Guard the claimed interfaces a hardware component exports (not from the loop);
        `owners(name)` is (the component exporting command interface `name`, the one
        exporting state interface `name`), None where no component does. An interface whose
        claim ended gets its hold value now and keeps it. What is remembered of a claim
        lasts while the same controller holds it."""
        old = self._by_name
        by_name: dict[str, _Guarded] = {}
        held = dict(self._held)
        for name, controller in claimed.items():
            component = owners(name)[0]
            handle = command_interfaces.get(name)
            if component is None or handle is None:
                continue
            held.pop(name, None)
            kept = old.get(name)
            if kept is not None and kept.controller == controller and kept.handle is handle:
                by_name[name] = kept
                continue
            measured = None
            if handle.interface_name in POSITION_LIKE and owners(name)[1] == component:
                measured = state_interfaces.get(name)
            by_name[name] = _Guarded(handle, controller, measured)
        for name, ended in old.items():
            if name not in by_name and command_interfaces.get(name) is ended.handle:
                value = ended.release_hold()
                ended.handle.value = value
                held[name] = (ended.handle, value)
        self._by_name = by_name
        self._guarded = list(by_name.values())
        self._held = held
        self._held_list = list(held.values())

    def forget(self, names: Iterable[str]) -> None:
        """Stop holding `names` (their component changed state: its commands are its own
        again until a controller claims them)."""
        gone = set(names)
        held = {n: h for n, h in self._held.items() if n not in gone}
        self._held = held
        self._held_list = list(held.values())

    def held(self) -> dict[str, float]:
        """Released interfaces and the value each holds (for checks and reports)."""
        return {name: value for name, (_, value) in self._held.items()}

    def hold_value(self, handle: CommandInterface) -> float:
        """The hold value of a claimed hardware command interface (the table's if not
        guarded)."""
        guarded = self._by_name.get(handle.name)
        return hold_value(handle) if guarded is None else guarded.hold()

    def check(self) -> list[str] | tuple[str, ...]:
        """Before the limiters (loop): replace every value that is not a finite float by a
        finite float (a number converted, anything else its hold value); the controllers
        that wrote infinite values, numbers too big for a float or non-numbers (`why` says
        what and where), an empty tuple when none did."""
        offenders: list[str] | None = None
        reasons: list[str] = []
        for guarded in self._guarded:
            value = guarded.handle.value
            if type(value) is float:
                if value - value == 0.0:
                    continue
                if value != value:  # NaN: no command yet (or, nan_passes, nothing new)
                    if not guarded.nan_passes:
                        guarded.handle.value = guarded.hold()
                    continue
            elif isinstance(value, numbers.Real):
                converted = as_finite_float(value)
                if converted is not None:
                    guarded.handle.value = converted
                    continue
                if value != value:
                    guarded.handle.value = math.nan if guarded.nan_passes else guarded.hold()
                    continue
            hold = guarded.hold()
            guarded.handle.value = hold
            if offenders is None:
                offenders = []
            if guarded.controller not in offenders:
                offenders.append(guarded.controller)
            reasons.append(
                f"'{guarded.controller}' wrote {_shown(value)} to '{guarded.handle.name}' "
                f'(the hardware got {hold!r} instead)'
            )
        if offenders is None:
            return _NO_NAMES
        self.why = 'not a finite number: ' + '; '.join(reasons)
        return offenders

    def settle(self) -> None:
        """After the limiters (loop): hold what a limiter left non-finite (logged once per
        claim), remember the finite commands the hardware gets now, and put every released
        interface back to its hold."""
        for guarded in self._guarded:
            value = guarded.handle.value
            if type(value) is float and value - value == 0.0:
                guarded.last = value
                continue
            converted = as_finite_float(value)
            if converted is not None:
                guarded.handle.value = guarded.last = converted
                continue
            if guarded.nan_passes and value != value:
                continue
            hold = guarded.hold()
            guarded.handle.value = hold
            if not guarded.reported:
                guarded.reported = True
                self._log_rt(
                    'error',
                    f"'{guarded.handle.name}': the joint limits produced {_shown(value)}; "
                    f'the hardware gets {hold!r} instead',
                )
        for handle, value in self._held_list:
            handle.value = value

    def impose_holds(self) -> None:
        """Put every released interface back to its hold (the final write, with no cycle)."""
        for handle, value in self._held_list:
            handle.value = value


def _shown(value: Any) -> str:
    """A short description of a bad value for a log line."""
    try:
        text = repr(value)
    except Exception:  # a repr that raises (or a number too long to print) says nothing
        text = f'<{type(value).__name__}>'
    if len(text) > 40:
        text = text[:37] + '...'
    return f'{text} ({type(value).__name__})'
