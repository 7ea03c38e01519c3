"""The safety contract as checks: what must hold after every cycle, on every path.

docs/safety.md names the invariant behind each row of its contract table; the model-based
tests (test/ros/test_manager_model.py, `make faults`' long search) check them after every
step of generated sequences of the manager's operations and faults. A user's own tests can
call them the same way:

    recorder = InvariantRecorder(manager)   # before the steps
    ...                                      # stepped cycles, switches, faults
    assert check_invariants(manager, recorder) == []

The invariants:

- `holds`: every hardware command interface whose claim has ended (and has not been
  claimed again, nor its component changed state since) holds its hold value at write():
  the value the release wrote, of the kind `hardware_interface/hold.py`'s table says
  (position-like a finite number, every other kind its declared hold or 0, never NaN but
  where the hardware declares `nan_means_no_command`);
- `update_table`: update() runs only for controllers in the manager's update table; each
  of those is ACTIVE in its lifecycle; no interface has two claimants; a controller's
  claims are exactly its entries in the resource manager's claim table, and a controller
  out of the table holds no claim and no handle;
- `modes`: each command-mode-aware component (`command_modes()` not None) is driven by
  exactly the interfaces claimed on it, while it is active;
- `finite`: nothing that is not a finite float reaches write() on a claimed or released
  interface (the hardware records it: `InvariantRecorder` wraps each component's write());
- `activated`: a controller in the update table has had its on_activate since its last
  on_deactivate (the recorder wraps both hooks): nothing puts a controller back to work
  without its activation, whatever its deactivation returned;
- `holds_last`: after any sequence of signals, each component's last write is its holds
  (checked on the process: `last_write_holds`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from py_controllers.hardware_interface.hold import POSITION_LIKE, declared_hold
from py_controllers.hardware_interface.types import LifecycleStateId

S = LifecycleStateId


@dataclass(frozen=True)
class Violation:
    """One broken invariant: its name and what was seen."""

    invariant: str
    detail: str

    def __str__(self) -> str:
        return f'{self.invariant}: {self.detail}'


def _is_float_ok(value: Any, nan_ok: bool) -> bool:
    if type(value) is not float:
        return False
    return math.isfinite(value) or (nan_ok and value != value)


@dataclass
class InvariantRecorder:
    """Records what the checks cannot see afterwards: which controllers' update() ran
    while out of the update table, which of on_activate and on_deactivate each controller
    ran last, and every write() that got a value that is not a finite float on a claimed or
    released interface. Wraps the methods of the manager's components and controllers
    (controllers loaded later: call `watch()` again; the checks do)."""

    manager: Any
    violations: list[Violation] = field(default_factory=list)
    writes: int = 0
    updates: int = 0
    last_hook: dict[str, str] = field(default_factory=dict)
    _wrapped: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.watch()

    def watch(self) -> None:
        """Wrap every component and controller not wrapped yet."""
        rm = self.manager.rm
        for managed in rm.components.values():
            if id(managed.component) not in self._wrapped:
                self._wrapped.add(id(managed.component))
                self._wrap_write(managed)
        for spec in list(self.manager.controllers.values()):
            if id(spec.controller) not in self._wrapped:
                self._wrapped.add(id(spec.controller))
                self._wrap_update(spec.name, spec.controller)
                self._wrap_activation_hooks(spec.name, spec.controller)

    def _wrap_update(self, name: str, controller: Any) -> None:
        update = controller.update
        manager = self.manager

        def recorded_update(time: Any, period: Any) -> Any:
            self.updates += 1
            if not manager.is_running(name):
                self.violations.append(
                    Violation('update_table', f"update() of '{name}' ran out of the table")
                )
            return update(time, period)

        controller.update = recorded_update

    def _wrap_activation_hooks(self, name: str, controller: Any) -> None:
        self.last_hook.pop(name, None)  # a controller loaded again under the same name
        for hook in ('on_activate', 'on_deactivate'):
            original = getattr(controller, hook)

            def recorded(previous_state: Any, hook: str = hook, original: Any = original) -> Any:
                self.last_hook[name] = hook
                return original(previous_state)

            setattr(controller, hook, recorded)

    def _wrap_write(self, managed: Any) -> None:
        component = managed.component
        write = component.write
        guard = self.manager.rm.command_guard
        claimed = self.manager.rm.claimed

        def recorded_write(time: Any, period: Any) -> Any:
            self.writes += 1
            held = guard.held()
            for name, handle in component.command_interfaces.items():
                if name not in claimed and name not in held:
                    continue  # never claimed since the component last changed state
                nan_ok = bool(getattr(handle, 'nan_means_no_command', False))
                if not _is_float_ok(handle.value, nan_ok):
                    self.violations.append(
                        Violation(
                            'finite', f"write() of '{managed.name}' got {handle.value!r} on {name}"
                        )
                    )
            return write(time, period)

        component.write = recorded_write


def check_invariants(manager: Any, recorder: InvariantRecorder | None = None) -> list[Violation]:
    """Every invariant that does not hold now (after a cycle, between two cycles), with
    what the recorder saw since the last call (then forgotten)."""
    found: list[Violation] = []
    for check in (holds, update_table, modes):
        found += check(manager)
    if recorder is not None:
        recorder.watch()
        found += recorder.violations
        recorder.violations = []
        found += activated(manager, recorder)
    return found


def holds(manager: Any) -> list[Violation]:
    """`holds`: each released hardware command interface holds its table's hold value."""
    rm = manager.rm
    found = []
    for name, value in rm.command_guard.held().items():
        handle = rm.command_interfaces.get(name)
        if handle is None:
            continue
        nan_ok = bool(getattr(handle, 'nan_means_no_command', False))
        if not _is_float_ok(handle.value, nan_ok) or not _same(handle.value, value):
            found.append(Violation('holds', f'{name} is {handle.value!r}, its hold {value!r}'))
            continue
        if nan_ok:
            continue
        if handle.interface_name not in POSITION_LIKE:
            wanted = declared_hold(handle)
            wanted = 0.0 if wanted is None else wanted
            if value != wanted:
                found.append(Violation('holds', f'{name} holds {value!r}, not {wanted!r}'))
    return found


