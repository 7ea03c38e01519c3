"""Exceptions raised by the semantic_components subpackage."""

from __future__ import annotations


class SemanticComponentError(Exception):
    """Base class of the errors this subpackage raises on purpose."""


class MissingStateInterfaceError(SemanticComponentError, KeyError):
    """State interfaces a semantic component needs were not handed to it.

    ``missing`` holds the full names (``<prefix>/<interface>``) that were not found.
    """

    def __init__(self, component: str, missing: list[str]) -> None:
        self.component = component
        self.missing = list(missing)
        super().__init__(
            f'{component}: state interface{"s" if len(missing) > 1 else ""} '
            f'{", ".join(repr(m) for m in missing)} not assigned (does the hardware '
            'export it, and does the controller claim it?)'
        )

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


class NotAssignedError(SemanticComponentError, RuntimeError):
    """Values were read before ``assign_loaned_state_interfaces`` (or after a release)."""
