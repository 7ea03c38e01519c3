"""The value given to a node for a parameter it has not declared, through public rclpy API.

rclpy keeps what a node was given (params files, ``-p``, ``parameter_overrides``) for the
parameters it has not declared in a private attribute; its one public way there is to declare
the parameter without ``ignore_override``, which takes the given value. `given_value` does that
with a probe (dynamic typing, a default nobody passes) and undeclares it at once. The probe goes
through the node's on-set and post-set callbacks and publishes two parameter events (new,
deleted); a callback that refuses it makes `given_value` raise.
"""

from __future__ import annotations

from typing import Any

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.parameter import Parameter

NOT_GIVEN = '\x00py_controllers: no value given'


def given_value(node: Any, name: str) -> Parameter | None:
    """What `node` was given for undeclared parameter `name` (None if nothing); a YAML `[]`
    comes back as a NOT_SET parameter. `name` must not be declared."""
    probe = node.declare_parameter(name, NOT_GIVEN, ParameterDescriptor(dynamic_typing=True))
    node.undeclare_parameter(name)
    if probe.type_ == Parameter.Type.STRING and probe.value == NOT_GIVEN:
        return None
    return probe


def given_names(node: Any, names: list[str]) -> list[str]:
    """Those of `names` the node has declared or was given a value for."""
    return [n for n in names if node.has_parameter(n) or given_value(node, n) is not None]