def _same(a: float, b: float) -> bool:
    return a == b or (a != a and b != b)


def update_table(manager: Any) -> list[Violation]:
    """`update_table`: the update table, lifecycle states, claims and handles agree."""
    found = []
    rm = manager.rm
    running = [spec.name for spec in manager.active]
    for name in running:
        if not manager.is_running(name):
            found.append(Violation('update_table', f"'{name}' in the table, not running"))
        elif manager.state_of(name) != S.ACTIVE:
            state = manager.state_of(name).label
            found.append(Violation('update_table', f"'{name}' runs while {state}"))
    claimants: dict[str, list[str]] = {}
    for spec in manager.controllers.values():
        for itf in spec.claimed:
            claimants.setdefault(itf, []).append(spec.name)
        mine = sorted(i for i, c in rm.claimed.items() if c == spec.name)
        if sorted(spec.claimed) != mine:
            found.append(
                Violation('update_table', f"'{spec.name}' claims {spec.claimed}, table {mine}")
            )
        if spec.name not in running and (spec.claimed or spec.controller.command_interfaces):
            found.append(
                Violation('update_table', f"'{spec.name}' is out of the table but holds claims")
            )
    for itf, names in claimants.items():
        if len(names) > 1:
            found.append(Violation('update_table', f'{itf} claimed by {names}'))
    for itf, holder in rm.claimed.items():
        if holder not in running:
            found.append(Violation('update_table', f"{itf} claimed by '{holder}', not running"))
    return found


def activated(manager: Any, recorder: InvariantRecorder) -> list[Violation]:
    """`activated`: no controller runs whose last activation hook was on_deactivate."""
    return [
        Violation('activated', f"'{spec.name}' runs without an on_activate since on_deactivate")
        for spec in manager.active
        if recorder.last_hook.get(spec.name) == 'on_deactivate'
    ]


def modes(manager: Any) -> list[Violation]:
    """`modes`: each active mode-aware component is driven exactly by the claimed ones, or
    by a released one whose stop it refused (owed: the loop asks again each cycle)."""
    found = []
    rm = manager.rm
    for name, managed in rm.components.items():
        if managed.busy or managed.state != S.ACTIVE:
            continue
        report = managed.component.command_modes()
        if report is None:
            continue
        owed = rm.owed_stops.get(name, ())
        for itf, driven in report.items():
            if driven != (itf in rm.claimed) and not (driven and itf in owed):
                what = 'driven by' if driven else 'not driven by'
                claim = 'claimed' if itf in rm.claimed else 'unclaimed'
                found.append(Violation('modes', f"'{name}' is {what} {claim} {itf}"))
    return found


def last_write_holds(
    last_commands: Mapping[str, float],
    held: Mapping[str, float],
    measured: Mapping[str, float] | None = None,
    tolerance: float = 0.0,
) -> list[Violation]:
    """`holds_last` on a record of a component's last write (`last_commands`: interface ->
    value) against the holds the process meant (`held`); with `measured`, position-like
    holds are compared to the measured positions within `tolerance` instead."""
    found = []
    for name, value in held.items():
        got = last_commands.get(name)
        kind = name.rpartition('/')[2]
        if measured is not None and kind in POSITION_LIKE and name in measured:
            value = measured[name]
            if got is None or not math.isfinite(got) or abs(got - value) > tolerance:
                found.append(Violation('holds_last', f'{name}: last write {got!r}, held {value}'))
        elif got is None or not _same(got, value):
            found.append(Violation('holds_last', f'{name}: last write {got!r}, held {value}'))
    return found
