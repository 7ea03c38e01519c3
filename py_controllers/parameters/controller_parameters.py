"""A controller's parameters: declared from its schema at init, validated at configure.

Declaring never fails the load of a controller; an invalid or missing value is reported
at configure (the moment upstream users look at), with a message naming the parameter
and the rule, and configure fails. A later configure retries, so a value fixed with
`ros2 param set` is picked up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from py_controllers.parameters.errors import ParameterError
from py_controllers.parameters.listener import ParamListener


class ControllerParameters:
    """Owns the ParamListener of one controller node."""

    def __init__(
        self, node: Any, schema: Path | str, *, custom_validators: dict | None = None
    ) -> None:
        self.node = node
        self.schema = schema
        self.custom_validators = custom_validators
        self.listener: ParamListener | None = None
        self.error = ''
        self._create()

    def _create(self) -> None:
        try:
            self.listener = ParamListener(
                self.node, self.schema, custom_validators=self.custom_validators
            )
            self.error = ''
        except ParameterError as exc:
            self.error = str(exc)

    def load(self) -> Any | None:
        """Validated parameters, or None after logging why they are invalid."""
        if self.listener is None:
            self._create()
        error = self.error
        params = None
        if self.listener is not None:
            try:
                self.listener.refresh_dynamic_parameters()
                self.listener.validate_all()
                params = self.listener.get_params()
            except ParameterError as exc:
                error = str(exc)
        if error:
            self.node.get_logger().error(error)
            return None
        return params

    def latest(self) -> Any:
        """The newest validated snapshot (loop-safe: a reference read)."""
        assert self.listener is not None
        return self.listener.get_params()
