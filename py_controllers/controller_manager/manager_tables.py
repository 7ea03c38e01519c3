"""The seam between ControllerManager and its helpers: what they may read and change.

`ControllerLoading`, `SwitchPlan` and `Supervisor` get the manager as a `ManagerTables` and
use nothing else of it (test/unit/test_manager_seam.py checks that no module here but
manager.py touches a private member of the manager).

Lock rules (the one place they are written down):

- `cycle_lock` (re-entrant) is held by the loop thread for one read/update/write cycle. It
  guards what the loop reads: `active`, the `controllers` table and the resource manager's
  interface tables (`rm`: claims, exported controller interfaces, availability). Every
  change of those takes it, briefly, and never while user code that may be slow runs (a
  controller's on_configure, a hardware transition): so a switch always lands between two
  cycles. Code called from the loop (`update()`'s error path) already holds it.
- `admin_lock` (re-entrant) serialises requests from the services (load, configure, switch,
  hardware states, shutdown). It is always taken before `cycle_lock`, never after it, and
  the loop thread never takes it.
- `controllers` and `active` (the update table) are written under cycle_lock: `active` by a
  switch (which also holds admin_lock) or by the release transaction (`release.py`, whose
  callers hold cycle_lock, the loop's error path included). A service thread reads them
  under admin_lock for what only services change (loading) and checks and marks what the
  loop may change (a controller's state, its `busy`) under cycle_lock, in one hold, so the
  loop's fallback activation never slips in between.
- A service never waits for cycle_lock without a bound (`LOCK_TIMEOUT_S`): a loop stuck
  inside a cycle must not wedge the executor, which is what ends the process.
- `log` and `notify_changed` take no lock and may be called from any thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rclpy.node import Node

    from py_controllers.controller_manager.controller_spec import ControllerSpec
    from py_controllers.hardware_interface.resource_manager import ResourceManager
    from py_controllers.hardware_interface.types import LifecycleStateId
    from py_controllers.realtime_tools.deferred import DeferredCalls


class ManagerTables(Protocol):
    """The part of ControllerManager its helpers use (see the module's lock rules)."""

    # --- read only -------------------------------------------------------------------
    node: Node
    logger: Any
    update_rate: int
    deactivate_on_hardware_self_deactivate: bool
    deferred: DeferredCalls  # what the loop hands to the executor
    cycle_lock: threading.RLock
    admin_lock: threading.RLock

    # --- tables: change under cycle_lock ------------------------------------------------
    rm: ResourceManager  # replaced whole by reset_hardware (admin_lock)
    controllers: dict[str, ControllerSpec]  # loaded controllers, load order

    @property
    def active(self) -> tuple[ControllerSpec, ...]:
        """The active controllers in update order (changed only by switches)."""
        ...

    # --- queries -------------------------------------------------------------------------
    def state_of(self, name: str) -> LifecycleStateId:
        """Lifecycle state of loaded controller `name`."""
        ...

    def exporter_of(self, interface: str) -> str | None:
        """The loaded controller exporting `interface` (a reference or state interface)."""
        ...

    def following(self, name: str) -> list[str]:
        """Controllers whose reference interfaces `name` commands."""
        ...

    def preceding(self, name: str) -> list[str]:
        """Controllers that command `name`'s reference interfaces."""
        ...

    def resolve_command_interfaces(self, spec: ControllerSpec) -> list[str]:
        """The command interfaces `spec` asks for; raises RuntimeError for a broken config."""
        ...

    def resolve_state_interfaces(self, spec: ControllerSpec) -> list[str]:
        """The state interfaces `spec` asks for; raises RuntimeError for a broken config."""
        ...

    # --- changes -------------------------------------------------------------------------
    def switch_locked(
        self, activate: Iterable[str], deactivate: Iterable[str], strictness: int, timeout_s: float
    ) -> tuple[bool, str]:
        """switch_controller for a caller that holds admin_lock, or the loop thread (which
        holds cycle_lock): takes cycle_lock itself, within `timeout_s`."""
        ...

    def is_running(self, name: str) -> bool:
        """True while `name` is in the set the loop updates."""
        ...

    def take_out_of_loop(self, names: Iterable[str]) -> None:
        """Remove `names` from the set the loop updates (caller holds cycle_lock)."""
        ...

    def unload_controller(self, name: str) -> tuple[bool, str]:
        """Shut down and destroy an inactive controller (takes admin_lock)."""
        ...

    # --- any thread, no lock -----------------------------------------------------------------
    def notify_changed(self) -> None:
        """Something in the tables changed: bump the version, wake the activity topic."""
        ...

    def log(self, level: str, text: str) -> None:
        """Log from any thread (handed to the executor: the loop never logs itself)."""
        ...
