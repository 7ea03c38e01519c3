"""Worked examples for the joint trajectory math (trajectory.py, points.py, builders.py,
spline_fill.py in joint_trajectory/)."""

import math

import numpy as np
import pytest

from py_controllers.controllers.joint_trajectory.builders import (
    decelerate_to_stop,
    hold_trajectory,
    success_trajectory,
)
from py_controllers.controllers.joint_trajectory.points import (
    InterpolationMethod,
    SamplePair,
    SampleResult,
    TrajectoryPoint,
    shortest_angular_distance_array,
)
from py_controllers.controllers.joint_trajectory.spline_fill import fill_cubic_spline_velocities
from py_controllers.controllers.joint_trajectory.trajectory import Trajectory

TOL = 1e-9


def approx(values, tol=TOL):
    return pytest.approx(values, abs=tol)


def pt(tfs, p=None, v=None, a=None, e=None):
    return TrajectoryPoint(tfs, p, v, a, e)


def started(points, before, before_time=0.0, start=None, continuous=None):
    """A trajectory with its point before set, as the controller does on the first update."""
    traj = Trajectory(points, start)
    traj.set_point_before(before_time, before, continuous)
    return traj


# -- linear ---------------------------------------------------------------------------------


def test_linear_midpoint_between_waypoints():
    # p0 = [0, 2] at 1 s, p1 = [4, -2] at 3 s; midpoint t = 2 s -> [2, 0], slope [2, -2] /s.
    traj = started([pt(1.0, [0.0, 2.0]), pt(3.0, [4.0, -2.0])], pt(0.0, [0.0, 2.0]), start=0.0)
    s = traj.sample(2.0)
    assert s.positions == approx([2.0, 0.0])
    assert s.velocities == approx([2.0, -2.0])
    assert s.accelerations == approx([0.0, 0.0])
    assert (s.start_index, s.end_index, s.before_last_point) == (0, 1, True)
    assert s.time_from_start_s == 3.0
    assert s.segment_start_time_s == 1.0


def test_linear_from_point_before_to_first_point():
    # before: 0 at t=0; p0 = 4 at t=2 -> t=0.5 gives 1.0 with slope 2.
    traj = started([pt(2.0, [4.0])], pt(0.0, [0.0]), start=0.0)
    s = traj.sample(0.5)
    assert s.positions == approx([1.0])
    assert s.velocities == approx([2.0])
    assert (s.start_index, s.end_index, s.before_last_point) == (0, 0, True)
    assert s.time_from_start_s == 0.0


# -- cubic ----------------------------------------------------------------------------------


def cubic_trajectory():
    # Segment p0 -> p1 over T = 2 s: (p, v) = (1, 0.5) -> (3, -1).
    return started(
        [pt(0.0, [1.0], [0.5]), pt(2.0, [3.0], [-1.0]), pt(3.0, [3.0], [0.0])],
        pt(0.0, [1.0], [0.5]),
        start=0.0,
    )


def test_cubic_start_point_values():
    s = cubic_trajectory().sample(0.0)
    assert s.positions == approx([1.0])
    assert s.velocities == approx([0.5])
    # a(0) = 2 c2 = 2 (3 * 2 - (2 * 0.5 - 1) * 2) / 4 = 3.0
    assert s.accelerations == approx([3.0])
    assert (s.start_index, s.end_index) == (0, 1)


def test_cubic_quarter_point_matches_hermite_by_hand():
    # s = tau/T = 0.25: h00 = 2s^3-3s^2+1 = 0.84375, h10 = s^3-2s^2+s = 0.140625,
    # h01 = -2s^3+3s^2 = 0.15625, h11 = s^3-s^2 = -0.046875.
    # p = 0.84375*1 + 0.140625*2*0.5 + 0.15625*3 + (-0.046875)*2*(-1) = 1.546875
    # dh/ds: -1.125, 0.1875, 1.125, -0.3125 ->
    # v = (-1.125*1 + 0.1875*2*0.5 + 1.125*3 + (-0.3125)*2*(-1)) / 2 = 1.53125
    # d2h/ds2 = 12s-6, 6s-4, -12s+6, 6s-2 = -3, -2.5, 3, -0.5 ->
    # a = (-3*1 + (-2.5)*2*0.5 + 3*3 + (-0.5)*2*(-1)) / 4 = 1.125
    s = cubic_trajectory().sample(0.5)
    assert s.positions == approx([1.546875])
    assert s.velocities == approx([1.53125])
    assert s.accelerations == approx([1.125])


