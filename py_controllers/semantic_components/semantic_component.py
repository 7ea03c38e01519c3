"""SemanticComponentInterface: a named group of state interfaces read as one device.

ros2_control's ``controller_interface/semantic_components`` in Python, with no rclpy: a
component knows the interface names of its device (``<name>/orientation.x``, ...), a
controller asks for them in ``state_interface_configuration()``, hands the handles it got
to ``assign_loaned_state_interfaces()`` in ``on_activate`` (resolved by name once, in the
component's order), and reads them in ``update()`` through ``get_values()`` or the
subclass's message helper. ``release_interfaces()`` in ``on_deactivate`` lets them go.

A handle is anything with ``name`` and ``value`` attributes (our StateInterface).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from py_controllers.semantic_components.errors import MissingStateInterfaceError, NotAssignedError


class SemanticComponentInterface:
    """State interfaces of one device, in a fixed order.

    ``interface_names`` are full names (``<prefix>/<interface>``). Without them, ``size``
    names ``<name>/1`` ... ``<name>/<size>`` are used, as upstream's default.
    """

    def __init__(
        self, name: str, interface_names: Sequence[str] | None = None, *, size: int = 0
    ) -> None:
        self.name = name
        if interface_names is None:
            interface_names = [f'{name}/{i + 1}' for i in range(size)]
        self._interface_names = list(interface_names)
        self._handles: list[Any] = []

    def get_state_interface_names(self) -> list[str]:
        """The full names to claim, in the order the values come out."""
        return list(self._interface_names)

    def assign_loaned_state_interfaces(self, state_interfaces: Iterable[Any]) -> None:
        """Take the component's handles from those a controller was given (in any order).

        Raises MissingStateInterfaceError naming every interface that is not among them.
        """
        by_name = {h.name: h for h in state_interfaces}
        missing = [n for n in self._interface_names if n not in by_name]
        if missing:
            raise MissingStateInterfaceError(self._describe(), missing)
        self._handles = [by_name[n] for n in self._interface_names]

    def release_interfaces(self) -> None:
        """Forget the handles (on deactivation)."""
        self._handles = []

    @property
    def is_assigned(self) -> bool:
        """True between a successful assignment and the release."""
        return bool(self._handles)

    def get_values(self, out: list[float] | None = None) -> list[float]:
        """Every value, in interface order; into ``out`` (same length) when given, which
        allocates nothing (loop-safe). Raises NotAssignedError before the assignment."""
        handles = self._assigned()
        if out is None:
            return [h.value for h in handles]
        for i, h in enumerate(handles):
            out[i] = h.value
        return out

    def _assigned(self) -> list[Any]:
        handles = self._handles
        if not handles:
            raise NotAssignedError(f'{self._describe()}: no state interfaces assigned')
        return handles

    def _describe(self) -> str:
        kind = type(self).__name__
        return f"{kind} '{self.name}'" if self.name else kind
