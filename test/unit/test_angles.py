"""Worked examples for py_controllers.control_toolbox.angles (semantics of ros/angles)."""

import math

import pytest

from py_controllers.control_toolbox.angles import (
    normalize_angle,
    normalize_angle_positive,
    shortest_angular_distance,
    shortest_angular_distance_with_large_limits,
    shortest_angular_distance_with_limits,
    two_pi_complement,
)

PI = math.pi
TOL = 1e-12


@pytest.mark.parametrize(
    ('angle', 'expected'),
    [
        (0.0, 0.0),
        (PI / 2, PI / 2),
        (-PI / 2, -PI / 2),
        (3 * PI / 2, -PI / 2),  # 3pi/2 - 2pi
        (-3 * PI / 2, PI / 2),  # -3pi/2 + 2pi
        (5 * PI / 2, PI / 2),
        (9 * PI / 2, PI / 2),
        (2 * PI, 0.0),
        (-4 * PI, 0.0),
        (7.0, 7.0 - 2 * PI),  # 0.7168...
        (-7.0, -7.0 + 2 * PI),
    ],
)
def test_normalize_angle(angle, expected):
    assert normalize_angle(angle) == pytest.approx(expected, abs=TOL)


def test_normalize_angle_exact_half_turn_is_plus_pi():
    # The range is (-pi, pi]: both ends of the half turn map to +pi.
    assert normalize_angle(PI) == PI
    assert normalize_angle(-PI) == PI
    assert normalize_angle(3 * PI) == pytest.approx(PI, abs=TOL)
    assert normalize_angle(-3 * PI) == pytest.approx(PI, abs=TOL)


@pytest.mark.parametrize(
    ('angle', 'expected'),
    [
        (0.0, 0.0),
        (PI, PI),
        (-PI, PI),
        (-PI / 2, 3 * PI / 2),
        (2 * PI, 0.0),
        (-2 * PI, 0.0),
        (5 * PI / 2, PI / 2),
        (-3 * PI / 2, PI / 2),
    ],
)
def test_normalize_angle_positive(angle, expected):
    assert normalize_angle_positive(angle) == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize(
    ('from_angle', 'to_angle', 'expected'),
    [
        (0.0, PI / 2, PI / 2),
        (PI / 2, 0.0, -PI / 2),
        (PI, PI / 2, -PI / 2),
        (PI, -PI / 2, PI / 2),  # across the +-pi seam: -3pi/2 wraps to +pi/2
        (5 * PI, PI / 2, -PI / 2),  # from is several turns away
        (-3 * PI / 4, 3 * PI / 4, -PI / 2),  # short way goes through -pi
        (3 * PI / 4, -3 * PI / 4, PI / 2),
        (3.0, -3.0, 2 * PI - 6.0),  # 0.28319 rad the short way round
        (-3.0, 3.0, 6.0 - 2 * PI),
    ],
)
def test_shortest_angular_distance(from_angle, to_angle, expected):
    assert shortest_angular_distance(from_angle, to_angle) == pytest.approx(expected, abs=TOL)


def test_shortest_angular_distance_half_turn_is_plus_pi_both_ways():
    assert shortest_angular_distance(0.0, PI) == PI
    assert shortest_angular_distance(PI, 0.0) == PI
    assert shortest_angular_distance(0.0, -PI) == PI


@pytest.mark.parametrize(
    ('angle', 'expected'),
    [
        (-PI / 4, 7 * PI / 4),
        (PI / 4, -7 * PI / 4),
        (0.0, 2 * PI),
        (2 * PI, 0.0),
        (-2 * PI, 0.0),
        (5 * PI / 2, -3 * PI / 2),  # beyond 2pi: reduced first (pi/2), then complemented
    ],
)
def test_two_pi_complement(angle, expected):
    assert two_pi_complement(angle) == pytest.approx(expected, abs=TOL)