def test_cubic_midpoint_and_end_of_segment():
    traj = cubic_trajectory()
    # s = 0.5: h = 0.5, 0.125, 0.5, -0.125 -> p = 0.5 + 0.125 + 1.5 + 0.25 = 2.375
    # dh/ds = -1.5, -0.25, 1.5, -0.25 -> v = (-1.5 - 0.25 + 4.5 + 0.5) / 2 = 1.625
    s = traj.sample(1.0)
    assert s.positions == approx([2.375])
    assert s.velocities == approx([1.625])
    # Exactly at p1's time the next segment starts at p1's values.
    s = traj.sample(2.0)
    assert s.positions == approx([3.0])
    assert s.velocities == approx([-1.0])
    assert (s.start_index, s.end_index) == (1, 2)
    # Just before it, the first segment ends at p1 too.
    s = traj.sample(2.0 - 1e-12, advance=False)
    assert s.positions == approx([3.0])
    assert s.velocities == approx([-1.0])


# -- quintic --------------------------------------------------------------------------------


def min_jerk(big_t):
    before = pt(0.0, [0.0], [0.0], [0.0])
    return started([pt(big_t, [1.0], [0.0], [0.0])], before, start=0.0)


@pytest.mark.parametrize('big_t', [1.0, 2.0, 0.4])
def test_quintic_minimum_jerk_midpoint(big_t):
    # p = 10s^3 - 15s^4 + 6s^5: p(1/2) = 0.5, v(1/2) = 15/8/T, a(1/2) = 0.
    s = min_jerk(big_t).sample(big_t / 2)
    assert s.positions == approx([0.5])
    assert s.velocities == approx([15.0 / 8.0 / big_t])
    assert s.accelerations == approx([0.0])


def test_quintic_minimum_jerk_quarter_point():
    # s = 1/4, T = 2: p = 10/64 - 15/256 + 6/1024 = 0.103515625
    # v = (30s^2 - 60s^3 + 30s^4)/T = (1.875 - 0.9375 + 0.1171875)/2 = 0.52734375
    # a = (60s - 180s^2 + 120s^3)/T^2 = (15 - 11.25 + 1.875)/4 = 1.40625
    s = min_jerk(2.0).sample(0.5)
    assert s.positions == approx([0.103515625])
    assert s.velocities == approx([0.52734375])
    assert s.accelerations == approx([1.40625])


def test_quintic_endpoints_with_nonzero_boundary_conditions():
    a_state = ([0.0, -1.0], [1.0, 0.5], [2.0, -3.0])
    b_state = ([3.0, 2.0], [-1.0, 0.25], [0.5, 1.0])
    traj = started(
        [pt(0.0, *a_state), pt(1.5, *b_state), pt(2.0, [3.0, 2.0], [0.0, 0.0], [0.0, 0.0])],
        pt(0.0, *a_state),
        start=0.0,
    )
    s = traj.sample(0.0)
    assert s.positions == approx(a_state[0])
    assert s.velocities == approx(a_state[1])
    assert s.accelerations == approx(a_state[2])
    s = traj.sample(1.5 - 1e-12)
    assert s.positions == approx(b_state[0])
    assert s.velocities == approx(b_state[1])
    assert s.accelerations == approx(b_state[2], tol=1e-8)


# -- integration of velocity-only / acceleration-only trajectories ---------------------------


