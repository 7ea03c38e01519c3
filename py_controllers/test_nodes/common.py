"""What both test nodes share: finite goal values and running a node until Ctrl-C."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node

from py_controllers.controller_manager.client import tear_down


class GoalError(ValueError):
    """A goal parameter that cannot be published."""


def finite_values(name: str, values: Sequence[float]) -> list[float]:
    """`values` as floats; GoalError naming `name` if one is not finite (the controllers would
    refuse it anyway: better not to start)."""
    floats = [float(v) for v in values]
    bad = [v for v in floats if not math.isfinite(v)]
    if bad:
        raise GoalError(f'Goal "{name}" holds {bad[0]}, not a finite number')
    return floats


def run(make_node: Callable[[], Node], args: list[str] | None = None) -> int:
    """Create the node and spin it until shutdown; 1 (with the reason logged) if it refused
    its parameters. Run from controller_manager/tools.py, the status reaches the caller even
    if rclpy's teardown crashes or hangs (client.tear_down)."""
    rclpy.init(args=args)
    node = None
    status = 0
    try:
        node = make_node()
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except GoalError as exc:
        rclpy.logging.get_logger('test_nodes').error(str(exc))
        status = 1
    finally:
        # the status first, then a bounded teardown: upstream's test nodes have been seen
        # to crash in it on SIGINT
        tear_down(node, status)
    return status
