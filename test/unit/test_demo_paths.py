"""The mobile base demos' paths and the numbers that judge the odometry (demo/paths.py)."""

import math

import pytest

from py_controllers.demo import paths
from py_controllers.demo.paths import CommandedPath


def drive(legs, step_s):
    """The commanded path of `legs` held in steps of at most `step_s`."""
    path = CommandedPath()
    for leg in legs:
        steps = math.ceil(leg.seconds / step_s)
        for _ in range(steps):
            path.hold(leg.vx, leg.vy, leg.wz, leg.seconds / steps)
    return path


def test_figure_eight_is_two_opposite_circles_of_the_radius():
    left, right = paths.figure_eight(speed=0.5, radius=0.6)
    assert (left.vx, left.wz) == pytest.approx((0.5, 0.5 / 0.6))
    assert (right.vx, right.wz) == pytest.approx((0.5, -0.5 / 0.6))
    assert left.seconds == right.seconds == pytest.approx(2 * math.pi * 0.6 / 0.5)


def test_figure_eight_closes_and_its_loops_reach_twice_the_radius():
    path = drive(paths.figure_eight(speed=0.5, radius=0.6), step_s=0.02)
    assert path.end == pytest.approx((0.0, 0.0, 0.0), abs=1e-9)
    ys = [p[1] for p in path.poses]
    # the left loop's top at y = 2R, the right loop's bottom at -2R (exact arcs)
    assert max(ys) == pytest.approx(1.2, abs=1e-3)
    assert min(ys) == pytest.approx(-1.2, abs=1e-3)


def test_sideways_square_visits_its_corners_without_turning():
    path = CommandedPath()
    corners = []
    for leg in paths.sideways_square(speed=0.25, side=0.5):
        path.hold(leg.vx, leg.vy, leg.wz, leg.seconds)
        corners.append(path.end)
    expected = [(0.5, 0.0, 0.0), (0.5, 0.5, 0.0), (0.0, 0.5, 0.0), (0.0, 0.0, 0.0)]
    for corner, want in zip(corners, expected, strict=True):
        assert corner == pytest.approx(want)


def test_sideways_motion_is_in_the_body_frame():
    # heading 90 deg: body +y (left) is world -x
    assert paths.advance((1.0, 2.0, math.pi / 2), 0.0, 0.5, 0.0, 2.0) == pytest.approx(
        (0.0, 2.0, math.pi / 2)
    )
    # a quarter turn while driving forward on a 1 m radius: exact arc
    assert paths.advance((0.0, 0.0, 0.0), 1.0, 0.0, 1.0, math.pi / 2) == pytest.approx(
        (1.0, 1.0, math.pi / 2)
    )


def test_deviation_is_the_distance_to_the_nearest_segment():
    square = [(0, 0, 0), (1, 0, 0), (1, 1, 0)]
    assert paths.distance_to_path((0.5, 0.2), square) == pytest.approx(0.2)
    assert paths.distance_to_path((1.3, 0.5), square) == pytest.approx(0.3)
    assert paths.distance_to_path((-0.3, -0.4), square) == pytest.approx(0.5)  # past the end
    assert paths.max_deviation([(0.5, 0.2, 0), (1.3, 0.5, 0)], square) == pytest.approx(0.3)


def test_heading_error_wraps():
    assert paths.heading_error(math.radians(355), math.radians(5)) == pytest.approx(
        math.radians(-10)
    )
    assert paths.heading_error(2 * math.pi, 0.0) == pytest.approx(0.0, abs=1e-12)


def test_legs_are_taken_up_when_the_controller_shows_them_not_when_sent():
    left, right = paths.figure_eight(speed=0.5, radius=0.6)
    stop = paths.Leg(0.0, 0.0, 0.0, 0.5)
    legs = [left, right, stop]
    rest, a, b = (0.0, 0.0, 0.0), (0.5, 0.0, 0.83), (0.5, 0.0, -0.83)
    # what the controller's state showed, every 0.1 s: each leg arrived late, by a different
    # delay (0.2, 0.5, 0.1 s), and a stale sample of leg 1 precedes leg 0's send
    applied = [(0.9, a), (1.0, rest), (1.1, rest), (1.2, a)]
    applied += [(t / 10, a) for t in range(13, 35)] + [(3.5, b), (3.6, b)]
    applied += [(t / 10, b) for t in range(37, 51)] + [(5.1, rest), (5.2, rest)]
    assert paths.legs_taken_up(legs, [1.0, 3.0, 5.0], applied) == [1.2, 3.5, 5.1]
    # a leg the state never shows keeps the time it was sent
    assert paths.legs_taken_up(legs, [1.0, 3.0, 5.0], applied[:5]) == [1.2, 3.0, 5.0]


