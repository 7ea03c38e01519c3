"""What the manager keeps per loaded controller."""

from __future__ import annotations

from dataclasses import dataclass, field

from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import ControllerInterface
from py_controllers.controller_manager.statistics import RingRecorder


@dataclass(eq=False)
class ControllerSpec:
    """A loaded controller, its type, claims and loop bookkeeping."""

    name: str
    type: str
    controller: ControllerInterface
    fallback_controllers: list[str] = field(default_factory=list)
    claimed: list[str] = field(default_factory=list)
    last_update_ns: int | None = None
    execution: RingRecorder = field(default_factory=lambda: RingRecorder(2_000))
    errors: int = 0
    configuration_error_reported: bool = False
    none_reported: bool = False  # update() returned None once: warned
    # what a service is doing to it outside the cycle lock ('configured', 'unloaded', ...):
    # set under the lock, so the loop's fallback activation leaves it alone meanwhile
    busy: str = ''

    @property
    def is_chainable(self) -> bool:
        """True for controllers exporting reference interfaces."""
        return isinstance(self.controller, ChainableControllerInterface)
