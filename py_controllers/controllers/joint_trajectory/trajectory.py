"""Trajectory sampling for the joint trajectory controller: splines, integration, hold and stop.

Pure math (numpy only, no rclpy). Times are float seconds on the controller's time axis; the
ROS glue converts messages into :class:`TrajectoryPoint` lists in controller joint order.

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
from dataclasses import dataclass, replace
from enum import Enum

import numpy as np

__all__ = [
    'InterpolationMethod',
    'SampleResult',
    'Trajectory',
    'TrajectoryPoint',
    'decelerate_to_stop',
    'fill_cubic_spline_velocities',
    'hold_trajectory',
    'shortest_angular_distance_array',
    'success_trajectory',
]

_PI = math.pi
_TWO_PI = 2.0 * math.pi
# Upstream compares velocities against the float (not double) epsilon.
_FLOAT_EPS = float(np.finfo(np.float32).eps)


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


def _as_array(values: Sequence[float] | np.ndarray | None) -> np.ndarray | None:
    if values is None:
        return None
    return np.asarray(values, dtype=float)


def _copy_or_none(values: np.ndarray | None) -> np.ndarray | None:
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
            _copy_or_none(self.positions),
            _copy_or_none(self.velocities),
            _copy_or_none(self.accelerations),
            _copy_or_none(self.effort),
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

    def __init__(self, n_joints: int) -> None:
        # Row 0: positions | effort, row 1: velocities | effort slope, row 2: accelerations | 0.
        self._buffer = np.zeros((3, 2 * n_joints))
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


def _deduce(a: _Knot, b: _Knot, dt_s: float, n_joints: int) -> None:
    """Fill b's missing positions (and velocities) by trapezoidal integration from a."""
    if b.positions is not None:
        return
    if a.velocities is None:
        a.velocities = np.zeros(n_joints)
    if b.velocities is None:
        if a.accelerations is None:
            a.accelerations = np.zeros(n_joints)
        b_acc = b.accelerations if b.accelerations is not None else 0.0
        b.velocities = a.velocities + (a.accelerations + b_acc) * (0.5 * dt_s)
    b.positions = a.positions + (a.velocities + b.velocities) * (0.5 * dt_s)


