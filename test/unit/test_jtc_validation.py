"""Trajectory validation and joint-order conversion of the joint trajectory controller (pure)."""

import math

import numpy as np
import pytest

from py_controllers.controllers.joint_trajectory.trajectory import Trajectory, TrajectoryPoint
from py_controllers.controllers.joint_trajectory.validation import (
    PointData,
    TrajectoryRules,
    command_interface_combination_error,
    fill_omitted_joints,
    interface_requirements_error,
    state_interface_combination_error,
    to_controller_order,
    upsample_positions,
    validate_trajectory,
)

S = 1_000_000_000
JOINTS = ('a', 'b', 'c')
RULES = TrajectoryRules(JOINTS)


def pt(t_s, positions=(), velocities=(), accelerations=(), effort=()):
    return PointData(round(t_s * S), positions, velocities, accelerations, effort)


def check(points, names=JOINTS, rules=RULES, stamp_ns=0, now_ns=100 * S, **kwargs):
    return validate_trajectory(names, points, rules, stamp_ns=stamp_ns, now_ns=now_ns, **kwargs)


GOOD = [pt(1.0, (1, 2, 3)), pt(2.0, (2, 3, 4), (0, 0, 0))]


def test_a_complete_trajectory_is_accepted():
    assert check(GOOD) == ''
    assert check([pt(0.0, (1, 2, 3))]) == ''  # one point at t = 0 is fine


def test_partial_joint_sets_need_allow_partial_joints_goal():
    partial = [pt(1.0, (1, 2))]
    assert check(partial, names=('a', 'b')) == (
        "Joints on incoming trajectory don't match the controller joints."
    )
    rules = TrajectoryRules(JOINTS, allow_partial_joints_goal=True)
    assert check(partial, names=('a', 'b'), rules=rules) == ''
    assert check(partial, names=(), rules=rules) == 'Empty joint names on incoming trajectory.'


def test_empty_points_are_rejected_for_goals_and_mean_stop_on_the_topic():
    assert check([]) == 'Empty trajectory received.'
    assert check([], empty_means_stop=True) == ''
    # a stop needs no joint names either
    assert check([], names=(), empty_means_stop=True) == ''


def test_unknown_and_duplicate_joint_names():
    assert (
        check(GOOD, names=('a', 'b', 'x'))
        == "Incoming joint x doesn't match the controller's joints."
    )
    assert check(GOOD, names=('a', 'b', 'a')) == 'Incoming trajectory names joint a more than once.'


def test_final_velocity_must_be_zero_within_float_epsilon():
    # float32 epsilon is 1.1920929e-07
    assert check([pt(1.0, (1, 2, 3), (0, 1e-8, 0))]) == ''
    assert check([pt(1.0, (1, 2, 3), (0, 1e-6, 0))]) == (
        'Velocity of last trajectory point of joint b is not zero: 0.000001000000000'
    )
    rules = TrajectoryRules(JOINTS, allow_nonzero_velocity_at_trajectory_end=True)
    assert check([pt(1.0, (1, 2, 3), (0, 0.5, 0))], rules=rules) == ''
    # only the last point counts
    assert check([pt(1.0, (1, 2, 3), (1, 1, 1)), pt(2.0, (2, 2, 2), (0, 0, 0))]) == ''


def test_a_stamped_trajectory_ending_in_the_past_is_rejected():
    # stamp 10 s + last point 2 s = ends at 12 s
    assert check(GOOD, stamp_ns=10 * S, now_ns=13 * S) == (
        'Received trajectory with non-zero start time (10.000000) that ends in the past (12.000000)'
    )
    assert check(GOOD, stamp_ns=10 * S, now_ns=11 * S) == ''  # started, not yet over
    assert check(GOOD, stamp_ns=10 * S, now_ns=12 * S) == ''  # ends exactly now
    assert check(GOOD, stamp_ns=0, now_ns=10**6 * S) == ''  # zero stamp: start now


def test_time_from_start_must_strictly_increase():
    points = [pt(1.0, (1, 2, 3)), pt(1.0, (2, 3, 4))]
    assert check(points) == (
        'Time between points 0 and 1 is not strictly increasing, it is 1.000000 and 1.000000 '
        'respectively'
    )
    points = [pt(2.0, (1, 2, 3)), pt(1.5, (2, 3, 4))]
    assert 'points 0 and 1 is not strictly increasing' in check(points)


def test_a_negative_time_from_start_is_refused():
    # it would make the robot jump to that point at once
    assert check([pt(-1.0, (1, 2, 3))]) == 'Point 0 has a negative time_from_start (-1.000000 s)'
    assert check([pt(0.0, (1, 2, 3)), pt(1.0, (2, 3, 4))]) == ''  # zero: the start, allowed