def test_holding_in_steps_draws_the_exact_arcs():
    left, right = paths.figure_eight(speed=0.5, radius=0.6)
    held = CommandedPath()
    for leg in (left, right):
        held.hold_for(leg.vx, leg.vy, leg.wz, leg.seconds, step_s=0.02)
    stepped = drive([left, right], step_s=0.02)
    assert len(held.poses) == len(stepped.poses)
    for a, b in zip(held.poses, stepped.poses, strict=True):
        assert a == pytest.approx(b, abs=1e-9)
    # the first loop held 0.3 s longer: the base turned 0.3 * wz further before the second
    late = CommandedPath()
    late.hold_for(left.vx, left.vy, left.wz, left.seconds + 0.3, step_s=0.02)
    late.hold_for(right.vx, right.vy, right.wz, right.seconds, step_s=0.02)
    assert late.end[2] == pytest.approx(0.3 * left.wz, abs=1e-9)


def test_the_applied_path_rests_where_a_reference_timed_out_and_moves_through_a_stall():
    """q21: the car's reference timed out for about 2 s mid-leg on a loaded host, the base
    rested meanwhile, and a path holding the leg from take-up to take-up ran 100 deg ahead."""
    ahead, rest = (1.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    legs = [paths.Leg(*ahead, 4.0), paths.Leg(*rest, 1.0)]
    # every 0.1 s: the leg from 0 s; its reference timed out from 1.0 to 2.0 s (a NaN
    # reference rests too); no state at all from 2.5 to 3.5 s (the process stopped: the
    # base kept its last command); rest taken up at 4.0 s
    applied = [(t / 10, ahead) for t in range(0, 10)]
    applied += [(t / 10, rest) for t in range(10, 15)] + [(1.5, (math.nan, 0.0, 0.0))]
    applied += [(t / 10, rest) for t in range(16, 20)] + [(t / 10, ahead) for t in range(20, 26)]
    applied += [(t / 10, ahead) for t in range(35, 40)] + [(t / 10, rest) for t in range(40, 51)]
    starts = paths.legs_taken_up(legs, [0.0, 4.0], applied)
    assert starts == [0.0, 4.0]
    path, ends, held = paths.applied_path(legs, starts, applied)
    assert held == [pytest.approx(3.0)]
    assert path.poses[ends[0]] == pytest.approx((3.0, 0.0, 0.0))
    assert path.end == pytest.approx((3.0, 0.0, 0.0))


def test_where_the_receiver_stalled_and_missed_states_the_applied_path_takes_the_odometry():
    ahead = (1.0, 0.0, 0.0)
    legs = [paths.Leg(*ahead, 3.0), paths.Leg(0.0, 0.0, 0.0, 1.0)]
    # states every 0.1 s, none from 1.0 to 2.0 s; the base turned a quarter left there
    applied = [(t / 10, ahead) for t in range(0, 11)] + [(t / 10, ahead) for t in range(20, 31)]
    applied += [(3.1, (0.0, 0.0, 0.0)), (3.2, (0.0, 0.0, 0.0))]
    # the odometry: every 0.1 s but for the stall, in which it shows the quarter turn
    odometry = [(t / 10, (t / 10, 0.0, 0.0)) for t in range(0, 11)]
    odometry += [(t / 10, (1.5, 0.5 + (t - 20) / 10, math.pi / 2)) for t in range(20, 31)]

    # this process stalled from 1.05 to 1.95 s and lost states: from the odometry before
    # the stall to the first after it, the path is the odometry's motion
    path, ends, held = paths.applied_path(legs, [0.0, 3.0], applied, odometry, [(1.05, 1.95)])
    assert held == [pytest.approx(2.0)]
    assert path.poses[ends[0]] == pytest.approx((1.5, 1.5, math.pi / 2))
    # a stall of its own only later: the gap was the controller's (its base kept the last
    # twist), and a stall with no odometry after it shows nothing
    path, ends, held = paths.applied_path(legs, [0.0, 3.0], applied, odometry, [(3.5, 4.0)])
    assert held == [pytest.approx(3.0)]
    assert path.poses[ends[0]] == pytest.approx((3.0, 0.0, 0.0))


def test_a_stall_lasts_until_the_states_come_back_too():
    """The receiver stalled from 1.0 to 1.2 s; its odometry came back at 1.2 s, the states
    only at 1.7 s, and the base had turned the other way at 1.5 s meanwhile: holding the
    twist from before the stall until 1.7 s would put the path 0.4 rad off (s41's car)."""
    left, right = (1.0, 0.0, 1.0), (1.0, 0.0, -1.0)
    legs = [paths.Leg(*left, 1.5), paths.Leg(*right, 1.5), paths.Leg(0.0, 0.0, 0.0, 1.0)]
    truth, odometry, applied = (0.0, 0.0, 0.0), [], []
    for k in range(40):
        t = k / 10
        twist = left if t < 1.5 else right if t < 3.0 else (0.0, 0.0, 0.0)
        if not 1.0 < t < 1.7:
            applied.append((t, twist))
        if not 1.0 < t < 1.2:
            odometry.append((t, truth))
        truth = paths.advance(truth, *twist, 0.1)
    starts = paths.legs_taken_up(legs, [0.0, 1.45, 2.95], applied)
    assert starts == [0.0, 1.7, 3.0]  # the second leg seen only when the states came back
    path, _, held = paths.applied_path(legs, starts, applied, odometry, [(1.0, 1.2)])
    assert path.end == pytest.approx(odometry[-1][1], abs=1e-9)
    assert held == [pytest.approx(1.0), pytest.approx(1.3)]  # the stall until 1.7 s: neither


def test_a_stall_spans_from_the_odometry_before_it_to_the_first_after_it():
    times = [0.0, 0.5, 1.0, 2.0, 2.5]
    assert paths.stall_spans(times, [(1.2, 1.8), (0.5, 0.6), (2.4, 3.0)]) == [
        (1.0, 2.0),
        (0.5, 1.0),  # odometry at the stall's start: the span starts there
    ]
    assert paths.stall_spans(times, [(-1.0, 0.2)]) == [(0.0, 0.5)]
    odometry = [(t, (t, 0.0, t)) for t in times]
    motions = paths.motion_across(odometry, 1.0, 2.0)
    assert motions == [pytest.approx(paths.relative((1.0, 0.0, 1.0), (2.0, 0.0, 2.0)))]


def test_overlapping_stall_spans_take_the_odometry_motion_once():
    """q25: the demo stalled twice while the manager was stopped; both spans reached from
    the odometry before the stop to the first after it, and the car turned 94 deg twice."""
    ahead = (1.0, 0.0, 0.0)
    legs = [paths.Leg(*ahead, 3.0), paths.Leg(0.0, 0.0, 0.0, 1.0)]
    applied = [(t / 10, ahead) for t in range(0, 11)] + [(t / 10, ahead) for t in range(20, 31)]
    applied += [(3.1, (0.0, 0.0, 0.0)), (3.2, (0.0, 0.0, 0.0))]
    odometry = [(1.0, (1.0, 0.0, 0.0)), (1.5, (1.5, 0.0, 0.0)), (2.0, (2.0, 0.0, 0.0))]
    path, ends, _ = paths.applied_path(
        legs, [0.0, 3.0], applied, odometry, [(1.1, 1.4), (1.2, 1.9)]
    )
    assert path.poses[ends[0]] == pytest.approx((3.0, 0.0, 0.0))
    assert paths.merged([(3.0, 4.0), (1.0, 2.0), (1.5, 2.5), (2.5, 2.6)]) == [
        (1.0, 2.6),
        (3.0, 4.0),
    ]
