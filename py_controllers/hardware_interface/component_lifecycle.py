"""A loaded hardware component: its lifecycle (see `py_controllers.lifecycle`), its
interfaces and the bookkeeping the manager needs.

Every hook is user code: an exception or a result that is not a CallbackReturn (or
None/True/False) counts as ERROR, logged with what came back, and never escapes. One
transition at a time: a second caller waits for the one under way (shutdown does, bounded).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from py_controllers.hardware_interface.hardware_component import HardwareComponentInterface
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.lifecycle import LifecycleMachine
from py_controllers.realtime_tools.deferred import log_at


class ManagedComponent:
    """A loaded component, its lifecycle state and the bookkeeping the manager needs."""

    def __init__(self, component: HardwareComponentInterface, info: Any, logger: Any) -> None:
        self.component = component
        self.info = info
        self.name: str = info.name
        self.logger = logger or logging.getLogger(self.name)
        self.lifecycle = LifecycleMachine(
            lambda hook, previous: getattr(component, hook)(previous),
            f"hardware '{self.name}'",
            lambda level, text: log_at(self.logger, level, text),
        )
        self.state_interfaces = component.export_state_interfaces()
        self.command_interfaces = component.export_command_interfaces()
        component.state_interfaces = {h.name: h for h in self.state_interfaces}
        component.command_interfaces = {h.name: h for h in self.command_interfaces}
        self.read_errors = 0
        self.write_errors = 0
        self.none_reported: set[str] = set()  # 'read'/'write' returned None once: warned
        # True while a lifecycle transition runs (off the loop thread): the loop skips the
        # component and its interfaces are unavailable until the transition ends
        self.busy = False
        self.runner: Any = None  # its AsyncComponent when `is_async`
        self._transition = threading.Lock()  # held while a lifecycle hook runs

    @property
    def state(self) -> LifecycleStateId:
        """The component's primary lifecycle state."""
        return self.lifecycle.state

    @property
    def type(self) -> str:
        """'system', 'actuator' or 'sensor'."""
        return self.component.component_type

    def handle_error(self) -> LifecycleStateId:
        """Run on_error: recoverable -> UNCONFIGURED, otherwise FINALIZED (nothing once
        FINALIZED: an error handling queued before shutdown finds it shut down)."""
        with self._transition:
            if self.lifecycle.state == LifecycleStateId.FINALIZED:
                return self.lifecycle.state
            return self.lifecycle.handle_error()

    def set_state(self, target: LifecycleStateId, *, wait_s: float = -1.0) -> bool:
        """Walk the transitions from the current state to `target`; False at the first
        refusal. Waits for a transition under way (at most `wait_s` if not negative, then
        raises TimeoutError)."""
        if not self._transition.acquire(timeout=wait_s):
            raise TimeoutError(f"hardware '{self.name}': a transition is still under way")
        try:
            return self.lifecycle.set_state(target)
        finally:
            self._transition.release()
