"""The release transaction: the one way a controller's claim ends.

Deactivate, a failed activation, a refused chained mode, an error, a fallback displacing a
controller, unspawn, a hardware state change, shutdown and a second signal all end claims
here, unconditionally and in this order, whatever the controller's hooks return:

1. the controllers leave the set the loop updates (the manager's table decides who runs,
   not the controller's lifecycle state);
2. each one still ACTIVE in its lifecycle gets its on_deactivate. A FAILURE leaves it
   ACTIVE in its lifecycle, as upstream does (`deactivate_controllers` in upstream's
   controller_manager.cpp logs "expected Inactive" and releases anyway); here it also no
   longer runs, and a later deactivate runs on_deactivate again. ERROR runs on_error;
3. the hardware is told: prepare and perform command-mode switch with the released
   interfaces stopped (a refusal is logged, not obeyed; a component that refused perform
   owes the stop: the loop asks it again each cycle until it accepts or leaves ACTIVE);
4. the holds are written (`hardware_interface/hold.py`'s table: the command guard writes
   and keeps them for hardware interfaces; a controller's reference interfaces get them
   once, so a chained follower holds too);
5. the claims are released, the controllers' handles taken back, their exported
   interfaces made unavailable, and every follower's chained mode follows the claims
   (leaving chained mode drops topic input that arrived meanwhile).

The caller holds the cycle lock (or the loop has stopped), so no cycle runs in between.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from py_controllers.controller_manager.chaining import update_chained_modes
from py_controllers.hardware_interface.hold import apply_holds
from py_controllers.hardware_interface.types import LifecycleStateId

if TYPE_CHECKING:
    from py_controllers.controller_manager.controller_spec import ControllerSpec
    from py_controllers.controller_manager.manager_tables import ManagerTables

S = LifecycleStateId


def release(
    cm: ManagerTables,
    names: Iterable[str],
    *,
    also_stop: Iterable[str] = (),
    hardware_told: bool = False,
    run_hooks: bool = True,
) -> None:
    """End every claim of controllers `names` (see the module docstring). `also_stop`:
    hardware interfaces switched on for them that they never claimed (an activation that
    failed before claiming); `hardware_told`: the caller's own mode switch already stopped
    their interfaces (a switch that succeeded); `run_hooks=False`: no controller code runs
    (a second signal: the controllers may be what hangs)."""
    specs = [cm.controllers[n] for n in dict.fromkeys(names) if n in cm.controllers]
    cm.take_out_of_loop([spec.name for spec in specs])
    for spec in specs:
        if run_hooks and cm.state_of(spec.name) == S.ACTIVE:
            _run_on_deactivate(cm, spec)
    rm = cm.rm
    stop = [i for spec in specs for i in spec.claimed] + list(also_stop)
    stop = [i for i in dict.fromkeys(stop) if rm.component_of(i) is not None]
    if stop and not hardware_told:
        tell_hardware_to_stop(cm, stop)
    for spec in specs:
        references = [i for i in spec.claimed if rm.component_of(i) is None]
        apply_holds(references, rm.command_interfaces, rm.state_interfaces)
        rm.release(spec.claimed)  # the guard writes and keeps the hardware holds
        spec.claimed = []
        _take_handles_back(cm, spec)
        if spec.is_chainable:
            rm.set_controller_interfaces_available(spec.name, False)
    if run_hooks:
        update_chained_modes(cm)


def _take_handles_back(cm: ManagerTables, spec: ControllerSpec) -> None:
    try:
        spec.controller.release_interfaces()
    except Exception as exc:
        cm.log('error', f"controller '{spec.name}': release_interfaces raised {exc!r}")
    # whatever release_interfaces does, the controller keeps no handle of ours
    spec.controller.command_interfaces, spec.controller.state_interfaces = [], []


def tell_hardware_to_stop(cm: ManagerTables, interfaces: list[str]) -> None:
    """Prepare and perform the mode switch that stops `interfaces`. A refusal is logged and
    the release goes on (the hardware cannot keep a claim the manager has ended); a
    component that refused perform owes the stop, and the loop asks it again each cycle
    while the released interfaces get their holds."""
    refused = cm.rm.stop_modes(interfaces)
    if refused:
        owed = sorted(i for name in refused for i in cm.rm.owed_stops.get(name, ()))
        cm.log(
            'error',
            f'the hardware {refused} refused to release {interfaces}: released anyway, '
            + (f'asked again each cycle to stop {owed}' if owed else 'its modes stopped'),
        )


def _run_on_deactivate(cm: ManagerTables, spec: ControllerSpec) -> None:
    try:
        spec.controller.get_node().trigger_deactivate()
    except Exception as exc:  # the lifecycle contains the hooks; this is its own failure
        cm.log('error', f"controller '{spec.name}': deactivation raised {exc!r}")
    if cm.state_of(spec.name) == S.ACTIVE:
        cm.log(
            'error',
            f"controller '{spec.name}': on_deactivate failed, so it stays active in its "
            'lifecycle (as upstream); it no longer runs and its interfaces are released and '
            'held: deactivate it again to retry on_deactivate',
        )
