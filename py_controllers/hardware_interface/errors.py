"""Exceptions raised by the hardware_interface subpackage."""

from __future__ import annotations


class HardwareInterfaceError(Exception):
    """Base class of the errors this subpackage raises on purpose."""


class UrdfError(HardwareInterfaceError, ValueError):
    """The robot description is not valid XML or a URDF `<joint>` is malformed."""


class ComponentParserError(HardwareInterfaceError, ValueError):
    """A `<ros2_control>` description is invalid; the message names the tag or attribute."""
