"""Trajectory sampling for the joint trajectory controller: splines and integration.

Pure math (numpy only, no rclpy). Times are float seconds on the controller's time axis; the
ROS glue converts messages into :class:`TrajectoryPoint` lists in controller joint order. The
point types are in ``points.py``, the trajectories the controller makes itself (hold, brake to
a stop) in ``builders.py``, the spline fill of ``positions_upsampling`` in ``spline_fill.py``, one
segment's polynomial in ``segment_polynomial.py``.

Behaviour follows upstream ``joint_trajectory_controller`` (``trajectory.cpp``, rolling):

* A trajectory is played from a "point before" (time and state set on the first sample) through
  its waypoints; each segment is linear, cubic Hermite or quintic depending on which of
  positions / velocities / accelerations both of its endpoints carry. Effort is linear.
* Waypoints without positions (and velocities) are filled by trapezoidal integration when the
  trajectory is first sampled, in the order upstream would fill them while playing it, so that
  each segment uses the same spline degree as upstream.
* Past the last point the last point is held, missing fields reported as zeros.

Deliberate deviations (upstream has undefined or surprising behaviour there):

* Endpoints with accelerations but without velocities fall back to linear interpolation
  (upstream outputs all-zero positions for such a segment).
* A velocity-only first point is integrated from the point before even if the first sample is
  already past it (upstream reads an empty position vector).
* ``interpolation_method: none`` reports the waypoint's integrated positions / velocities where
  the message left them out, zeros otherwise (upstream returns empty fields).
* Segment search is correct for any sample time; upstream only searches forward from the last
  segment and reports "past the end" for an earlier time.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

import numpy as np

from py_controllers.controllers.joint_trajectory.points import (
    InterpolationMethod,
    SamplePair,
    SampleResult,
    TrajectoryPoint,
    copy_or_none,
    shortest_angular_distance_array,
    wrap_toward,
)
from py_controllers.controllers.joint_trajectory.segment_polynomial import (
    BASIS_BYTES,
    Pair,
    segment_coefficients,
    write_basis,
)

_NO_INTERPOLATION = InterpolationMethod.NONE  # a module global: an enum's member is slow to look up

# The point types are re-exported: ``from ...trajectory import Trajectory, TrajectoryPoint``.
__all__ = [
    'InterpolationMethod',
    'SamplePair',
    'SampleResult',
    'Trajectory',
    'TrajectoryPoint',
    'shortest_angular_distance_array',
]


class _Knot:
    """A waypoint whose missing fields fill in as integration proceeds.

    Shares the waypoint's arrays: integration only ever binds new arrays, never writes in place.
    """

    __slots__ = ('accelerations', 'effort', 'positions', 'velocities')

    def __init__(self, point: TrajectoryPoint, zeros: np.ndarray) -> None:
        self.positions = point.positions
        self.velocities = point.velocities
        self.accelerations = point.accelerations
        # Missing effort counts as zero effort (upstream zero-fills it before interpolating).
        self.effort = point.effort if point.effort is not None else zeros


def _deduce(a: _Knot, a_positions: np.ndarray, b: _Knot, dt_s: float, n_joints: int) -> np.ndarray:
    """b's positions: given, or (with missing velocities) filled by trapezoidal integration
    from a, whose positions are `a_positions`."""
    if b.positions is not None:
        return b.positions
    if a.velocities is None:
        a.velocities = np.zeros(n_joints)
    if b.velocities is None:
        if a.accelerations is None:
            a.accelerations = np.zeros(n_joints)
        b_acc = b.accelerations if b.accelerations is not None else 0.0
        b.velocities = a.velocities + (a.accelerations + b_acc) * (0.5 * dt_s)
    b.positions = a_positions + (a.velocities + b.velocities) * (0.5 * dt_s)
    return b.positions


def _both(first: np.ndarray | None, second: np.ndarray | None) -> Pair | None:
    return None if first is None or second is None else (first, second)


class Trajectory:
    """A trajectory on the controller's time axis, sampled by time.

    ``points`` are in controller joint order with strictly increasing ``time_from_start_s``;
    ``start_time_s`` None means "start at the first sample" (a message with a zero stamp).
    ``copy=False`` takes ownership of the points' arrays (the caller must not change them).
    Raises ValueError for no points, a point without positions/velocities/accelerations,
    fields of different lengths or times that do not strictly increase.
    Call :meth:`set_point_before` before the first sample (upstream does it on the first update
    of a new trajectory); the first sample with ``advance=True`` then fixes the start time and
    integrates missing fields once, so later samples are cheap.
    """

    def __init__(
        self,
        points: Sequence[TrajectoryPoint],
        start_time_s: float | None = None,
        *,
        copy: bool = True,
    ) -> None:
        if len(points) == 0:
            raise ValueError('a trajectory needs at least one point')
        n_joints = -1
        previous_time_s = -math.inf
        copies = []
        for index, point in enumerate(points):
            fields = (point.positions, point.velocities, point.accelerations)
            if all(field is None for field in fields):
                raise ValueError(f'point {index} has no positions, velocities or accelerations')
            for field in (*fields, point.effort):
                if field is None:
                    continue
                if n_joints < 0:
                    n_joints = field.shape[0]
                elif field.shape != (n_joints,):
                    raise ValueError(f'point {index} has fields of different lengths')
            if not point.time_from_start_s > previous_time_s:
                raise ValueError(f'time_from_start of point {index} is not strictly increasing')
            previous_time_s = point.time_from_start_s
            copies.append(point.copy() if copy else point)
        self._init_state(tuple(copies), n_joints, start_time_s)

    @classmethod
    def from_trusted_points(
        cls, points: tuple[TrajectoryPoint, ...], n_joints: int, start_time_s: float | None
    ) -> Trajectory:
        """Build without checks or copies from points a builder made (``builders.py``, loop)."""
        trajectory = cls.__new__(cls)
        trajectory._init_state(points, n_joints, start_time_s)
        return trajectory

    def _init_state(
        self, points: tuple[TrajectoryPoint, ...], n_joints: int, start_time_s: float | None
    ) -> None:
        self._points: tuple[TrajectoryPoint, ...] = points
        self._n_joints = n_joints
        self._initial_start_time_s = start_time_s
        self._start_time_s = start_time_s
        self._before_time_s: float | None = None
        self._before: TrajectoryPoint | None = None
        self._prepared = False
        self._hint = 0
        # Filled by _prepare(); index 0 is the point before, index k + 1 is waypoint k.
        self._knot_times_s: list[float] = []
        self._knots: list[_Knot] = []
        self._positions: list[np.ndarray] = []  # of each knot, integrated where missing
        # (velocities, accelerations) of each segment's two ends, None when one lacks them
        self._derivatives: list[tuple[Pair | None, Pair | None]] = []
        self._coefficients: list[np.ndarray | None] = []

    # -- properties -----------------------------------------------------------------------

    @property
    def points(self) -> tuple[TrajectoryPoint, ...]:
        """The waypoints as given (copies; not modified by integration)."""
        return self._points

    @property
    def n_points(self) -> int:
        """Number of waypoints."""
        return len(self._points)

    @property
    def n_joints(self) -> int:
        """Number of joints."""
        return self._n_joints

    @property
    def is_nontrivial(self) -> bool:
        """More than one waypoint (upstream ``has_nontrivial_msg``)."""
        return len(self._points) > 1

    @property
    def start_time_s(self) -> float | None:
        """Time of ``time_from_start == 0``; None until resolved by the first sample."""
        return self._start_time_s

    @property
    def end_time_s(self) -> float | None:
        """Time the last waypoint is due; None while the start time is unresolved."""
        if self._start_time_s is None:
            return None
        return self._start_time_s + self._points[-1].time_from_start_s

    @property
    def time_before_s(self) -> float | None:
        """Time of the point before the trajectory, None until set."""
        return self._before_time_s

    @property
    def point_before(self) -> TrajectoryPoint | None:
        """The point before the trajectory (after zero-fill and wrap), None until set."""
        return self._before

    @property
    def sampled_already(self) -> bool:
        """True once the first advancing sample has fixed the start time."""
        return self._prepared

    @property
    def last_sample_index(self) -> int:
        """Start waypoint index of the last advancing sample (the search hint)."""
        return self._hint

    # -- setup ----------------------------------------------------------------------------

    def set_point_before(
        self,
        time_s: float,
        state: TrajectoryPoint,
        continuous_joints: np.ndarray | Sequence[bool] | None = None,
    ) -> None:
        """Set the state the trajectory starts from (measured or last commanded) and its time.

        Velocities/accelerations are zero-filled when the first waypoint has them and the state
        does not; positions of ``continuous_joints`` are moved by whole turns so the first
        segment takes the short way round.
        """
        before = state.copy()
        if before.positions is None or before.positions.shape != (self._n_joints,):
            raise ValueError(f'the point before needs {self._n_joints} positions')
        first = self._points[0]
        if before.velocities is None and first.velocities is not None:
            before.velocities = np.zeros(self._n_joints)
        if before.accelerations is None and first.accelerations is not None:
            before.accelerations = np.zeros(self._n_joints)
        if continuous_joints is not None and first.positions is not None:
            mask = np.asarray(continuous_joints, dtype=bool)
            if mask.any():
                before.positions[mask] = wrap_toward(before.positions[mask], first.positions[mask])
        self._before = before
        self._before_time_s = float(time_s)
        self._start_time_s = self._initial_start_time_s
        self._prepared = False

    def _prepare(self, first_sample_time_s: float) -> None:
        before = self._before
        if before is None or before.positions is None or self._before_time_s is None:
            raise RuntimeError('set_point_before() must be called before the first sample')
        if self._start_time_s is None:
            self._start_time_s = first_sample_time_s
        n = self._n_joints
        start = self._start_time_s
        self._knot_times_s = [self._before_time_s] + [
            start + p.time_from_start_s for p in self._points
        ]
        zeros = np.zeros(n)
        zeros.flags.writeable = False
        self._knots = [_Knot(before, zeros)] + [_Knot(p, zeros) for p in self._points]
        self._positions = [before.positions]
        self._derivatives = []
        # Integrate segment by segment in playing order: a segment's spline degree depends on
        # the fields its endpoints have right after its own integration step (as upstream).
        for k in range(len(self._points)):
            a, b = self._knots[k], self._knots[k + 1]
            dt_s = max(self._knot_times_s[k + 1] - self._knot_times_s[k], 0.0)
            self._positions.append(_deduce(a, self._positions[k], b, dt_s, n))
            self._derivatives.append(
                (_both(a.velocities, b.velocities), _both(a.accelerations, b.accelerations))
            )
        self._coefficients = [None] * len(self._points)
        self._hint = 0
        self._prepared = True

    # -- sampling -------------------------------------------------------------------------

    def sample(
        self,
        t_s: float,
        interpolation: InterpolationMethod | str = InterpolationMethod.SPLINES,
        *,
        advance: bool = True,
        out: SampleResult | None = None,
    ) -> SampleResult | None:
        """Sample at time ``t_s``; None before the point-before time ("not yet").

        ``advance=False`` leaves the search hint alone and, before the first advancing sample,
        returns None instead of fixing the start time: use it for look-ahead and queries.
        ``interpolation`` is ``'splines'`` or ``'none'`` (exact strings or the enum).
        Raises RuntimeError if the first advancing sample comes before :meth:`set_point_before`.
        """
        result = out if out is not None else SampleResult(self._n_joints)
        segment = self._place(t_s, interpolation, advance, result)
        if segment is None:
            return None
        if segment >= 0:
            self._write_segment(segment, t_s, result)
        return result

    def sample_pair(
        self,
        t_s: float,
        ahead_s: float,
        interpolation: InterpolationMethod | str,
        pair: SamplePair,
    ) -> bool:
        """``sample(t_s, out=pair.now)`` and ``sample(ahead_s, advance=False, out=pair.ahead)``
        (the loop's sample and its look-ahead); False when either is None. When both times
        fall in one spline segment (every cycle but a segment's last), one product evaluates
        both; while they stay in the segment the pair was last placed in by this trajectory,
        its indices and times stand as they are (they depend on the segment alone)."""
        placed = pair.placed
        if placed is not None and placed[0] is self and interpolation != _NO_INTERPOLATION:
            k = placed[1]
            start, end = self._knot_times_s[k], self._knot_times_s[k + 1]
            if start <= t_s < end and start <= ahead_s < end:
                self._write_pair(k, t_s - start, ahead_s - start, pair)
                return True
        pair.placed = None
        now, ahead = pair.now, pair.ahead
        segment = self._place(t_s, interpolation, True, now)
        if segment is None:
            return False
        segment_ahead = self._place(ahead_s, interpolation, False, ahead)
        if segment_ahead is None:
            return False
        knot_times = self._knot_times_s
        if segment >= 0 and segment_ahead == segment:
            t0 = knot_times[segment]
            duration_s = knot_times[segment + 1] - t0
            tau, tau_ahead = t_s - t0, ahead_s - t0
            if 0.0 <= tau <= duration_s and 0.0 <= tau_ahead <= duration_s:
                self._write_pair(segment, tau, tau_ahead, pair)
                pair.placed = (self, segment)
                return True
        if segment >= 0:
            self._write_segment(segment, t_s, now)
        if segment_ahead >= 0:
            self._write_segment(segment_ahead, ahead_s, ahead)
        return True

    def _write_pair(self, k: int, tau: float, tau_ahead: float, pair: SamplePair) -> None:
        """Evaluate segment k at `tau` and `tau_ahead` into it (both within it) in one go."""
        coeffs = self._segment_coefficients(k, self._knot_times_s[k + 1] - self._knot_times_s[k])
        basis: Any = pair.basis  # a buffer to struct; numpy's stubs do not say so
        write_basis(basis, 0, tau)
        write_basis(basis, BASIS_BYTES, tau_ahead)
        np.dot(basis, coeffs, out=pair.buffer)

    def _place(
        self,
        t_s: float,
        interpolation: InterpolationMethod | str,
        advance: bool,
        result: SampleResult,
    ) -> int | None:
        """Where ``t_s`` lies: fills ``result``'s indices and times (and its values, at a
        waypoint); the segment whose polynomial gives its values (-1: written already),
        None before the point before."""
        if not self._prepared:
            if not advance:
                return None
            self._prepare(t_s)
        knot_times = self._knot_times_s
        if t_s < knot_times[0]:  # before the point before
            return None
        n_points = len(self._points)
        no_interpolation = interpolation == _NO_INTERPOLATION
        segment = -1
        if t_s < knot_times[1]:
            # Between the point before and the first waypoint.
            if no_interpolation:
                self._write_knot(0, result)
            else:
                segment = 0
            result.start_index = 0
            result.end_index = 0
            result.time_from_start_s = 0.0
        elif t_s >= knot_times[n_points]:
            self._write_knot(n_points, result)
            result.start_index = n_points - 1
            result.end_index = n_points
            result.time_from_start_s = self._points[-1].time_from_start_s
            if advance:
                self._hint = n_points - 1
        else:
            # Waypoint i with knot_times[i + 1] <= t_s < knot_times[i + 2], 0 <= i < n - 1.
            i = self._hint
            if i >= n_points - 1 or not (knot_times[i + 1] <= t_s < knot_times[i + 2]):
                i = bisect_right(knot_times, t_s, 1) - 2
            if no_interpolation:
                self._write_knot(i + 2, result)
            else:
                segment = i + 1
            result.start_index = i
            result.end_index = i + 1
            result.time_from_start_s = self._points[i + 1].time_from_start_s
            if advance:
                self._hint = i
        result.before_last_point = result.end_index < n_points
        result.segment_start_time_s = knot_times[result.start_index + 1]
        return segment

    def _write_knot(self, k: int, result: SampleResult) -> None:
        knot = self._knots[k]
        np.copyto(result.positions, self._positions[k])
        for field, target in (
            (knot.velocities, result.velocities),
            (knot.accelerations, result.accelerations),
        ):
            if field is None:
                target.fill(0.0)
            else:
                np.copyto(target, field)
        np.copyto(result.effort, knot.effort)

    def _segment_coefficients(self, k: int, duration_s: float) -> np.ndarray:
        """Segment k's polynomial coefficients, computed on its first sample."""
        coeffs = self._coefficients[k]
        if coeffs is None:
            a, b = self._knots[k], self._knots[k + 1]
            vel, acc = self._derivatives[k]
            positions = (self._positions[k], self._positions[k + 1])
            coeffs = segment_coefficients(positions, (a.effort, b.effort), duration_s, vel, acc)
            self._coefficients[k] = coeffs
        return coeffs

    def _write_segment(self, k: int, t_s: float, result: SampleResult) -> None:
        """Evaluate segment k (knot k -> knot k + 1) at t_s into result."""
        t0 = self._knot_times_s[k]
        duration_s = self._knot_times_s[k + 1] - t0
        tau = t_s - t0
        if tau < 0.0 or tau > duration_s:
            self._write_clamped_linear(k, min(max(tau, 0.0), duration_s), duration_s, result)
            return
        coeffs = self._segment_coefficients(k, duration_s)
        basis: Any = result._basis  # a buffer to struct; numpy's stubs do not say so
        write_basis(basis, 0, tau)
        np.dot(basis, coeffs, out=result._buffer)  # np.matmul: twice the cost at this size

    def _write_clamped_linear(
        self, k: int, tau: float, duration_s: float, result: SampleResult
    ) -> None:
        # Outside its segment upstream drops the derivative terms and interpolates linearly.
        a, b = self._knots[k], self._knots[k + 1]
        if duration_s != 0.0:
            np.subtract(self._positions[k + 1], self._positions[k], out=result.velocities)
            result.velocities /= duration_s
            np.subtract(b.effort, a.effort, out=result.effort)
            result.effort *= tau / duration_s
            result.effort += a.effort
        else:
            result.velocities.fill(0.0)
            np.copyto(result.effort, a.effort)
        np.multiply(result.velocities, tau, out=result.positions)
        result.positions += self._positions[k]
        result.accelerations.fill(0.0)

    def final_point(self) -> TrajectoryPoint:
        """The last waypoint with integrated fields filled in (as given before the first sample)."""
        if not self._prepared:
            return self._points[-1].copy()
        knot = self._knots[-1]
        return TrajectoryPoint(
            self._points[-1].time_from_start_s,
            copy_or_none(knot.positions),
            copy_or_none(knot.velocities),
            copy_or_none(knot.accelerations),
            copy_or_none(self._points[-1].effort),
        )