def test_velocity_only_trajectory_is_integrated():
    # before: p = 1 at t = 0 (no velocity state -> zero velocity since p0 has velocities).
    # p0 (1 s): v = 2 -> p = 1 + (0 + 2)/2 * 1 = 2;  p1 (2 s): v = 0 -> p = 2 + (2 + 0)/2 = 3.
    traj = started([pt(1.0, v=[2.0]), pt(2.0, v=[0.0])], pt(0.0, [1.0]), start=0.0)
    # Cubic (1, 0) -> (2, 2) at s = 0.5: 0.5*1 + 0.125*0 + 0.5*2 + (-0.125)*2 = 1.25
    s = traj.sample(0.5)
    assert s.positions == approx([1.25])
    # Cubic (2, 2) -> (3, 0) at s = 0.5: 0.5*2 + 0.125*2 + 0.5*3 - 0 = 2.75
    s = traj.sample(1.5)
    assert s.positions == approx([2.75])
    s = traj.sample(9.0)
    assert s.positions == approx([3.0])
    assert s.velocities == approx([0.0])
    assert traj.final_point().positions == approx([3.0])
    # The waypoints as given are untouched.
    assert traj.points[1].positions is None


def test_acceleration_only_trajectory_is_integrated_twice():
    # before p = 0; p0 (1 s): a = 2 -> v = 0 + (0 + 2)/2 = 1, p = 0 + (0 + 1)/2 = 0.5;
    # p1 (2 s): a = 0 -> v = 1 + (2 + 0)/2 = 2, p = 0.5 + (1 + 2)/2 = 2.0.
    traj = started([pt(1.0, a=[2.0]), pt(2.0, a=[0.0])], pt(0.0, [0.0]), start=0.0)
    s = traj.sample(1.0)
    assert s.positions == approx([0.5])
    assert s.velocities == approx([1.0])
    assert s.accelerations == approx([2.0])
    s = traj.sample(5.0)
    assert s.positions == approx([2.0])
    assert s.velocities == approx([2.0])  # the integrated end velocity, as upstream
    assert s.accelerations == approx([0.0])


def test_velocity_only_first_point_at_time_zero_starts_from_state():
    # p0 due at the first sample: dt = 0, so p0 takes the state's position.
    traj = started([pt(0.0, v=[0.0]), pt(1.0, v=[2.0])], pt(0.0, [5.0]))
    s = traj.sample(0.0)
    assert s.positions == approx([5.0])
    s = traj.sample(10.0)
    assert s.positions == approx([5.0 + 1.0])


# -- timing: before start, after end, future start -------------------------------------------


def test_sample_before_point_before_is_none():
    traj = started([pt(1.0, [1.0])], pt(0.0, [0.0]), before_time=1.0, start=2.0)
    assert traj.sample(0.5) is None
    assert traj.sampled_already
    assert traj.sample(1.0).positions == approx([0.0])


def test_lookahead_before_first_advancing_sample_is_none():
    traj = started([pt(1.0, [1.0])], pt(0.0, [0.0]), before_time=3.0)
    assert traj.sample(3.5, advance=False) is None
    assert not traj.sampled_already
    assert traj.start_time_s is None


def test_sample_without_point_before_raises():
    with pytest.raises(RuntimeError):
        Trajectory([pt(1.0, [1.0])]).sample(0.0)


def test_after_end_holds_last_point_with_zero_derivatives():
    traj = started([pt(1.0, [1.0, 2.0]), pt(2.0, [3.0, 4.0])], pt(0.0, [0.0, 0.0]), start=0.0)
    s = traj.sample(7.5)
    assert s.positions == approx([3.0, 4.0])
    assert s.velocities == approx([0.0, 0.0])
    assert s.accelerations == approx([0.0, 0.0])
    assert s.effort == approx([0.0, 0.0])
    assert (s.start_index, s.end_index, s.before_last_point) == (1, 2, False)
    assert s.segment_start_time_s == 2.0  # time_difference = 7.5 - 2.0 past the end
    assert s.time_from_start_s == 2.0
    assert traj.last_sample_index == 1


