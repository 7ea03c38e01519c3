"""Points, samples and angles of the joint trajectory controller's trajectories (pure).

:class:`TrajectoryPoint` is one waypoint (or a measured or commanded state) in controller joint
order; :class:`SampleResult` is what sampling a :class:`~.trajectory.Trajectory` yields, written
in place so that the loop samples without allocating.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

__all__ = [
    'InterpolationMethod',
    'SampleResult',
    'TrajectoryPoint',
    'copy_or_none',
    'shortest_angular_distance_array',
    'trusted_point',
    'wrap_toward',
]

_PI = math.pi
_TWO_PI = 2.0 * math.pi


class InterpolationMethod(str, Enum):
    """Value of the ``interpolation_method`` parameter."""

    NONE = 'none'
    SPLINES = 'splines'

    @classmethod
    def from_string(cls, name: str) -> InterpolationMethod:
        """Parse case-insensitively; unknown names give SPLINES (upstream default, caller warns)."""
        lowered = name.lower()
        if lowered == 'none':
            return cls.NONE
        return cls.SPLINES


def shortest_angular_distance_array(from_angles: np.ndarray, to_angles: np.ndarray) -> np.ndarray:
    """Element-wise signed rotation in (-pi, pi] taking ``from_angles`` onto ``to_angles``.

    Vectorised twin of ``control_toolbox.angles.shortest_angular_distance`` (same convention:
    an exact half turn gives +pi).
    """
    diff = np.subtract(to_angles, from_angles)
    return _PI - np.mod(_PI - diff, _TWO_PI)


def wrap_toward(current: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Shift ``current`` by whole turns to lie within half a turn of ``target``."""
    dist = shortest_angular_distance_array(current, target)
    # An exact half turn goes the way the raw difference points (as upstream).
    half_turn = np.abs(np.abs(dist) - _PI) < 1e-9
    if half_turn.any():
        toward = np.where(target > current, np.abs(dist), -np.abs(dist))
        dist = np.where(half_turn, toward, dist)
    return target - dist


def _as_array(values: Sequence[float] | np.ndarray | None) -> np.ndarray | None:
    if values is None:
        return None
    return np.asarray(values, dtype=float)


def copy_or_none(values: np.ndarray | None) -> np.ndarray | None:
    return None if values is None else values.copy()


@dataclass
class TrajectoryPoint:
    """One waypoint (or a measured/commanded state); a field is None when absent.

    Fields are converted to float arrays without copying float arrays (see :meth:`copy`).
    """

    time_from_start_s: float = 0.0
    positions: np.ndarray | None = None
    velocities: np.ndarray | None = None
    accelerations: np.ndarray | None = None
    effort: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.positions = _as_array(self.positions)
        self.velocities = _as_array(self.velocities)
        self.accelerations = _as_array(self.accelerations)
        self.effort = _as_array(self.effort)

    def copy(self) -> TrajectoryPoint:
        """Deep copy (the arrays are copied too)."""
        return TrajectoryPoint(
            self.time_from_start_s,
            copy_or_none(self.positions),
            copy_or_none(self.velocities),
            copy_or_none(self.accelerations),
            copy_or_none(self.effort),
        )


class SampleResult:
    """Output of :meth:`Trajectory.sample`: the sampled state and where it lies.

    The four arrays are views into one buffer owned by this object. Pass the same object as
    ``out`` on every cycle to sample without allocating; it is then overwritten each time.

    * ``start_index`` / ``end_index``: waypoint indices of the segment. Before the first point
      both are 0; past the last point they are ``n_points - 1`` and ``n_points``.
    * ``before_last_point``: ``end_index < n_points`` (upstream ``end_segment_itr != end()``).
    * ``segment_start_time_s``: time at which waypoint ``start_index`` is due; the controller's
      ``time_difference`` is ``traj_time - segment_start_time_s``.
    * ``time_from_start_s``: that of the segment's end waypoint (0 before the first point).
    """

    __slots__ = (
        '_basis',
        '_buffer',
        'accelerations',
        'before_last_point',
        'effort',
        'end_index',
        'positions',
        'segment_start_time_s',
        'start_index',
        'time_from_start_s',
        'velocities',
    )

    def __init__(self, n_joints: int, buffer: np.ndarray | None = None) -> None:
        # Row 0: positions | effort, row 1: velocities | effort slope, row 2: accelerations | 0.
        # `buffer`: those rows given (C-contiguous), e.g. part of a SamplePair's
        self._buffer = np.zeros((3, 2 * n_joints)) if buffer is None else buffer
        self._basis = np.zeros((3, 6))
        self._basis[0, 0] = 1.0
        self._basis[1, 1] = 1.0
        self._basis[2, 2] = 2.0
        self.positions = self._buffer[0, :n_joints]
        self.velocities = self._buffer[1, :n_joints]
        self.accelerations = self._buffer[2, :n_joints]
        self.effort = self._buffer[0, n_joints:]
        self.time_from_start_s = 0.0
        self.start_index = 0
        self.end_index = 0
        self.before_last_point = True
        self.segment_start_time_s = 0.0

    @property
    def n_joints(self) -> int:
        """Number of joints this result holds."""
        return self.positions.shape[0]

    def to_point(self) -> TrajectoryPoint:
        """Copy the sampled state into a standalone :class:`TrajectoryPoint` (not for the loop)."""
        return TrajectoryPoint(
            self.time_from_start_s,
            self.positions.copy(),
            self.velocities.copy(),
            self.accelerations.copy(),
            self.effort.copy(),
        )


class SamplePair:
    """Two samples whose rows lie in one buffer (`now` on top, `ahead` below), so that
    :meth:`Trajectory.sample_pair` evaluates both times of one segment in one product."""

    __slots__ = ('ahead', 'basis', 'buffer', 'now', 'placed')

    def __init__(self, n_joints: int) -> None:
        self.buffer = np.zeros((6, 2 * n_joints))
        # (trajectory, segment) whose indices and times both results hold, None if unknown:
        # only Trajectory.sample_pair writes the results
        self.placed: tuple[Any, int] | None = None
        self.basis = np.zeros((6, 6))  # both times' basis rows, written before each product
        self.now = SampleResult(n_joints, self.buffer[:3])
        self.ahead = SampleResult(n_joints, self.buffer[3:])


def trusted_point(
    time_from_start_s: float,
    positions: np.ndarray | None,
    velocities: np.ndarray | None,
    accelerations: np.ndarray | None,
    effort: np.ndarray | None = None,
) -> TrajectoryPoint:
    """A TrajectoryPoint from float arrays, skipping conversion (for loop-time builders)."""
    point = object.__new__(TrajectoryPoint)
    point.time_from_start_s = time_from_start_s
    point.positions = positions
    point.velocities = velocities
    point.accelerations = accelerations
    point.effort = effort
    return point