def _segment_coefficients(
    a: _Knot, b: _Knot, duration_s: float, has_vel: bool, has_acc: bool
) -> np.ndarray:
    """Polynomial coefficients (rows: powers 0..5) for positions | effort of one segment."""
    n = a.positions.shape[0]
    coeffs = np.zeros((6, 2 * n))
    pa, pb = a.positions, b.positions
    coeffs[0, :n] = pa
    coeffs[0, n:] = a.effort
    big_t = duration_s
    if big_t != 0.0:
        coeffs[1, n:] = (b.effort - a.effort) / big_t
    if has_vel and has_acc:
        va, vb, aa, ab = a.velocities, b.velocities, a.accelerations, b.accelerations
        coeffs[1, :n] = va
        coeffs[2, :n] = 0.5 * aa
        if big_t != 0.0:
            t2 = big_t * big_t
            dp = pb - pa
            coeffs[3, :n] = (20.0 * dp - (12.0 * va + 8.0 * vb) * big_t - (3.0 * aa - ab) * t2) / (
                2.0 * t2 * big_t
            )
            coeffs[4, :n] = (
                -30.0 * dp + (16.0 * va + 14.0 * vb) * big_t + (3.0 * aa - 2.0 * ab) * t2
            ) / (2.0 * t2 * t2)
            coeffs[5, :n] = (12.0 * dp - 6.0 * (va + vb) * big_t - (aa - ab) * t2) / (
                2.0 * t2 * t2 * big_t
            )
    elif has_vel:
        va, vb = a.velocities, b.velocities
        coeffs[1, :n] = va
        if big_t != 0.0:
            dp = pb - pa
            coeffs[2, :n] = (3.0 * dp - (2.0 * va + vb) * big_t) / (big_t * big_t)
            coeffs[3, :n] = (-2.0 * dp + (va + vb) * big_t) / (big_t * big_t * big_t)
    elif big_t != 0.0:
        coeffs[1, :n] = (pb - pa) / big_t
    return coeffs


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
    def _trusted(
        cls, points: tuple[TrajectoryPoint, ...], n_joints: int, start_time_s: float | None
    ) -> Trajectory:
        """Build without checks or copies from points this module made (builders in the loop)."""
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
        self._segment_flags: list[tuple[bool, bool]] = []
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
        if state.positions is None or state.positions.shape != (self._n_joints,):
            raise ValueError(f'the point before needs {self._n_joints} positions')
        before = state.copy()
        first = self._points[0]
        if before.velocities is None and first.velocities is not None:
            before.velocities = np.zeros(self._n_joints)
        if before.accelerations is None and first.accelerations is not None:
            before.accelerations = np.zeros(self._n_joints)
        if continuous_joints is not None and first.positions is not None:
            mask = np.asarray(continuous_joints, dtype=bool)
            if mask.any():
                before.positions[mask] = _wrap_toward(before.positions[mask], first.positions[mask])
        self._before = before
        self._before_time_s = float(time_s)
        self._start_time_s = self._initial_start_time_s
        self._prepared = False

    def _prepare(self, first_sample_time_s: float) -> None:
        if self._before is None or self._before_time_s is None:
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
        self._knots = [_Knot(self._before, zeros)] + [_Knot(p, zeros) for p in self._points]
        self._segment_flags = []
        # Integrate segment by segment in playing order: a segment's spline degree depends on
        # the fields its endpoints have right after its own integration step (as upstream).
        for k in range(len(self._points)):
            a, b = self._knots[k], self._knots[k + 1]
            dt_s = max(self._knot_times_s[k + 1] - self._knot_times_s[k], 0.0)
            _deduce(a, b, dt_s, n)
            has_vel = a.velocities is not None and b.velocities is not None
            has_acc = has_vel and a.accelerations is not None and b.accelerations is not None
            self._segment_flags.append((has_vel, has_acc))
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
        if not self._prepared:
            if not advance:
                return None
            self._prepare(t_s)
        if t_s < self._before_time_s:
            return None
        result = out if out is not None else SampleResult(self._n_joints)
        knot_times = self._knot_times_s
        n_points = len(self._points)
        no_interpolation = interpolation == InterpolationMethod.NONE

        if t_s < knot_times[1]:
            # Between the point before and the first waypoint.
            if no_interpolation:
                self._write_knot(0, result)
            else:
                self._write_segment(0, t_s, result)
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
                self._write_segment(i + 1, t_s, result)
            result.start_index = i
            result.end_index = i + 1
            result.time_from_start_s = self._points[i + 1].time_from_start_s
            if advance:
                self._hint = i
        result.before_last_point = result.end_index < n_points
        result.segment_start_time_s = knot_times[result.start_index + 1]
        return result

    def _write_knot(self, k: int, result: SampleResult) -> None:
        knot = self._knots[k]
        np.copyto(result.positions, knot.positions)
        for field, target in (
            (knot.velocities, result.velocities),
            (knot.accelerations, result.accelerations),
        ):
            if field is None:
                target.fill(0.0)
            else:
                np.copyto(target, field)
        np.copyto(result.effort, knot.effort)

    def _write_segment(self, k: int, t_s: float, result: SampleResult) -> None:
        """Evaluate segment k (knot k -> knot k + 1) at t_s into result."""
        t0 = self._knot_times_s[k]
        duration_s = self._knot_times_s[k + 1] - t0
        tau = t_s - t0
        if tau < 0.0 or tau > duration_s:
            self._write_clamped_linear(k, min(max(tau, 0.0), duration_s), duration_s, result)
            return
        coeffs = self._coefficients[k]
        if coeffs is None:
            has_vel, has_acc = self._segment_flags[k]
            coeffs = _segment_coefficients(
                self._knots[k], self._knots[k + 1], duration_s, has_vel, has_acc
            )
            self._coefficients[k] = coeffs
        tau2 = tau * tau
        tau3 = tau2 * tau
        basis = result._basis
        # Rows: value, first and second derivative of [1, tau, ..., tau^5].
        basis[0, 1] = tau
        basis[0, 2] = tau2
        basis[0, 3] = tau3
        basis[0, 4] = tau3 * tau
        basis[0, 5] = tau3 * tau2
        basis[1, 2] = 2.0 * tau
        basis[1, 3] = 3.0 * tau2
        basis[1, 4] = 4.0 * tau3
        basis[1, 5] = 5.0 * tau3 * tau
        basis[2, 3] = 6.0 * tau
        basis[2, 4] = 12.0 * tau2
        basis[2, 5] = 20.0 * tau3
        np.matmul(basis, coeffs, out=result._buffer)

    def _write_clamped_linear(
        self, k: int, tau: float, duration_s: float, result: SampleResult
    ) -> None:
        # Outside its segment upstream drops the derivative terms and interpolates linearly.
        a, b = self._knots[k], self._knots[k + 1]
        if duration_s != 0.0:
            np.subtract(b.positions, a.positions, out=result.velocities)
            result.velocities /= duration_s
            np.subtract(b.effort, a.effort, out=result.effort)
            result.effort *= tau / duration_s
            result.effort += a.effort
        else:
            result.velocities.fill(0.0)
            np.copyto(result.effort, a.effort)
        np.multiply(result.velocities, tau, out=result.positions)
        result.positions += a.positions
        result.accelerations.fill(0.0)

    def final_point(self) -> TrajectoryPoint:
        """The last waypoint with integrated fields filled in (as given before the first sample)."""
        if not self._prepared:
            return self._points[-1].copy()
        knot = self._knots[-1]
        return TrajectoryPoint(
            self._points[-1].time_from_start_s,
            _copy_or_none(knot.positions),
            _copy_or_none(knot.velocities),
            _copy_or_none(knot.accelerations),
            _copy_or_none(self._points[-1].effort),
        )


