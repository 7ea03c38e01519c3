"""Make the middleware know message types before a process discovers anyone.

Kilted's Fast DDS (3.2) announces a remote endpoint of a type the process has not used yet
only after looking the type up with its owner, and a race in that lookup can drop a writer
for good when a reader and a writer of one type arrive together (a GPIO controller's
`~/commands` and `~/gpio_states`; docs/install.md, scripts/type_lookup_race.py). A type the
process has registered is never looked up. Fast DDS keeps registered types for the whole
process, so a short-lived participant of our own, which discovers nobody, registers them before
the real node exists.
Jazzy's Fast DDS looks no types up; there this only costs the short-lived participant.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Iterable, Iterator
from typing import Any

import rclpy
from rclpy.context import Context
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

PACKAGES = (
    'std_msgs',
    'geometry_msgs',
    'sensor_msgs',
    'nav_msgs',
    'tf2_msgs',
    'trajectory_msgs',
    'control_msgs',
    'diagnostic_msgs',
)
"""The message packages whose topics our dashboard and demo read and write."""

NODE_NAME = '_py_controllers_type_registration'
"""Hidden (leading underscore) from `ros2 node list`, as its topics are from `ros2 topic list`."""

TOPIC_PREFIX = '/_py_controllers/type_registration'


def message_types(packages: Iterable[str] = PACKAGES) -> list[Any]:
    """Every message class of `packages` (their `msg` modules)."""
    found = []
    for package in packages:
        module = importlib.import_module(f'{package}.msg')
        for name in sorted(dir(module)):
            cls = getattr(module, name)
            if name[:1].isupper() and hasattr(cls, 'get_fields_and_field_types'):
                found.append(cls)
    return found


DISCOVERY_ENV = {
    'ROS_AUTOMATIC_DISCOVERY_RANGE': 'OFF',
    'ROS_STATIC_PEERS': None,
    'ROS_LOCALHOST_ONLY': None,  # deprecated, but where it is 1 rcl ignores the other two
}
"""The environment the registering participant starts in: discovering nobody, nobody discovers
it, so no other process asks it for its types while it goes away (with discovery on, deleting
its publishers crashed the process in 3 of 500 starts, Fast DDS answering a lookup)."""


@contextlib.contextmanager
def _environment(values: dict[str, str | None]) -> Iterator[None]:
    """`values` set (None: unset) in os.environ for the block, the old ones back after it."""
    saved = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            _set(name, value)
        yield
    finally:
        for name, value in saved.items():
            _set(name, value)


def _set(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


@contextlib.contextmanager
def registering_node() -> Iterator[Node]:
    """A node on a participant of its own that discovers nobody (and none of the process's ROS
    arguments, so no remapping renames it); destroyed with its participant after the block."""
    context = Context()
    with _environment(DISCOVERY_ENV):
        rclpy.init(args=[], context=context, signal_handler_options=SignalHandlerOptions.NO)
    try:
        node = rclpy.create_node(
            NODE_NAME, context=context, start_parameter_services=False, enable_rosout=False
        )
        try:
            yield node
        finally:
            node.destroy_node()
    finally:
        rclpy.try_shutdown(context=context)


def register_message_types(types: Iterable[Any]) -> int:
    """Register `types` with the middleware (one publisher a type on a `registering_node`),
    before this process's own node is created. Returns how many."""
    types = list(types)
    with registering_node() as node:
        for cls in types:
            package = cls.__module__.split('.')[0]
            node.create_publisher(cls, f'{TOPIC_PREFIX}/{package}_{cls.__name__}', 1)
    return len(types)
