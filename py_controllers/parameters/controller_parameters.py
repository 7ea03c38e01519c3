"""A controller's parameters: declared at init, validated at configure, updated at run time.

The one mechanism every controller uses, shaped like generate_parameter_library's
``get_params()`` / ``try_update_params(params_)`` pair:

* ``on_init``: ``self.parameters = ControllerParameters(node, schema)`` declares every
  parameter of the schema. Declaring never fails the load of a controller; an invalid or
  missing value is reported at configure (the moment upstream users look at), with a
  message naming the parameter and the rule.
* ``on_configure``: ``params = self.parameters.load()`` validates and returns the snapshot
  the controller configures itself from (None after logging why not: return ERROR). A later
  configure retries, so a value fixed with ``ros2 param set`` is picked up. The snapshot
  becomes :attr:`ControllerParameters.params`.
* ``ros2 param set`` (executor thread): the listener's on-set callback validates the request
  (read-only parameters are refused by rclpy itself, so they stay as configured); its
  post-set callback builds a new immutable snapshot and puts it into a box.
* ``update()`` (loop thread): ``new = self.parameters.try_update_rt()`` hands out that new
  snapshot once (and makes it :attr:`params`), else None: one box read and an identity
  check, no parameter calls, no locks. The controller applies what it needs from ``new``
  (rebuild a limiter, new gains, ...); everything else reads :attr:`params`.
* Other threads (subscriber and service callbacks) read :meth:`latest`, the newest
  accepted snapshot, and never call :meth:`try_update_rt` (the loop is its one consumer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from py_controllers.parameters.errors import ParameterError
from py_controllers.parameters.listener import ParamListener


class ControllerParameters:
    """Owns the ParamListener of one controller node and the snapshot its loop uses."""

    def __init__(
        self,
        node: Any,
        schema: Path | str,
        *,
        custom_validators: dict | None = None,
        consistency: Any = None,
    ) -> None:
        """`consistency(snapshot) -> str` refuses sets that break a rule across parameters
        (see ParamListener), at `ros2 param set` and at configure."""
        self.node = node
        self.schema = schema
        self.custom_validators = custom_validators
        self.consistency = consistency
        self.listener: ParamListener | None = None
        self.error = ''
        #: The snapshot the controller works with: set by load(), replaced by try_update_rt().
        self.params: Any = None
        self._create()

    def _create(self) -> None:
        try:
            self.listener = ParamListener(
                self.node,
                self.schema,
                custom_validators=self.custom_validators,
                consistency=self.consistency,
            )
            self.error = ''
        except ParameterError as exc:
            self.error = str(exc)

    def load(self) -> Any | None:
        """Validated parameters, or None after logging why they are invalid (not loop-safe).

        The snapshot returned becomes :attr:`params`; :meth:`try_update_rt` reports only
        changes accepted after this call.
        """
        if self.listener is None:
            first = self.error
            self._create()
            if first and self.error:
                self.error = first  # the first attempt saw the value given: its reason is sharper
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
        self.params = params
        return params

    def try_update_rt(self) -> Any | None:
        """Loop side: the snapshot accepted since the last call, once; else None.

        The new snapshot also becomes :attr:`params`. Never blocks and makes no parameter
        call (one box read). Call it from update() only, before anything reads :attr:`params`.
        """
        newest = self.listener.get_params() if self.listener is not None else None
        if newest is None or newest is self.params:
            return None
        self.params = newest
        return newest

    def latest(self) -> Any:
        """The newest accepted snapshot, for code outside the loop (callbacks, activation).

        It may be newer than :attr:`params` until the loop's next :meth:`try_update_rt`.
        """
        assert self.listener is not None
        return self.listener.get_params()