def test_zero_stamp_starts_at_first_sample():
    # start None: the first sample (t = 10) becomes the start, p0 is due at 11.
    traj = started([pt(1.0, [2.0])], pt(0.0, [0.0]), before_time=10.0)
    s = traj.sample(10.5)
    assert traj.start_time_s == 10.5
    assert traj.end_time_s == 11.5
    # Linear from 0 at t = 10 to 2 at t = 11.5: at 10.5 -> 2/1.5*0.5
    assert s.positions == approx([2.0 / 3.0])


def test_point_before_blends_from_nonzero_state():
    # State (p, v) = (1, 2) at t = 0; p0 = (3, 0) at 1 s -> cubic at s = 0.5:
    # p = 0.5*1 + 0.125*1*2 + 0.5*3 = 2.25; v = -1.5*1 + (-0.25)*2 + 1.5*3 = 2.5
    traj = started([pt(1.0, [3.0], [0.0])], pt(0.0, [1.0], [2.0]), start=0.0)
    s0 = traj.sample(0.0)
    assert s0.positions == approx([1.0])
    assert s0.velocities == approx([2.0])
    s = traj.sample(0.5)
    assert s.positions == approx([2.25])
    assert s.velocities == approx([2.5])


def test_positions_only_trajectory_ignores_state_velocity():
    # p0 has no velocities -> linear from the state even though it is moving.
    traj = started([pt(1.0, [3.0])], pt(0.0, [1.0], [2.0]), start=0.0)
    s = traj.sample(0.25)
    assert s.positions == approx([1.5])
    assert s.velocities == approx([2.0])


def test_future_start_time_moves_from_now():
    # stamp 5 s, p0 at 1 s -> due at 6; sampling starts at 0, linear from 0 to 1 over 6 s.
    traj = started([pt(1.0, [1.0]), pt(2.0, [2.0])], pt(0.0, [0.0]), start=5.0)
    s = traj.sample(3.0)
    assert s.positions == approx([0.5])
    assert (s.start_index, s.end_index) == (0, 0)
    assert s.segment_start_time_s == 6.0  # time_difference = 3 - 6 = -3
    s = traj.sample(6.5)
    assert s.positions == approx([1.5])
    assert (s.start_index, s.end_index) == (0, 1)


def test_effort_is_linearly_interpolated_missing_effort_counts_as_zero():
    traj = started(
        [pt(1.0, [0.0], e=[4.0]), pt(3.0, [0.0], e=[8.0]), pt(4.0, [0.0])],
        pt(0.0, [0.0], e=[2.0]),
        start=0.0,
    )
    assert traj.sample(0.5).effort == approx([3.0])  # 2 -> 4
    assert traj.sample(2.0).effort == approx([6.0])  # 4 -> 8
    assert traj.sample(3.5).effort == approx([4.0])  # 8 -> 0
    assert traj.sample(5.0).effort == approx([0.0])


def test_accelerations_without_velocities_fall_back_to_linear():
    traj = started([pt(0.0, [0.0], a=[1.0]), pt(2.0, [4.0], a=[1.0])], pt(0.0, [0.0]), start=0.0)
    s = traj.sample(0.5)
    assert s.positions == approx([1.0])
    assert s.velocities == approx([2.0])
    assert s.accelerations == approx([0.0])


# -- segment search ----------------------------------------------------------------------------


def test_lookahead_does_not_move_the_search_hint_and_queries_are_exact():
    points = [pt(float(k), [float(k * k)]) for k in range(1, 6)]
    traj = started(points, pt(0.0, [0.0]), start=0.0)
    traj.sample(1.5)
    assert traj.last_sample_index == 0
    s = traj.sample(4.5, advance=False)
    assert (s.start_index, s.end_index) == (3, 4)
    assert s.positions == approx([20.5])  # 16 -> 25 at half way
    assert traj.last_sample_index == 0
    traj.sample(3.25)
    assert traj.last_sample_index == 2
    # An earlier query still finds its segment (upstream would report "past the end").
    s = traj.sample(1.5, advance=False)
    assert (s.start_index, s.end_index) == (0, 1)
    assert s.positions == approx([2.5])


