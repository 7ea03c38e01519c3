"""Finite trajectories that overflow: what the spline does with them, and the validation rule
(every value within +-MAX_TRAJECTORY_VALUE) that keeps every sample finite."""

import itertools
import math

import numpy as np
import pytest

from py_controllers.controllers.joint_trajectory.points import TrajectoryPoint
from py_controllers.controllers.joint_trajectory.trajectory import Trajectory
from py_controllers.controllers.joint_trajectory.validation import (
    MAX_TRAJECTORY_VALUE,
    PointData,
    TrajectoryRules,
    validate_trajectory,
)

B = MAX_TRAJECTORY_VALUE
S = 1_000_000_000
RULES = TrajectoryRules(('a',), allow_nonzero_velocity_at_trajectory_end=True)


def check(points, rules=RULES):
    return validate_trajectory(('a',), points, rules, stamp_ns=0, now_ns=0)


def samples(points, before, times):
    """Positions, velocities and accelerations at `times` (seconds from the point before)."""
    traj = Trajectory(points, 0.0)
    traj.set_point_before(0.0, before)
    out = []
    for t in times:
        s = traj.sample(t)
        out.append(np.concatenate([s.positions, s.velocities, s.accelerations, s.effort]))
    return np.array(out)


def dense(end_s, first_s):
    """Sample times: the first segment finely, then log-spaced to the end."""
    head = np.linspace(0.0, first_s, 11)
    tail = np.geomspace(first_s, end_s, 200)
    return [*head, *tail, end_s * 2]


def test_huge_finite_points_sample_nan_and_inf_without_the_rule():
    # the cases the rule is for: -1e308 -> 1e308 with velocity 1e308 in 1 s gives inf - inf
    before = TrajectoryPoint(0.0, [-1e308], [0.0])
    with np.errstate(all='ignore'):
        nan = samples([TrajectoryPoint(1.0, [1e308], [1e308])], before, [0.5])
        # a point at 1e308 reached in 0.5 s: velocity 2e308 = inf, and so the position
        inf = samples([TrajectoryPoint(0.5, [1e308])], TrajectoryPoint(0.0, [0.0]), [0.25])
    assert math.isnan(nan[0, 0])
    assert math.isinf(inf[0, 0]) and math.isinf(inf[0, 1])


def test_the_validation_refuses_each_field_beyond_the_bound():
    over = 1.0000001 * B
    assert check([PointData(S, (B,), (-B,), (B,))]) == ''
    for field in range(3):
        values = [(0.0,), (0.0,), (0.0,)]
        values[field] = (-over,)
        reason = check([PointData(S, *values)])
        name = ('positions', 'velocities', 'accelerations')[field]
        assert reason == (
            f'Value {-over} in {name} of joint a at point #0 is beyond +-1e+150: '
            'the trajectory would overflow.'
        )
    effort_rules = TrajectoryRules(('a',), has_effort_command_interface=True)
    assert 'in effort of joint a at point #1 is beyond' in check(
        [PointData(S, (0.0,)), PointData(2 * S, (0.0,), effort=(1e300,))], effort_rules
    )
    assert check([PointData(S, (math.inf,))]).startswith('Non-finite value inf in positions')


@pytest.mark.parametrize('first_s', [5e-10, 1e-9, 1.0, 4e9])
@pytest.mark.parametrize('end_s', [1e-6, 1e10])
def test_extreme_values_within_the_bound_always_sample_finite(first_s, end_s):
    # every sign combination of the largest allowed values, on the shortest and longest
    # segments the loop's nanosecond time axis allows, quintic (p, v, a) and cubic (p, v)
    end_s = max(end_s, 2 * first_s)
    for signs in itertools.product((-1.0, 1.0), repeat=5):
        sp, sv, sa, sq, se = (s * B for s in signs)
        before = TrajectoryPoint(0.0, [-sp], [-sv], [-sa], [-se])
        quintic = [
            TrajectoryPoint(first_s, [sp], [sv], [sa], [se]),
            TrajectoryPoint(end_s, [-sq], [-sv], [-sa], [-se]),
        ]
        assert np.isfinite(samples(quintic, before, dense(end_s, first_s))).all(), signs
        cubic = [TrajectoryPoint(first_s, [sp], [sv]), TrajectoryPoint(end_s, [-sq], [sv])]
        before = TrajectoryPoint(0.0, [-sp], [-sv])
        assert np.isfinite(samples(cubic, before, dense(end_s, first_s))).all(), signs


def test_integrated_points_within_the_bound_sample_finite():
    # accelerations only, integrated over 1e10 s, then a position 0.5 ns later: the largest
    # integrated positions (~1e170) and the steepest spline from them (one float step later)
    points = [
        TrajectoryPoint(2.5e9, accelerations=[B]),
        TrajectoryPoint(5e9, accelerations=[B]),
        TrajectoryPoint(1e10, velocities=[B], accelerations=[B]),
        TrajectoryPoint(math.nextafter(1e10, 2e10), [-B], [-B], [-B]),
    ]
    before = TrajectoryPoint(0.0, [B], [B], [B])
    values = samples(points, before, dense(math.nextafter(1e10, 2e10), 2.5e9))
    assert np.isfinite(values).all()
    assert np.abs(values).max() > 1e160  # it did get large
