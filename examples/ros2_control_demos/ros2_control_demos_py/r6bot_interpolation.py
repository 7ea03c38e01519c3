"""Example 7's trajectory sampling, as upstream's RobotController does it (no rclpy here).

The points are taken as evenly spaced in time; the sample at `t` blends point `ind` and
`ind + 1` with `delta = min(t - ind * total / n, 1)`, `ind = min(int(t * n / total), n - 2)`;
from `total` (the last point's time) on, the last positions with zero velocities.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Trajectory:
    """Points as tuples of positions and velocities (one per joint), and the last point's
    time_from_start in seconds."""

    positions: tuple[tuple[float, ...], ...]
    velocities: tuple[tuple[float, ...], ...]
    total_s: float


def trajectory_problem(
    positions: list[list[float]], velocities: list[list[float]], total_s: float, joints: int
) -> str:
    """Why these points cannot be followed ('' when they can): at least two points, one
    position and one velocity per joint in each, finite numbers, a last time > 0."""
    if len(positions) < 2:
        return f'a trajectory needs at least 2 points, got {len(positions)}'
    for i, (p, v) in enumerate(zip(positions, velocities)):
        if len(p) != joints or len(v) != joints:
            return (
                f'point {i} has {len(p)} positions and {len(v)} velocities, '
                f'expected {joints} of each'
            )
        if not all(x == x and abs(x) != float('inf') for x in (*p, *v)):
            return f'point {i} holds a value that is not a finite number'
    if not total_s > 0.0:
        return f"the last point's time_from_start must be > 0, got {total_s}"
    return ''


def sample(
    trajectory: Trajectory, t_s: float, positions: list[float], velocities: list[float]
) -> bool:
    """Write the sample at `t_s` into `positions` and `velocities`; True at the end."""
    total = trajectory.total_s
    n = len(trajectory.positions)
    if t_s >= total:
        positions[:] = trajectory.positions[-1]
        for i in range(len(velocities)):
            velocities[i] = 0.0
        return True
    ind = min(int(t_s * (n / total)), n - 2)
    delta = min(t_s - ind * (total / n), 1.0)
    for target, points in ((positions, trajectory.positions), (velocities, trajectory.velocities)):
        a, b = points[ind], points[ind + 1]
        for i in range(len(a)):
            target[i] = delta * b[i] + (1.0 - delta) * a[i]
    return False