def test_sample_into_preallocated_result():
    traj = started([pt(1.0, [0.0, 2.0]), pt(3.0, [4.0, -2.0])], pt(0.0, [0.0, 2.0]), start=0.0)
    out = SampleResult(2)
    positions_view = out.positions
    assert traj.sample(2.0, out=out) is out
    assert positions_view == approx([2.0, 0.0])
    traj.sample(9.0, out=out)
    assert positions_view == approx([4.0, -2.0])
    snapshot = out.to_point()
    traj.sample(2.0, out=out)
    assert snapshot.positions == approx([4.0, -2.0])


@pytest.mark.parametrize('interpolation', [InterpolationMethod.SPLINES, InterpolationMethod.NONE])
def test_a_pair_of_samples_is_what_the_two_samples_are_alone(interpolation):
    """sample_pair (one product for both times inside a segment) gives what sample() and a
    look-ahead sample(advance=False) give, at every time: before the first waypoint, inside
    quintic, cubic and linear segments, across their boundaries and past the end."""
    points = [
        pt(0.5, [1.0, -1.0], [0.5, 0.0], [0.0, 1.0], [2.0, 0.0]),  # quintic
        pt(1.0, [1.5, -0.5], [0.2, 0.3]),  # cubic
        pt(1.6, [0.5, 0.5]),  # linear
    ]
    before = pt(0.0, [0.0, 0.0], [0.0, 0.0], [0.0, 0.0])
    alone, paired = started(points, before, start=0.0), started(points, before, start=0.0)
    pair, now, ahead = SamplePair(2), SampleResult(2), SampleResult(2)
    evaluated_once = 0
    for k in range(-2, 700):
        t_s = k * 0.0027
        expected_now = alone.sample(t_s, interpolation, out=now)
        expected_ahead = alone.sample(t_s + 0.01, interpolation, advance=False, out=ahead)
        both = paired.sample_pair(t_s, t_s + 0.01, interpolation, pair)
        assert both == (expected_now is not None and expected_ahead is not None), t_s
        if not both:
            continue
        evaluated_once += now.start_index == ahead.start_index and now.end_index < 3
        for got, want in ((pair.now, now), (pair.ahead, ahead)):
            for field in ('positions', 'velocities', 'accelerations', 'effort'):
                assert getattr(got, field) == approx(getattr(want, field), 1e-12), (t_s, field)
            for field in ('start_index', 'end_index', 'before_last_point', 'time_from_start_s',
                          'segment_start_time_s'):  # fmt: skip
                assert getattr(got, field) == getattr(want, field), (t_s, field)
    assert evaluated_once > 400
    # the same pair on another trajectory places itself anew (not the first one's indices)
    other = started([pt(0.2, [3.0, 3.0]), pt(0.4, [4.0, 4.0])], before, start=0.0)
    assert paired.sample_pair(0.7, 0.71, InterpolationMethod.SPLINES, pair)
    assert other.sample_pair(0.7, 0.71, InterpolationMethod.SPLINES, pair)
    assert (pair.now.end_index, pair.now.before_last_point) == (2, False)
    assert pair.now.positions == approx([4.0, 4.0])


# -- interpolation_method: none ---------------------------------------------------------------


def test_interpolation_none_steps_to_next_point():
    traj = started([pt(1.0, [1.0], [0.5]), pt(2.0, [2.0], [0.0])], pt(0.0, [0.0]), start=0.0)
    none = InterpolationMethod.NONE
    s = traj.sample(0.5, none)
    assert s.positions == approx([0.0])  # the point before, verbatim
    assert s.velocities == approx([0.0])  # zero-filled because p0 has velocities
    s = traj.sample(1.2, 'none')
    assert s.positions == approx([2.0])  # the next waypoint, verbatim
    assert (s.start_index, s.end_index) == (0, 1)
    s = traj.sample(3.0, none)
    assert s.positions == approx([2.0])
    assert not s.before_last_point


