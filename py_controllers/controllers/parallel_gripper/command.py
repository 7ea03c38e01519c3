"""A ParallelGripperCommand's ``command`` (a sensor_msgs/JointState) checked and turned into a
target. Pure (no rclpy): plain sequences in, a :class:`ParallelTarget` or a reason out.

Upstream (parallel_gripper_controller, rolling) rejects a goal unless ``position`` holds exactly
one value, and takes ``velocity[0]`` / ``effort[0]`` when the goal has them and the matching
``max_velocity_interface`` / ``max_effort_interface`` is configured, else the ``max_velocity`` /
``max_effort`` parameters. Stricter here, on purpose: ``name`` must be empty or exactly the
controller's joint, ``velocity`` and ``effort`` hold at most one value, and every value must be
finite (the velocity and effort limits also >= 0, like the parameters they stand in for).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ['ParallelTarget', 'parallel_command_problem', 'parallel_target']


class ParallelTarget(NamedTuple):
    """Where the gripper should go, and the velocity and effort limits on the way."""

    position: float
    velocity: float
    effort: float


def parallel_command_problem(
    joint: str,
    names: Sequence[str],
    positions: Sequence[float],
    velocities: Sequence[float],
    efforts: Sequence[float],
) -> str:
    """Why this command cannot be executed by the gripper of ``joint`` ('' when it can)."""
    if len(positions) != 1:
        return f'expects 1 position value, got {len(positions)}'
    if len(names) and list(names) != [joint]:
        return f"command.name must be empty or ['{joint}'], got {list(names)}"
    if not math.isfinite(positions[0]):
        return f'command.position must be finite, got {positions[0]}'
    for field, values in (('velocity', velocities), ('effort', efforts)):
        if len(values) > 1:
            return f'command.{field} must hold at most 1 value, got {len(values)}'
        if len(values) and not (math.isfinite(values[0]) and values[0] >= 0.0):
            return f'command.{field} must be finite and >= 0, got {values[0]}'
    return ''


def parallel_target(
    positions: Sequence[float],
    velocities: Sequence[float],
    efforts: Sequence[float],
    *,
    default_velocity: float,
    default_effort: float,
    velocity_claimed: bool,
    effort_claimed: bool,
) -> ParallelTarget:
    """The target of a checked command: a limit from the goal only where its interface is
    claimed and the goal gives one, else the default (upstream's accepted_callback)."""
    velocity = velocities[0] if velocity_claimed and len(velocities) else default_velocity
    effort = efforts[0] if effort_claimed and len(efforts) else default_effort
    return ParallelTarget(float(positions[0]), float(velocity), float(effort))
