"""Trajectories the controller makes itself: hold, hold after success, brake to a stop (pure).

Each starts at its first sample (no stamp). ``hold_trajectory`` and ``decelerate_to_stop``
run in the loop (stop, cancel, violations): they build their points without the checks and
copies of :class:`~.trajectory.Trajectory`'s constructor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from py_controllers.controllers.joint_trajectory.points import TrajectoryPoint, trusted_point
from py_controllers.controllers.joint_trajectory.trajectory import Trajectory

__all__ = ['decelerate_to_stop', 'hold_trajectory', 'success_trajectory']

# Upstream compares velocities against the float (not double) epsilon.
_FLOAT_EPS = float(np.finfo(np.float32).eps)


def hold_trajectory(
    positions: np.ndarray | Sequence[float],
    *,
    zero_velocities: bool = True,
    zero_accelerations: bool = True,
    zero_effort: bool = False,
) -> Trajectory:
    """One-point trajectory at ``positions`` starting at its first sample (upstream hold).

    Upstream adds zero velocities when a velocity or acceleration command interface exists,
    zero accelerations for an acceleration interface and zero effort for an effort interface.
    """
    pos = np.array(positions, dtype=float)
    n = pos.shape[0]
    point = TrajectoryPoint(
        0.0,
        pos,
        np.zeros(n) if zero_velocities else None,
        np.zeros(n) if zero_accelerations else None,
        np.zeros(n) if zero_effort else None,
    )
    return Trajectory([point], None, copy=False)


def success_trajectory(trajectory: Trajectory) -> Trajectory:
    """One-point trajectory repeating ``trajectory``'s last point (after a goal succeeded)."""
    return Trajectory([replace(trajectory.final_point(), time_from_start_s=0.0)], None, copy=False)


def decelerate_to_stop(
    positions: np.ndarray | Sequence[float],
    velocities: np.ndarray | Sequence[float],
    max_deceleration: np.ndarray | Sequence[float],
    period_s: float,
) -> Trajectory:
    """Stop ramp: each joint brakes at its constant ``max_deceleration`` from its velocity.

    Waypoints every ``period_s`` from 0 until the slowest joint stops (ceil, plus the initial
    point), each with positions, velocities and accelerations; a stopped joint holds
    ``p0 + sign(v0) * v0^2 / (2 a)``. Starts at its first sample. Raises ValueError for a
    non-positive period or deceleration.
    """
    if not period_s > 0.0:
        raise ValueError(f'period_s must be positive, got {period_s}')
    p0 = np.array(positions, dtype=float)
    v0 = np.array(velocities, dtype=float)
    decel = np.broadcast_to(np.asarray(max_deceleration, dtype=float), p0.shape)
    if not np.all(decel > 0.0):
        raise ValueError('max_deceleration must be positive for every joint')
    direction = np.where(v0 >= 0.0, 1.0, -1.0)
    stop_time_s = np.abs(v0) / decel
    hold_positions = p0 + direction * (v0 * v0) / (2.0 * decel)
    max_stop_s = float(stop_time_s.max()) if stop_time_s.size else 0.0
    n_points = math.ceil(max_stop_s / period_s) + 1
    times = np.arange(n_points, dtype=float)[:, None] * period_s
    moving = (times < stop_time_s) & (np.abs(v0) > _FLOAT_EPS)
    ramp_v = v0 - direction * decel * times
    ramp_v = np.where(ramp_v * direction < 0.0, 0.0, ramp_v)
    ramp_p = p0 + v0 * times - 0.5 * direction * decel * times * times
    pos = np.where(moving, ramp_p, hold_positions)
    vel = np.where(moving, ramp_v, 0.0)
    acc = np.where(moving, -direction * decel, 0.0)
    tfs = times[:, 0].tolist()
    points = tuple(trusted_point(tfs[k], pos[k], vel[k], acc[k]) for k in range(n_points))
    return Trajectory.from_trusted_points(points, p0.shape[0], None)