def test_interpolation_method_from_string():
    assert InterpolationMethod.from_string('None') is InterpolationMethod.NONE
    assert InterpolationMethod.from_string('SPLINES') is InterpolationMethod.SPLINES
    assert InterpolationMethod.from_string('cubic') is InterpolationMethod.SPLINES


# -- continuous joints --------------------------------------------------------------------------


def test_continuous_joint_takes_the_short_way():
    # From 3.0 rad toward -3.0 rad: the short way is +0.2832 rad through pi, not -6 rad.
    short = 2.0 * math.pi - 6.0  # 0.28318...
    traj = started(
        [pt(1.0, [-3.0, -3.0])], pt(0.0, [3.0, 3.0]), start=0.0, continuous=[True, False]
    )
    assert traj.point_before.positions == approx([-3.0 - short, 3.0])
    s = traj.sample(0.5)
    assert s.positions == approx([-3.0 - short / 2, 0.0])
    assert s.velocities == approx([short, -6.0])
    assert traj.sample(2.0).positions == approx([-3.0, -3.0])


def test_continuous_joint_exact_half_turn_follows_the_raw_difference():
    traj = started([pt(1.0, [math.pi])], pt(0.0, [0.0]), start=0.0, continuous=[True])
    assert traj.point_before.positions == approx([0.0])
    traj = started([pt(1.0, [-math.pi])], pt(0.0, [0.0]), start=0.0, continuous=[True])
    assert traj.point_before.positions == approx([0.0])
    # Several turns away: only whole turns are removed.
    traj = started([pt(1.0, [0.5])], pt(0.0, [4 * math.pi + 0.25]), start=0.0, continuous=[True])
    assert traj.point_before.positions == approx([0.25])


def test_shortest_angular_distance_array():
    d = shortest_angular_distance_array(
        np.array([3.0, 0.0, 0.0, 0.0]), np.array([-3.0, math.pi, -math.pi, 7.0])
    )
    assert d == approx([2 * math.pi - 6.0, math.pi, math.pi, 7.0 - 2 * math.pi], tol=1e-12)


# -- hold, success and deceleration -------------------------------------------------------------


def test_hold_trajectory_holds_given_positions():
    traj = hold_trajectory([0.5, -1.0])
    assert traj.n_points == 1
    traj.set_point_before(4.0, pt(0.0, [0.4, -1.1], [0.3, 0.2]))
    s = traj.sample(4.0)
    assert s.positions == approx([0.5, -1.0])
    assert s.velocities == approx([0.0, 0.0])
    assert s.accelerations == approx([0.0, 0.0])
    assert not s.before_last_point
    assert traj.start_time_s == 4.0
    assert traj.sample(4.001, advance=False).positions == approx([0.5, -1.0])


def test_success_trajectory_repeats_last_point():
    traj = started([pt(1.0, v=[2.0]), pt(2.0, v=[0.0])], pt(0.0, [1.0]), start=0.0)
    traj.sample(2.5)
    done = success_trajectory(traj)
    assert done.points[0].time_from_start_s == 0.0
    assert done.points[0].positions == approx([3.0])


