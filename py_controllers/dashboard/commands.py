"""The controller manager's services as one-line answers for the pages.

Each function calls one standard controller_manager service and returns what it said
(`ok`, or the message); a refusal raises RefusedError with the manager's words, a missing or
silent manager raises the bridge's NotAvailableError or CallFailedError.
"""

from __future__ import annotations

from typing import Any

import controller_manager_msgs.srv as cm_srv
from lifecycle_msgs.msg import State

from py_controllers.dashboard.ros_bridge import RosBridge

STRICT = cm_srv.SwitchController.Request.STRICT
BEST_EFFORT = cm_srv.SwitchController.Request.BEST_EFFORT

LIFECYCLE_SERVICES: dict[str, tuple[Any, str]] = {
    'load': (cm_srv.LoadController, 'load_controller'),
    'configure': (cm_srv.ConfigureController, 'configure_controller'),
    'cleanup': (cm_srv.CleanupController, 'cleanup_controller'),
    'unload': (cm_srv.UnloadController, 'unload_controller'),
}


class RefusedError(RuntimeError):
    """The manager answered, and said no."""


async def lifecycle(bridge: RosBridge, manager: str, action: str, name: str) -> str:
    """load / configure / cleanup / unload controller `name`."""
    srv_type, service = LIFECYCLE_SERVICES[action]
    res = await bridge.call(
        srv_type, f'{manager}/{service}', srv_type.Request(name=name), timeout_s=15.0
    )
    if not res.ok:
        raise RefusedError(f'{service}({name}) refused by the manager (its log says why)')
    return f'{service}({name}): ok'


async def switch(
    bridge: RosBridge,
    manager: str,
    activate: list[str],
    deactivate: list[str],
    *,
    strictness: int = STRICT,
    activate_asap: bool = False,
    timeout_s: float = 5.0,
) -> str:
    """switch_controller; the manager's message either way."""
    req = cm_srv.SwitchController.Request(
        activate_controllers=list(activate),
        deactivate_controllers=list(deactivate),
        strictness=strictness,
        activate_asap=activate_asap,
    )
    req.timeout.sec, req.timeout.nanosec = divmod(round(timeout_s * 1e9), 1_000_000_000)
    res = await bridge.call(
        cm_srv.SwitchController, f'{manager}/switch_controller', req, timeout_s=timeout_s + 10.0
    )
    what = f'switch_controller(activate={list(activate)}, deactivate={list(deactivate)})'
    message = str(res.message) or ('switched' if res.ok else 'refused')
    if not res.ok:
        raise RefusedError(f'{what}: {message}')
    return f'{what}: ok, {message}'


async def set_hardware_state(bridge: RosBridge, manager: str, name: str, target: str) -> str:
    """set_hardware_component_state(name, target label)."""
    req = cm_srv.SetHardwareComponentState.Request(name=name, target_state=State(label=target))
    res = await bridge.call(
        cm_srv.SetHardwareComponentState,
        f'{manager}/set_hardware_component_state',
        req,
        timeout_s=15.0,
    )
    what = f'set_hardware_component_state({name}, {target})'
    if not res.ok:
        raise RefusedError(f'{what} refused; the component is {res.state.label or "unchanged"}')
    return f'{what}: ok, now {res.state.label}'
