"""Angle arithmetic for revolute and continuous joints, as in the ROS ``angles`` package.

Semantics follow ros/angles (``angles/angles.h``, ros2 branch); the code is our own.

Exact half turns: :func:`normalize_angle` maps into the half-open interval (-pi, pi], so
both ``pi`` and ``-pi`` come back as ``+pi``. Consequently
``shortest_angular_distance(0, pi)`` and ``shortest_angular_distance(pi, 0)`` are both
``+pi`` (upstream behaves the same; the distance is not antisymmetric at a half turn).
"""

from __future__ import annotations

import math

__all__ = [
    'normalize_angle',
    'normalize_angle_positive',
    'shortest_angular_distance',
    'shortest_angular_distance_with_large_limits',
    'shortest_angular_distance_with_limits',
    'two_pi_complement',
]

_PI = math.pi
_TWO_PI = 2.0 * math.pi


def normalize_angle_positive(angle: float) -> float:
    """Wrap an angle in radians into [0, 2*pi)."""
    wrapped = math.fmod(angle, _TWO_PI)
    return wrapped + _TWO_PI if wrapped < 0.0 else wrapped


def normalize_angle(angle: float) -> float:
    """Wrap an angle in radians into (-pi, pi]; exactly +-pi both give +pi."""
    shifted = math.fmod(angle + _PI, _TWO_PI)
    # shifted lies in (-2pi, 2pi); a value <= 0 (including -0.0) belongs to the upper half.
    if shifted > 0.0:
        return shifted - _PI
    return shifted + _PI


def shortest_angular_distance(from_angle: float, to_angle: float) -> float:
    """Signed shortest rotation in (-pi, pi] taking ``from_angle`` onto ``to_angle``."""
    return normalize_angle(to_angle - from_angle)


def two_pi_complement(angle: float) -> float:
    """The same rotation taken the other way round the circle, in [-2*pi, 2*pi].

    E.g. -pi/4 gives 7*pi/4 and pi/4 gives -7*pi/4; 0 gives 2*pi.
    """
    if angle > _TWO_PI or angle < -_TWO_PI:
        angle = math.fmod(angle, _TWO_PI)
    if angle < 0.0:
        return _TWO_PI + angle
    if angle > 0.0:
        return angle - _TWO_PI
    return _TWO_PI


def _reachable_deltas(
    from_angle: float, left_limit: float, right_limit: float
) -> tuple[bool, float, float]:
    """Smallest and largest rotation from ``from_angle`` that stays inside the limits.

    Returns (from_inside, min_delta, max_delta). When ``from_angle`` is outside the arc
    [left_limit, right_limit] the flag is False and the deltas are still meaningful
    (they are used to decide which way round is shorter).
    """
    to_left = shortest_angular_distance(from_angle, left_limit)
    to_right = shortest_angular_distance(from_angle, right_limit)
    to_left_other = two_pi_complement(to_left)
    to_right_other = two_pi_complement(to_right)

    # Sitting exactly on a stop: one side is blocked, the other can go the long way.
    if to_left == 0.0:
        return True, to_left, max(to_right, to_right_other)
    if to_right == 0.0:
        return True, min(to_left, to_left_other), to_right

    # The most negative way to the left stop and the most positive way to the right stop.
    if to_left_other < to_left:
        lowest, lowest_other = to_left_other, to_left
    else:
        lowest, lowest_other = to_left, to_left_other
    if to_right_other > to_right:
        highest, highest_other = to_right_other, to_right
    else:
        highest, highest_other = to_right, to_right_other

    if lowest <= highest_other or highest >= lowest_other:
        # The arcs overlap: from_angle is outside, unless the limits span the full circle.
        full_circle = left_limit == -_PI and right_limit == _PI
        return full_circle, highest_other, lowest_other
    return True, lowest, highest


def shortest_angular_distance_with_limits(
    from_angle: float, to_angle: float, left_limit: float, right_limit: float
) -> tuple[bool, float]:
    """Shortest rotation from ``from_angle`` to ``to_angle`` that never leaves the limits.

    The valid arc runs counter-clockwise from ``left_limit`` to ``right_limit`` (both in
    [-pi, pi]); e.g. (-0.25, 0.25) is a 0.5 rad arc around 0, while (0.25, -0.25) is the
    2*pi - 0.5 rad arc around pi. Returns (ok, distance): ok is False when ``from_angle``
    or ``to_angle`` lies outside the arc, and distance is then the best-effort rotation
    (the direction that gets back inside the arc soonest).
    """
    from_inside, min_delta, max_delta = _reachable_deltas(from_angle, left_limit, right_limit)
    delta = shortest_angular_distance(from_angle, to_angle)
    delta_other = two_pi_complement(delta)

    if from_inside:
        if min_delta <= delta <= max_delta:
            return True, delta
        if min_delta <= delta_other <= max_delta:
            return True, delta_other
        # The target is outside the arc: head for it through the stop nearest to it.
        _, to_min_delta, to_max_delta = _reachable_deltas(to_angle, left_limit, right_limit)
        dist_min, dist_max = abs(to_min_delta), abs(to_max_delta)
        if dist_min < dist_max:
            return False, max(delta, delta_other)
        if dist_min > dist_max:
            return False, min(delta, delta_other)
        return False, delta if abs(delta) < abs(delta_other) else delta_other

    # The start is outside the arc: choose by the start's distances to the stops.
    dist_min, dist_max = abs(min_delta), abs(max_delta)
    if dist_min < dist_max:
        return False, min(delta, delta_other)
    if dist_min > dist_max:
        return False, max(delta, delta_other)
    return False, delta if abs(delta) < abs(delta_other) else delta_other


def shortest_angular_distance_with_large_limits(
    from_angle: float, to_angle: float, left_limit: float, right_limit: float
) -> tuple[bool, float]:
    """Like :func:`shortest_angular_distance_with_limits` for limits beyond [-pi, pi].

    Limits are plain positions (``left_limit < right_limit`` is required, e.g. -2pi..2pi);
    ``from_angle`` must lie inside them, ``to_angle`` may be any equivalent angle. Returns
    (ok, distance) where ``from_angle + distance`` is inside the limits and equals
    ``to_angle`` modulo 2*pi; ok is False when that is impossible, the limits are reversed
    or ``from_angle`` is outside them (distance is then the plain shortest distance).
    """
    short = shortest_angular_distance(from_angle, to_angle)
    long = two_pi_complement(short)
    if abs(short) > abs(long):
        short, long = long, short

    if left_limit > right_limit:
        return False, short

    from_inside = left_limit <= from_angle <= right_limit
    for candidate in (short, long):
        if left_limit <= from_angle + candidate <= right_limit:
            return from_inside, candidate
    return False, short