def test_field_sizes_must_match_the_joint_names():
    assert check([pt(1.0, (1, 2))]) == (
        'Mismatch between joint_names size (3) and positions (2) at point #0.'
    )
    assert check([pt(1.0, (1, 2, 3)), pt(2.0, (1, 2, 3), (0, 0))]) == (
        'Mismatch between joint_names size (3) and velocities (2) at point #1.'
    )
    assert check([pt(1.0, (1, 2, 3), (), (0, 0, 0, 0))]) == (
        'Mismatch between joint_names size (3) and accelerations (4) at point #0.'
    )
    # without allow_integration_in_goal_trajectories positions are mandatory
    assert check([pt(1.0, (), (0, 0, 0))]) == (
        'Mismatch between joint_names size (3) and positions (0) at point #0.'
    )


def test_integration_allows_points_without_positions():
    rules = TrajectoryRules(JOINTS, allow_integration_in_goal_trajectories=True)
    assert check([pt(1.0, (), (1, 1, 1)), pt(2.0, (), (0, 0, 0))], rules=rules) == ''
    assert check([pt(1.0, (), (), (1, 1, 1))], rules=rules) == ''
    assert check([pt(1.0)], rules=rules) == (
        'The given trajectory has no position, velocity, or acceleration points.'
    )
    assert check([pt(1.0, (), (0, 0))], rules=rules) == (
        'Mismatch between joint_names size (3) and velocities (2) at point #0.'
    )


def test_effort_needs_an_effort_command_interface():
    points = [pt(1.0, (1, 2, 3), (), (), (5, 5, 5))]
    assert check(points) == (
        'Trajectories with effort fields are only supported for controllers using the '
        "'effort' command interface."
    )
    rules = TrajectoryRules(JOINTS, has_effort_command_interface=True)
    assert check(points, rules=rules) == ''
    assert check([pt(1.0, (1, 2, 3), (), (), (5, 5))], rules=rules) == (
        'Mismatch between joint_names size (3) and effort (2) at point #0.'
    )


def test_non_finite_values_are_rejected():
    assert check([pt(1.0, (1, math.nan, 3))]) == (
        'Non-finite value nan in positions of joint b at point #0.'
    )
    assert check([pt(1.0, (1, 2, 3), (0, 0, math.inf)), pt(2.0, (1, 2, 3))]) == (
        'Non-finite value inf in velocities of joint c at point #0.'
    )
    assert check([pt(1.0, (1, 2, 3), (), (-math.inf, 0, 0))]) == (
        'Non-finite value -inf in accelerations of joint a at point #0.'
    )


def test_to_controller_order_maps_jumbled_names():
    points = [pt(0.5, (30, 10, 20), (3, 1, 2)), pt(1.25, (31, 11, 21))]
    ordered, commanded = to_controller_order(('c', 'a', 'b'), points, JOINTS)
    assert commanded.tolist() == [True, True, True]
    assert ordered[0].time_from_start_s == 0.5
    assert ordered[0].positions.tolist() == [10.0, 20.0, 30.0]
    assert ordered[0].velocities.tolist() == [1.0, 2.0, 3.0]
    assert ordered[0].accelerations is None and ordered[0].effort is None
    assert ordered[1].time_from_start_s == 1.25
    assert ordered[1].positions.tolist() == [11.0, 21.0, 31.0]
    assert ordered[1].velocities is None


def test_to_controller_order_marks_omitted_joints():
    ordered, commanded = to_controller_order(('c',), [pt(1.0, (7,), (1,))], JOINTS)
    assert commanded.tolist() == [False, False, True]
    positions = ordered[0].positions
    assert math.isnan(positions[0]) and math.isnan(positions[1]) and positions[2] == 7.0
    assert ordered[0].velocities.tolist() == [0.0, 0.0, 1.0]


def test_fill_omitted_joints_holds_without_a_previous_trajectory():
    ordered, commanded = to_controller_order(('b',), [pt(1.0, (5,), (0,))], JOINTS)
    filled = fill_omitted_joints(ordered, commanded, np.array([1.0, 2.0, 3.0]))
    assert filled[0].positions.tolist() == [1.0, 5.0, 3.0]
    assert filled[0].velocities.tolist() == [0.0, 0.0, 0.0]
    assert math.isnan(ordered[0].positions[0])  # the input is not modified


def _previous_two_joints():
    """Linear: (0, 0) at t=0, (1, 10) at t=1, (2, 20) at t=2 (start time 0)."""
    trajectory = Trajectory(
        [TrajectoryPoint(1.0, [1.0, 10.0]), TrajectoryPoint(2.0, [2.0, 20.0])], 0.0
    )
    trajectory.set_point_before(0.0, TrajectoryPoint(0.0, [0.0, 0.0]))
    assert trajectory.sample(0.25) is not None  # the loop has started playing it
    return trajectory