def test_decelerate_to_stop_ramp():
    # p0 = [0, 1], v0 = [1, -0.5], a = [2, 2], period 0.1:
    # stop times 0.5 and 0.25 s -> ceil(0.5 / 0.1) + 1 = 6 points.
    traj = decelerate_to_stop([0.0, 1.0], [1.0, -0.5], [2.0, 2.0], 0.1)
    assert traj.n_points == 6
    assert [p.time_from_start_s for p in traj.points] == approx([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    first = traj.points[0]
    assert first.positions == approx([0.0, 1.0])
    assert first.velocities == approx([1.0, -0.5])
    assert first.accelerations == approx([-2.0, 2.0])
    # t = 0.2: joint 0 v = 1 - 2*0.2 = 0.6, p = 0.2 - 0.5*2*0.04 = 0.16;
    #          joint 1 v = -0.5 + 0.4 = -0.1, p = 1 - 0.1 + 0.04 = 0.94
    p2 = traj.points[2]
    assert p2.positions == approx([0.16, 0.94])
    assert p2.velocities == approx([0.6, -0.1])
    assert p2.accelerations == approx([-2.0, 2.0])
    # t = 0.3: joint 1 has stopped at 1 - 0.25 / 4 = 0.9375.
    p3 = traj.points[3]
    assert p3.positions == approx([0.3 - 0.09, 0.9375])
    assert p3.velocities == approx([0.4, 0.0])
    assert p3.accelerations == approx([-2.0, 0.0])
    # t = 0.5: joint 0 holds at 1 / 4 = 0.25.
    last = traj.points[-1]
    assert last.positions == approx([0.25, 0.9375])
    assert last.velocities == approx([0.0, 0.0])
    # Played back from the measured state, the quintic segments follow the ramp.
    traj.set_point_before(0.0, pt(0.0, [0.0, 1.0], [1.0, -0.5]))
    s = traj.sample(0.0)
    assert s.positions == approx([0.0, 1.0])
    assert s.velocities == approx([1.0, -0.5])
    s = traj.sample(0.15, advance=False)
    assert s.positions == approx([0.15 - 0.0225, 1.0 - 0.075 + 0.0225])
    assert traj.sample(1.0).positions == approx([0.25, 0.9375])


def test_decelerate_when_already_stopped_is_a_hold():
    traj = decelerate_to_stop([0.3], [0.0], [1.0], 0.01)
    assert traj.n_points == 1
    assert traj.points[0].positions == approx([0.3])
    assert traj.points[0].velocities == approx([0.0])


def test_decelerate_rejects_bad_arguments():
    with pytest.raises(ValueError):
        decelerate_to_stop([0.0], [1.0], [0.0], 0.01)
    with pytest.raises(ValueError):
        decelerate_to_stop([0.0], [1.0], [1.0], 0.0)


# -- construction checks and spline upsampling ------------------------------------------------


def test_trajectory_rejects_bad_points():
    with pytest.raises(ValueError):
        Trajectory([])
    with pytest.raises(ValueError):
        Trajectory([pt(1.0, [1.0]), pt(1.0, [2.0])])
    with pytest.raises(ValueError):
        Trajectory([pt(1.0, [1.0, 2.0], [0.0])])
    with pytest.raises(ValueError):
        Trajectory([pt(1.0, e=[1.0])])


def test_fill_cubic_spline_velocities():
    # Positions 0, 1, 2 at 0, 1, 2 s: interior row 1*0 + 4 v1 + 1*0 = 3 (1 + 1) -> v1 = 1.5.
    v = fill_cubic_spline_velocities(
        [0.0, 1.0, 2.0], np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    )
    assert v == approx(np.array([[0.0, 0.0], [1.5, 0.0], [0.0, 0.0]]))
    # Four knots, equal spacing h = 1, positions 0, 1, 1, 0:
    # 4 v1 + v2 = 3 (0 + 1) = 3, v1 + 4 v2 = 3 (-1 + 0) = -3 -> v1 = 1, v2 = -1.
    v = fill_cubic_spline_velocities([0.0, 1.0, 2.0, 3.0], np.array([[0.0], [1.0], [1.0], [0.0]]))
    assert v[:, 0] == approx([0.0, 1.0, -1.0, 0.0])
    assert fill_cubic_spline_velocities([0.0], np.array([[0.0]])) is None
    assert fill_cubic_spline_velocities([0.0, 0.0], np.array([[0.0], [1.0]])) is None


def test_many_joints_vectorised():
    n = 100
    rng = np.random.default_rng(7)
    start_p = rng.uniform(-1, 1, n)
    end_p = rng.uniform(-1, 1, n)
    traj = started(
        [pt(2.0, end_p, np.zeros(n), np.zeros(n))], pt(0.0, start_p, np.zeros(n)), start=0.0
    )
    s = traj.sample(1.0)
    np.testing.assert_allclose(s.positions, 0.5 * (start_p + end_p), atol=TOL)
    np.testing.assert_allclose(s.velocities, 15.0 / 16.0 * (end_p - start_p), atol=TOL)