# Limits (left, right) describe the arc going counter-clockwise from left to right:
# (-0.25, 0.25) is the 0.5 rad arc around 0, (0.25, -0.25) the 2pi - 0.5 arc around pi.
@pytest.mark.parametrize(
    ('from_angle', 'to_angle', 'left', 'right', 'ok', 'expected'),
    [
        # Ordinary joint, both inside, short way allowed.
        (PI / 4, -PI / 4, -PI / 2, PI / 2, True, -PI / 2),
        (1.0, -1.0, -1.5, 1.5, True, -2.0),
        # Arc around pi: the short way (+1.0) crosses 0, forbidden; go round through pi.
        (-0.5, 0.5, 0.25, -0.25, True, 1.0 - 2 * PI),
        (0.5, -0.5, 0.25, -0.25, True, 2 * PI - 1.0),
        (0.5, 0.5, 0.25, -0.25, True, 0.0),
        # Starting on a stop.
        (-0.25, -0.5, 0.25, -0.25, True, -0.25),
        (-0.25, 0.5, 0.25, -0.25, True, 0.75 - 2 * PI),
        # Target outside the arc: ok False, head for the stop nearest the target.
        (0.5, 0.0, 0.25, -0.25, False, -0.5),
        (-0.5, 0.0, 0.25, -0.25, False, 0.5),
        (0.2, 0.0, 0.25, -0.25, False, 2 * PI - 0.2),
        (0.0, 2.0, -PI / 2, PI / 2, False, 2.0),
        # Start outside the arc: ok False, move back towards the nearer stop.
        (2.0, 0.0, -PI / 2, PI / 2, False, -2.0),
        (-0.2, 0.2, 0.25, -0.25, False, 0.4 - 2 * PI),
        # Full circle limits accept the seam.
        (-PI, PI, -PI, PI, True, 0.0),
    ],
)
def test_shortest_angular_distance_with_limits(from_angle, to_angle, left, right, ok, expected):
    result_ok, distance = shortest_angular_distance_with_limits(from_angle, to_angle, left, right)
    assert result_ok is ok
    assert distance == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    ('from_angle', 'to_angle', 'left', 'right'),
    [
        (-0.5, 0.5, -0.25, 0.25),
        (-0.5, 0.5, 0.25, 0.25),
        (-0.6, 0.5, -0.25, 0.25),
        (-0.6, 0.75, -0.25, 0.3),
        (-0.6, 3 * PI / 4, -0.25, 0.3),
    ],
)
def test_shortest_angular_distance_with_limits_rejects_outside(from_angle, to_angle, left, right):
    ok, _ = shortest_angular_distance_with_limits(from_angle, to_angle, left, right)
    assert ok is False


@pytest.mark.parametrize(
    ('from_angle', 'to_angle', 'left', 'right', 'ok', 'expected'),
    [
        # 10.5pi is pi/2 modulo 2pi; +pi/2 stays inside [-2pi, 2pi].
        (0.0, 10.5 * PI, -2 * PI, 2 * PI, True, 0.5 * PI),
        # Upper limit 0.1pi forbids +pi/2, so take the other way round: -1.5pi.
        (0.0, 10.5 * PI, -2 * PI, 0.1 * PI, True, -1.5 * PI),
        # Neither way fits in the narrow window around 2pi.
        (2 * PI, PI, 2 * PI - 0.1, 2 * PI + 0.1, False, PI),
        # from outside the limits.
        (10.5 * PI, 0.0, -2 * PI, 2 * PI, False, -0.5 * PI),
        # Reversed limits are refused, distance is the plain shortest one.
        (0.0, 0.1, 2 * PI, -2 * PI, False, 0.1),
        # Beyond 3pi on a multi-turn joint, the from position is used as-is.
        (3.5 * PI, 3.5 * PI + 0.25, -20 * PI, 20 * PI, True, 0.25),
        (0.999507, 1.0, -20 * PI, 20 * PI, True, 0.000493),
    ],
)
def test_shortest_angular_distance_with_large_limits(
    from_angle, to_angle, left, right, ok, expected
):
    result_ok, distance = shortest_angular_distance_with_large_limits(
        from_angle, to_angle, left, right
    )
    assert result_ok is ok
    assert distance == pytest.approx(expected, abs=1e-9)