def test_fill_omitted_joints_follows_the_previous_trajectory_and_its_end():
    previous = _previous_two_joints()
    ordered, commanded = to_controller_order(('a',), [pt(0.5, (5,))], ('a', 'b'))
    # the new trajectory starts at t = 0.5, so its point is due at t = 1.0
    filled = fill_omitted_joints(
        ordered, commanded, np.array([9.0, 9.0]), previous=previous, start_time_s=0.5
    )
    assert len(filled) == 2
    assert filled[0].time_from_start_s == 0.5
    assert filled[0].positions.tolist() == pytest.approx([5.0, 10.0], abs=1e-12)
    # the old course of b goes on until t = 2: appended, with a resting at 5
    assert filled[1].time_from_start_s == pytest.approx(1.5, abs=1e-12)
    assert filled[1].positions.tolist() == pytest.approx([5.0, 20.0], abs=1e-12)
    assert filled[1].velocities.tolist() == [0.0, 0.0]


def test_fill_omitted_joints_samples_velocities_between_points():
    previous = _previous_two_joints()
    ordered, commanded = to_controller_order(('a',), [pt(0.25, (5,), (0,))], ('a', 'b'))
    filled = fill_omitted_joints(
        ordered, commanded, np.array([9.0, 9.0]), previous=previous, start_time_s=0.5
    )
    # due at t = 0.75: b = 7.5 moving at 10/s (linear segment 0 -> 10 over 1 s)
    assert filled[0].positions.tolist() == pytest.approx([5.0, 7.5], abs=1e-12)
    assert filled[0].velocities.tolist() == pytest.approx([0.0, 10.0], abs=1e-12)
    assert [p.time_from_start_s for p in filled] == pytest.approx([0.25, 0.5, 1.5], abs=1e-12)
    assert filled[1].positions.tolist() == pytest.approx([5.0, 10.0], abs=1e-12)


def test_fill_omitted_joints_ignores_a_trajectory_not_yet_played():
    previous = Trajectory([TrajectoryPoint(1.0, [1.0, 10.0])], 0.0)
    ordered, commanded = to_controller_order(('a',), [pt(0.5, (5,))], ('a', 'b'))
    filled = fill_omitted_joints(
        ordered, commanded, np.array([9.0, 9.0]), previous=previous, start_time_s=0.5
    )
    assert len(filled) == 1
    assert filled[0].positions.tolist() == [5.0, 9.0]


def test_upsample_positions_gives_spline_knot_velocities():
    # times 1, 2, 3 s and positions 0, 1, 3: interior velocity 3 (1 + 2) / 4 = 2.25
    points = [pt(1.0, (0.0,)), pt(2.0, (1.0,)), pt(3.0, (3.0,))]
    out = upsample_positions(points, 0.0)
    assert [p.velocities for p in out] == [(0.0,), pytest.approx((2.25,)), (0.0,)]
    # untimed chunk at 10 Hz: times 0.1, 0.2, 0.3 s, so the velocity scales by 10
    untimed = [pt(0.0, (0.0,)), pt(0.0, (1.0,)), pt(0.0, (3.0,))]
    out = upsample_positions(untimed, 10.0)
    assert [p.time_from_start_ns for p in out] == [S // 10, 2 * S // 10, 3 * S // 10]
    assert out[1].velocities == pytest.approx((22.5,))
    # messages with velocities pass unchanged
    with_velocities = [pt(1.0, (0.0,), (0.0,))]
    assert upsample_positions(with_velocities, 10.0) is with_velocities


def test_command_interface_combinations():
    for legal in (
        ['position'],
        ['position', 'velocity'],
        ['position', 'velocity', 'acceleration'],
        ['velocity'],
        ['effort'],
        ['position', 'effort'],
        ['position', 'acceleration'],  # accepted by upstream's validator as well
    ):
        assert command_interface_combination_error(legal) == '', legal
    assert command_interface_combination_error(['velocity', 'acceleration']) == (
        "'velocity' command interface can be used either alone or 'position' command interface "
        'has to be present'
    )
    assert command_interface_combination_error(['acceleration']).startswith(
        "'acceleration' command interface can only be used"
    )
    assert command_interface_combination_error(['position', 'velocity', 'effort']) == (
        "'effort' command interface has to be used alone or with a 'position' interface"
    )


def test_state_interface_combinations_and_requirements():
    assert state_interface_combination_error(['position', 'velocity', 'acceleration']) == ''
    assert state_interface_combination_error(['velocity']) == (
        "'velocity' state interface cannot be used if 'position' interface is missing."
    )
    assert 'acceleration' in state_interface_combination_error(['position', 'acceleration'])
    assert interface_requirements_error(['velocity'], ['position']).startswith(
        "'velocity' command interface can only be used alone if"
    )
    assert interface_requirements_error(['effort'], ['position', 'velocity']) == ''
    assert interface_requirements_error(['position', 'effort'], ['position']).startswith(
        "'effort' command interface can only be used alone or with 'position'"
    )
    assert interface_requirements_error(['position', 'velocity'], ['position']) == ''
