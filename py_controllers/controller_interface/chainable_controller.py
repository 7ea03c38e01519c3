"""Chainable controllers: export reference interfaces another controller can command.

While one of its reference interfaces is claimed by an active controller the chainable
controller is in chained mode: it ignores its own subscribers and takes its references
from those interfaces instead. Topic input that arrived while it was chained is dropped
when the mode changes: a follower whose leader went away holds, it does not act on an old
message (boxes made with `topic_reference_box` are emptied then).
"""

from __future__ import annotations

from typing import Any

from py_controllers.controller_interface.controller_interface import ControllerInterface
from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.hardware_interface.types import RETURN_OK, ReturnType
from py_controllers.realtime_tools.realtime_box import RealtimeBox


class ChainableControllerInterface(ControllerInterface):
    """Base class of chainable controllers (ros2_control's ChainableControllerInterface)."""

    def __init__(self) -> None:
        super().__init__()
        self.reference_interfaces: list[CommandInterface] = []
        self.exported_state_interfaces: list[StateInterface] = []
        self._chained = False
        self._topic_boxes: list[RealtimeBox[Any]] = []

    def topic_reference_box(self) -> RealtimeBox[Any]:
        """A box (empty: None) for the references a subscriber takes in; emptied whenever
        the chained mode changes."""
        box: RealtimeBox[Any] = RealtimeBox(None)
        self._topic_boxes.append(box)
        return box

    # --- called by the manager ------------------------------------------------------
    def export_reference_interfaces(self) -> list[CommandInterface]:
        """Collect and check on_export_reference_interfaces() (after configure)."""
        handles = list(self.on_export_reference_interfaces())
        self._check_prefix(handles)
        self.reference_interfaces = handles
        return handles

    def export_state_interfaces(self) -> list[StateInterface]:
        """Collect and check on_export_state_interfaces() (after configure)."""
        handles = list(self.on_export_state_interfaces())
        self._check_prefix(handles)
        self.exported_state_interfaces = handles
        return handles

    def _check_prefix(self, handles: list[Any]) -> None:
        for handle in handles:
            if not handle.name.startswith(self.name + '/'):
                raise ValueError(
                    f"exported interface '{handle.name}' must start with '{self.name}/'"
                )

    def set_chained_mode(self, chained: bool) -> bool:
        """Enter or leave chained mode; the controller may refuse."""
        if chained == self._chained:
            return True
        if not self.on_set_chained_mode(chained):
            return False
        self._chained = chained
        for box in self._topic_boxes:
            box.set(None)
        return True

    def is_in_chained_mode(self) -> bool:
        """True while another controller writes our reference interfaces."""
        return self._chained

    def update(self, time: Any, period: Any) -> ReturnType:
        """References from subscribers (unless chained), then compute and write commands."""
        if not self._chained:
            result = self.update_reference_from_subscribers(time, period)
            if result is not RETURN_OK and result is not None:
                return result
        return self.update_and_write_commands(time, period)

    # --- the contract (override) ----------------------------------------------------
    def on_export_reference_interfaces(self) -> list[CommandInterface]:
        """Reference interfaces named `<controller>/<name>/<interface>`."""
        return []

    def on_export_state_interfaces(self) -> list[StateInterface]:
        """State interfaces other controllers may read, named like references."""
        return []

    def on_set_chained_mode(self, chained: bool) -> bool:
        """Accept (True) or refuse a change of chained mode."""
        return True

    def update_reference_from_subscribers(self, time: Any, period: Any) -> ReturnType:
        """Copy the newest topic input into the reference interfaces."""
        return ReturnType.OK

    def update_and_write_commands(self, time: Any, period: Any) -> ReturnType:
        """Compute from the reference interfaces and write the command interfaces."""
        return ReturnType.OK
