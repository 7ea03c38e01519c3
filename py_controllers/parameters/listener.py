"""ParamListener: a schema's parameters as real ROS parameters, read through immutable snapshots.

The runtime stand-in for the ``ParamListener`` that generate_parameter_library generates. It
declares every parameter of a schema on an rclpy node with a descriptor (description,
read_only, a range from the bound validators, the rules as additional_constraints), so
``ros2 param describe/get/set`` work as with upstream controllers; it rejects invalid
``ros2 param set`` requests with the validator's message and turns accepted ones into a new
snapshot, put whole into a :class:`RealtimeBox` by the post-set callback, that the control
loop picks up with one box read (no locks, no parameter calls on that side). Controllers use
it through :class:`~py_controllers.parameters.controller_parameters.ControllerParameters`.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
from contextlib import suppress
from copy import copy
from pathlib import Path
from typing import Any

from rcl_interfaces.msg import (
    FloatingPointRange,
    IntegerRange,
    ParameterDescriptor,
    SetParametersResult,
)
from rclpy.exceptions import (
    InvalidParameterTypeException,
    InvalidParameterValueException,
    ParameterImmutableException,
    ParameterNotDeclaredException,
    ParameterUninitializedException,
)
from rclpy.parameter import Parameter

from py_controllers.parameters.errors import ParameterError
from py_controllers.parameters.overrides import given_value
from py_controllers.parameters.schema import (
    Leaf,
    ParamGroup,
    ParamSpec,
    Schema,
    Validate,
    build_params,
    check_values,
    coerce,
    constraints_text,
    invalid_message,
    load_schema,
    missing_message,
    validate,
    value_range,
)
from py_controllers.realtime_tools import RealtimeBox

ROS_TYPES: Mapping[str, Parameter.Type] = {
    'bool': Parameter.Type.BOOL,
    'int': Parameter.Type.INTEGER,
    'double': Parameter.Type.DOUBLE,
    'string': Parameter.Type.STRING,
    'bool_array': Parameter.Type.BOOL_ARRAY,
    'int_array': Parameter.Type.INTEGER_ARRAY,
    'double_array': Parameter.Type.DOUBLE_ARRAY,
    'string_array': Parameter.Type.STRING_ARRAY,
}
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class ParamListener:
    """Declares a schema's parameters on ``node`` and keeps a validated snapshot of them.

    ``schema`` is a :class:`Schema` or the path of its YAML file. ``prefix`` is put before
    every parameter name (a trailing '.' is added when missing). ``custom_validators`` maps
    the validator names used in the schema to ``fn(param, *args) -> str`` ('' when valid).

    Values come from the node's parameter overrides (``--ros-args -p`` / ``--params-file`` /
    ``parameter_overrides``), else the schema defaults; an int is accepted for a double. A
    parameter the node auto-declared from its overrides is declared again with its
    descriptor, keeping the value; one declared with a descriptor by someone else is kept.

    Raises SchemaError for a validator that is neither built in nor supplied, and
    ParameterError (listing every problem) when a value has the wrong type, breaks a rule or
    a required parameter (no default_value) was not given. The parameters stay declared
    either way, as upstream.
    """

    def __init__(
        self,
        node: Any,
        schema: Schema | str | Path,
        *,
        prefix: str = '',
        custom_validators: Mapping[str, Validate] | None = None,
        consistency: Callable[[ParamGroup], str] | None = None,
    ) -> None:
        """`consistency(snapshot)` checks rules across parameters (e.g. PID gains, speed
        limits): '' when fine, else the reason, which refuses the change as a single
        parameter's rule does."""
        self.node = node
        self._consistency = consistency
        self.schema = schema if isinstance(schema, Schema) else load_schema(schema)
        self.prefix = f'{prefix}.' if prefix and not prefix.endswith('.') else prefix
        self._custom = dict(custom_validators or {})
        self.schema.check_validators(self._custom)
        self._lock = threading.RLock()  # writers only; re-entered when declaring in refresh
        self._specs: dict[str, ParamSpec] = {}  # by name without prefix
        self._probing = ''  # the parameter given_value() is reading: not ours meanwhile
        values: dict[str, Any] = {}
        problems: list[str] = []
        for spec in self.schema.static_parameters():
            values[spec.name], problem = self._declare(spec)
            problems += [problem] if problem else []
        for spec in self.schema.mapped_parameters(values):
            values[spec.name], problem = self._declare(spec)
            problems += [problem] if problem else []
        self._values = values
        #: The current snapshot; only _commit() writes it, readers never wait.
        self._snapshot: RealtimeBox[ParamGroup] = RealtimeBox(build_params(self.schema, values))
        if problems:
            raise ParameterError(problems)
        node.add_pre_set_parameters_callback(self._retype_request)
        node.add_on_set_parameters_callback(self._check_request)
        node.add_post_set_parameters_callback(self._apply_request)

    # --- reading (loop-safe) ------------------------------------------------------------------
    def get_params(self) -> ParamGroup:
        """The current snapshot: immutable, shared, swapped whole on every accepted change."""
        return self._snapshot.get()

    def try_get_params(self) -> ParamGroup:
        """The current snapshot; never blocks and never fails (a single box read)."""
        return self._snapshot.get()

    def is_old(self, params: ParamGroup) -> bool:
        """True when ``params`` is no longer the current snapshot."""
        return params is not self._snapshot.get()

    # --- non-realtime maintenance --------------------------------------------------------------
    def refresh_dynamic_parameters(self) -> None:
        """Declare the ``__map_`` parameters of new map keys, undeclare those of removed ones.

        Raises ParameterError for the new parameters that are missing or invalid (they stay
        declared, unset, so they can still be set).
        """
        with self._lock:
            wanted = {s.name: s for s in self.schema.mapped_parameters(self._values)}
            values = dict(self._values)
            for name, spec in list(self._specs.items()):
                if spec.mapped and name not in wanted:
                    # read-only ones cannot go; they are just no longer ours
                    with suppress(ParameterImmutableException, ParameterNotDeclaredException):
                        self.node.undeclare_parameter(self.prefix + name)
                    del self._specs[name]
                    values.pop(name, None)
            problems = []
            for name, spec in wanted.items():
                if name not in self._specs:
                    values[name], problem = self._declare(spec)
                    problems += [problem] if problem else []
            self._commit(values)
        if problems:
            raise ParameterError(problems)

    def validate_all(self) -> None:
        """Check every current value again (e.g. at configure); raises ParameterError."""
        with self._lock:
            problems = check_values(self.schema, self._values, self._custom, prefix=self.prefix)
            if not problems:
                problems = self._inconsistency(self._values)
        if problems:
            raise ParameterError(problems)

    def _inconsistency(self, values: dict[str, Any]) -> list[str]:
        if self._consistency is None:
            return []
        try:
            reason = self._consistency(build_params(self.schema, values))
        except Exception as exc:  # the check itself failed: say so rather than accept
            reason = f'consistency check failed: {exc!r}'
        return [reason] if reason else []

    def close(self) -> None:
        """Stop following parameter changes (the parameters stay declared)."""
        for remove, callback in (
            (self.node.remove_pre_set_parameters_callback, self._retype_request),
            (self.node.remove_on_set_parameters_callback, self._check_request),
            (self.node.remove_post_set_parameters_callback, self._apply_request),
        ):
            with suppress(ValueError):  # not registered: failed construction, or closed
                remove(callback)

    # --- declaring -----------------------------------------------------------------------------
    def _declare(self, spec: ParamSpec) -> tuple[Any, str]:
        """Declare one parameter; returns the value it holds (None if unset) and a problem."""
        full_name = self.prefix + spec.name
        leaf = spec.leaf
        self._specs[spec.name] = spec
        raw, given = self._initial_value(full_name, leaf)
        value, problem = None, ''
        if given:
            try:
                value = coerce(leaf.type, full_name, raw)
            except ParameterError as exc:
                problem = str(exc)
        elif self._left_unset(full_name):
            # an earlier attempt refused the value given: the default must not replace it
            problem = invalid_message(
                full_name, 'the value given was refused; set a valid one', during_init=True
            )
        elif leaf.has_default:
            value = leaf.default
        else:
            problem = missing_message(full_name)
        if value is not None:
            reason = validate(leaf, full_name, value, self._custom)
            if reason:
                problem = invalid_message(full_name, reason, during_init=True)

        if self.node.has_parameter(full_name):
            if not _is_bare(self.node.describe_parameter(full_name)):
                return value, problem  # declared with a descriptor by its owner: keep it
            self.node.undeclare_parameter(full_name)  # auto-declared from an override
        if not self._declare_on_node(full_name, leaf, value):
            # the value is outside the descriptor's range or refused by a callback: the
            # problem above already says why; the parameter stays, unset
            value = None
        return value, problem

    def _left_unset(self, full_name: str) -> bool:
        """Declared on the node but unset: what `_declare_on_node` leaves after a refusal."""
        if not self.node.has_parameter(full_name):
            return False
        try:
            self.node.get_parameter(full_name)
        except ParameterUninitializedException:
            return True
        return False

    def _initial_value(self, full_name: str, leaf: Leaf) -> tuple[Any, bool]:
        if self.node.has_parameter(full_name):
            try:
                parameter = self.node.get_parameter(full_name)
            except ParameterUninitializedException:
                return None, False
        else:
            self._probing = full_name
            try:
                parameter = given_value(self.node, full_name)
            finally:
                self._probing = ''
            if parameter is None:
                return None, False
        if parameter.type_ == Parameter.Type.NOT_SET:
            # a YAML `[]` arrives untyped
            return ((), True) if leaf.is_array else (None, False)
        return parameter.value, True

    def _declare_on_node(self, full_name: str, leaf: Leaf, value: Any) -> bool:
        """Declare `full_name` with our descriptor, holding `value` (None: unset); False when
        the value is refused, the parameter then declared unset."""
        ros_type = ROS_TYPES[leaf.type]
        descriptor = _descriptor(leaf)
        refused = False
        if value is not None and not (leaf.is_array and len(value) == 0):
            try:
                self.node.declare_parameter(
                    full_name, _to_ros(value), descriptor, ignore_override=True
                )
                return True
            except (InvalidParameterValueException, InvalidParameterTypeException):
                refused = True  # and not declared: rclpy declares nothing it refuses
        if value is None or refused:
            self.node.declare_parameter(full_name, ros_type, descriptor, ignore_override=True)
            return not refused
        # rclpy types a declared `[]` as a byte array: declare it typed and writable, set it
        # empty, then give it its own descriptor (which may be read-only)
        writable = copy(descriptor)
        writable.read_only = False
        self.node.declare_parameter(full_name, ros_type, writable, ignore_override=True)
        if not self.node.set_parameters([Parameter(full_name, ros_type, [])])[0].successful:
            self.node.undeclare_parameter(full_name)
            self.node.declare_parameter(full_name, ros_type, descriptor, ignore_override=True)
            return False
        if descriptor.read_only:
            descriptor.type = ros_type.value
            self.node.set_descriptor(full_name, descriptor)
        return True

    # --- parameter callbacks (executor thread) -------------------------------------------------
    def _spec_of(self, full_name: str) -> ParamSpec | None:
        if not full_name.startswith(self.prefix) or full_name == self._probing:
            return None
        return self._specs.get(full_name[len(self.prefix) :])

    def _retype_request(self, parameters: list[Parameter]) -> list[Parameter]:
        """Pre-set: an int for a double (also in arrays) or an untyped `[]` takes our type."""
        retyped = []
        for parameter in parameters:
            spec = self._spec_of(parameter.name)
            if spec is not None and parameter.type_ != ROS_TYPES[spec.leaf.type]:
                parameter = _retyped(parameter, spec.leaf)
            retyped.append(parameter)
        return retyped

    def _check_request(self, parameters: list[Parameter]) -> SetParametersResult:
        """On-set: reject the whole request if one of our parameters breaks a rule."""
        with self._lock:
            values, problems = self._stage(parameters)
            if values is not None and not problems:
                problems = self._inconsistency(values)
        if problems:
            return SetParametersResult(successful=False, reason='\n'.join(problems))
        return SetParametersResult(successful=True)

    def _apply_request(self, parameters: list[Parameter]) -> None:
        """Post-set: the node took the values; publish them as a new snapshot."""
        with self._lock:
            values, _ = self._stage(parameters)
            if values is not None:
                self._commit(values)

    def _stage(self, parameters: list[Parameter]) -> tuple[dict[str, Any] | None, list[str]]:
        """The values after ``parameters`` (None if none is ours) and the rules they break."""
        values = None
        problems = []
        for parameter in parameters:
            spec = self._spec_of(parameter.name)
            if spec is None:
                continue
            if values is None:
                values = dict(self._values)
            if parameter.type_ == Parameter.Type.NOT_SET:
                values[spec.name] = None  # a required parameter being declared without value
                continue
            try:
                value = coerce(spec.leaf.type, parameter.name, parameter.value)
            except ParameterError as exc:
                problems.append(str(exc))
                continue
            reason = validate(spec.leaf, parameter.name, value, self._custom)
            if reason:
                problems.append(reason)
                continue
            values[spec.name] = value
        return values, problems

    def _commit(self, values: dict[str, Any]) -> None:
        self._values = values
        self._snapshot.set(build_params(self.schema, values))  # the one swap readers see