def _trusted_point(
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


def _wrap_toward(current: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Shift ``current`` by whole turns to lie within half a turn of ``target``."""
    dist = shortest_angular_distance_array(current, target)
    # An exact half turn goes the way the raw difference points (as upstream).
    half_turn = np.abs(np.abs(dist) - _PI) < 1e-9
    if half_turn.any():
        toward = np.where(target > current, np.abs(dist), -np.abs(dist))
        dist = np.where(half_turn, toward, dist)
    return target - dist


# -- builders ---------------------------------------------------------------------------------


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
    points = tuple(_trusted_point(tfs[k], pos[k], vel[k], acc[k]) for k in range(n_points))
    return Trajectory._trusted(points, p0.shape[0], None)


def fill_cubic_spline_velocities(
    times_s: Sequence[float] | np.ndarray, positions: np.ndarray
) -> np.ndarray | None:
    """Knot velocities of the C2 cubic spline through ``positions`` (points x joints).

    Rest boundary conditions (zero velocity at both ends), as upstream ``positions_upsampling``.
    Returns None for fewer than two points or times that do not strictly increase.
    """
    t = np.asarray(times_s, dtype=float)
    p = np.asarray(positions, dtype=float)
    n = t.shape[0]
    if n < 2 or p.ndim != 2 or p.shape[0] != n or p.shape[1] == 0:
        return None
    h = np.diff(t)
    if not np.all(h > 0.0):
        return None
    velocities = np.zeros_like(p)
    if n == 2:
        return velocities
    # Interior rows: v[i-1]/h[i-1] + 2 (1/h[i-1] + 1/h[i]) v[i] + v[i+1]/h[i] = rhs[i];
    # the boundary velocities are zero, so solve for v[1..n-2] (Thomas algorithm, all joints).
    inv_h = 1.0 / h
    slope = np.diff(p, axis=0) * (inv_h * inv_h)[:, None]
    lower = inv_h[:-1]
    diag = 2.0 * (inv_h[:-1] + inv_h[1:])
    upper = inv_h[1:]
    rhs = 3.0 * (slope[1:] + slope[:-1])
    m = n - 2
    c_prime = np.zeros(m)
    d_prime = np.zeros((m, p.shape[1]))
    c_prime[0] = upper[0] / diag[0]
    d_prime[0] = rhs[0] / diag[0]
    for i in range(1, m):
        pivot = diag[i] - lower[i] * c_prime[i - 1]
        c_prime[i] = upper[i] / pivot
        d_prime[i] = (rhs[i] - lower[i] * d_prime[i - 1]) / pivot
    interior = d_prime
    for i in range(m - 2, -1, -1):
        interior[i] -= c_prime[i] * interior[i + 1]
    velocities[1:-1] = interior
    return velocities
