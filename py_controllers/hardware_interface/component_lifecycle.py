"""The lifecycle state machine of one hardware component, as ros2_control drives it.

Every callback is user code: an exception or a result that is not a CallbackReturn (or
None/True/False) counts as ERROR, logged with what came back, and never escapes.
"""

from __future__ import annotations

import logging
from typing import Any

from py_controllers.hardware_interface.hardware_component import HardwareComponentInterface
from py_controllers.hardware_interface.types import CallbackReturn, LifecycleStateId

S = LifecycleStateId
_CALLBACK_RETURNS = frozenset(int(r) for r in CallbackReturn)

# (from, to) -> the callback of that single transition.
_TRANSITIONS = {
    (S.UNCONFIGURED, S.INACTIVE): 'on_configure',
    (S.INACTIVE, S.ACTIVE): 'on_activate',
    (S.ACTIVE, S.INACTIVE): 'on_deactivate',
    (S.INACTIVE, S.UNCONFIGURED): 'on_cleanup',
}


class ManagedComponent:
    """A loaded component, its lifecycle state and the bookkeeping the manager needs."""

    def __init__(self, component: HardwareComponentInterface, info: Any, logger: Any) -> None:
        self.component = component
        self.info = info
        self.name: str = info.name
        self.logger = logger or logging.getLogger(self.name)
        self.state = S.UNCONFIGURED
        self.state_interfaces = component.export_state_interfaces()
        self.command_interfaces = component.export_command_interfaces()
        component.state_interfaces = {h.name: h for h in self.state_interfaces}
        component.command_interfaces = {h.name: h for h in self.command_interfaces}
        self.read_errors = 0
        self.write_errors = 0
        # True while a lifecycle transition runs (off the loop thread): the loop skips the
        # component and its interfaces are unavailable until the transition ends
        self.busy = False

    @property
    def type(self) -> str:
        """'system', 'actuator' or 'sensor'."""
        return self.component.component_type

    def _call(self, callback: str, previous: LifecycleStateId) -> CallbackReturn:
        try:
            result = getattr(self.component, callback)(previous)
        except Exception as exc:
            self.logger.error(f"hardware '{self.name}': {callback} raised: {exc!r}")
            return CallbackReturn.ERROR
        return self._as_callback_return(callback, result)

    def _as_callback_return(self, callback: str, result: Any) -> CallbackReturn:
        if result is None or result is True:
            return CallbackReturn.SUCCESS
        if result is False:
            return CallbackReturn.FAILURE
        if isinstance(result, int) and result in _CALLBACK_RETURNS:
            return CallbackReturn(result)
        self.logger.error(
            f"hardware '{self.name}': {callback} returned {result!r}, not a CallbackReturn: "
            'taken as ERROR'
        )
        return CallbackReturn.ERROR

    def handle_error(self) -> LifecycleStateId:
        """Run on_error: recoverable -> UNCONFIGURED, otherwise FINALIZED."""
        result = self._call('on_error', self.state)
        self.state = S.UNCONFIGURED if result == CallbackReturn.SUCCESS else S.FINALIZED
        return self.state

    def _step(self, target: LifecycleStateId) -> bool:
        callback = _TRANSITIONS[(self.state, target)]
        result = self._call(callback, self.state)
        if result == CallbackReturn.SUCCESS:
            self.state = target
            return True
        if result == CallbackReturn.ERROR:
            self.logger.error(f"hardware '{self.name}': {callback} returned ERROR")
            self.handle_error()
        else:
            self.logger.warning(f"hardware '{self.name}': {callback} failed")
        return False

    def set_state(self, target: LifecycleStateId) -> bool:
        """Walk the transitions from the current state to `target`; False at the first refusal."""
        if target == self.state:
            return True
        if self.state == S.FINALIZED:
            return False
        if target == S.FINALIZED:
            if self.state == S.ACTIVE and not self._step(S.INACTIVE):
                return False
            if self._call('on_shutdown', self.state) != CallbackReturn.SUCCESS:
                self.logger.warning(f"hardware '{self.name}': on_shutdown did not succeed")
            self.state = S.FINALIZED
            return True
        order = [S.UNCONFIGURED, S.INACTIVE, S.ACTIVE]
        if target not in order:
            return False
        while self.state != target:
            here = order.index(self.state)
            there = order.index(target)
            if not self._step(order[here + (1 if there > here else -1)]):
                return False
        return True
