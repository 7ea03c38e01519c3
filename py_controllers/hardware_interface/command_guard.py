"""`CommandGuard`: no claimed hardware command reaches write() unless it is a finite number.

Run by the resource manager after every controller has updated, once before the joint
limiters (so they only see numbers, and an infinite command is caught before a limiter
clamps it to a legal value) and once after them (what the loop writes). A value that is not
a finite number is replaced by the interface's hold value:

- position: the last finite command the hardware got since the claim began, else the
  joint's measured position (`<joint>/position` of the same component), else 0;
- velocity, acceleration, effort: 0;
- anything else (gpio, ...): the last finite value since the claim began (the value at the
  claim counts), else 0.

NaN is upstream's "no command yet": held quietly, except on an interface whose hardware
declares NaN its "nothing new" (`CommandInterface.nan_means_no_command`): there NaN passes,
and NaN is also what replaces a bad value. An infinite value or a non-number (None,
a string, a numpy array: anything but an int or float) is the claiming controller's fault:
`check` returns its name (the caller deactivates it) and `why` says what it wrote where.
A non-finite value coming out of a limiter is held and logged once per claim.

Controllers' reference interfaces are not hardware and are left alone. The handles are
resolved when claims change (`refresh_claims`); the loop only walks one list.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any

from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.hardware_interface.hold import STOP_ON_RELEASE

_NO_NAMES: tuple[str, ...] = ()


class _Guarded:
    """One claimed hardware command interface and what the guard remembers of it."""

    __slots__ = ('controller', 'handle', 'kind', 'last', 'measured', 'reported')

    def __init__(
        self, handle: CommandInterface, controller: str, measured: StateInterface | None
    ) -> None:
        self.handle = handle
        self.controller = controller
        name = handle.interface_name
        if getattr(handle, 'nan_means_no_command', False):
            self.kind = 'nan'
        elif name == 'position':
            self.kind = 'position'
        else:
            self.kind = 'zero' if name in STOP_ON_RELEASE else ''
        self.measured = measured  # position: the joint's position state, if the component has one
        value = handle.value
        # the value at the claim counts for the interfaces that hold their last value
        self.last = value if self.kind == '' and is_finite_number(value) else None
        self.reported = False  # a limiter's non-finite output, logged once per claim

    def hold(self) -> float:
        """The value to write instead of a bad one."""
        if self.kind == 'zero':
            return 0.0
        if self.kind == 'nan':
            return math.nan
        if self.last is not None:
            return self.last
        if self.measured is not None:
            value = self.measured.value
            if is_finite_number(value):
                return float(value)
        return 0.0


def is_finite_number(value: Any) -> bool:
    """True for a finite int or float (numpy's real scalars included), False for the rest."""
    if type(value) is float:
        return value - value == 0.0
    return isinstance(value, numbers.Real) and math.isfinite(value)


class CommandGuard:
    """Keeps every claimed hardware command interface finite (see the module docstring)."""

    def __init__(self, log_rt: Callable[[str, str], None]) -> None:
        self._log_rt = log_rt
        # swapped as one object when claims change: the loop walks it, a switch replaces it
        self._guarded: list[_Guarded] = []
        self._by_name: dict[str, _Guarded] = {}
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
        exporting state interface `name`), None where no component does. What is remembered
        of a claim lasts while the same controller holds it."""
        old = self._by_name
        by_name: dict[str, _Guarded] = {}
        for name, controller in claimed.items():
            component = owners(name)[0]
            handle = command_interfaces.get(name)
            if component is None or handle is None:
                continue
            kept = old.get(name)
            if kept is not None and kept.controller == controller and kept.handle is handle:
                by_name[name] = kept
                continue
            measured = None
            if handle.interface_name == 'position':
                state_name = f'{handle.prefix_name}/position'
                if owners(state_name)[1] == component:
                    measured = state_interfaces.get(state_name)
            by_name[name] = _Guarded(handle, controller, measured)
        self._by_name = by_name
        self._guarded = list(by_name.values())

    def hold_value(self, handle: CommandInterface) -> float:
        """The hold value of a claimed hardware command interface (0 if not guarded)."""
        guarded = self._by_name.get(handle.name)
        return 0.0 if guarded is None else guarded.hold()

    def check(self) -> list[str] | tuple[str, ...]:
        """Before the limiters (loop): replace every value that is not a finite number by its
        hold value; the controllers that wrote infinite values or non-numbers (`why` says
        what and where), an empty tuple when none did."""
        offenders: list[str] | None = None
        reasons: list[str] = []
        for guarded in self._guarded:
            value = guarded.handle.value
            if type(value) is float:
                if value - value == 0.0:
                    continue
                if value != value:  # NaN: no command yet (or, 'nan' kind, nothing new)
                    if guarded.kind != 'nan':
                        guarded.handle.value = guarded.hold()
                    continue
            elif isinstance(value, numbers.Real):
                if value != value:
                    guarded.handle.value = guarded.hold()  # a 'nan' kind's hold is NaN
                    continue
                if math.isfinite(value):
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
        claim) and remember the finite commands the hardware gets now."""
        for guarded in self._guarded:
            value = guarded.handle.value
            if type(value) is float and value - value == 0.0:
                if guarded.kind != 'zero':
                    guarded.last = value
                continue
            if is_finite_number(value):
                if guarded.kind != 'zero':
                    guarded.last = value
                continue
            if guarded.kind == 'nan' and value != value:
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


def _shown(value: Any) -> str:
    """A short description of a bad value for a log line."""
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + '...'
    return f'{text} ({type(value).__name__})'