def _descriptor(leaf: Leaf) -> ParameterDescriptor:
    descriptor = ParameterDescriptor(
        description=leaf.description,
        read_only=leaf.read_only,
        additional_constraints=constraints_text(leaf),
    )
    bounds = value_range(leaf)
    if bounds is not None and leaf.type == 'double':
        descriptor.floating_point_range = [
            FloatingPointRange(from_value=float(bounds[0]), to_value=float(bounds[1]), step=0.0)
        ]
    elif bounds is not None:
        lower = _INT64_MIN if math.isinf(bounds[0]) else math.ceil(bounds[0])
        upper = _INT64_MAX if math.isinf(bounds[1]) else math.floor(bounds[1])
        descriptor.integer_range = [IntegerRange(from_value=lower, to_value=upper, step=0)]
    return descriptor


def _is_bare(descriptor: ParameterDescriptor) -> bool:
    """True for the default descriptor rclpy gives parameters auto-declared from overrides."""
    return not (
        descriptor.description
        or descriptor.read_only
        or descriptor.additional_constraints
        or descriptor.floating_point_range
        or descriptor.integer_range
    )


def _to_ros(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _retyped(parameter: Parameter, leaf: Leaf) -> Parameter:
    ros_type = ROS_TYPES[leaf.type]
    if parameter.type_ == Parameter.Type.NOT_SET:
        return Parameter(parameter.name, ros_type, []) if leaf.is_array else parameter
    try:
        value = coerce(leaf.type, parameter.name, parameter.value)
    except ParameterError:
        return parameter  # rclpy refuses it with its own wrong-type message
    return Parameter(parameter.name, ros_type, _to_ros(value))
