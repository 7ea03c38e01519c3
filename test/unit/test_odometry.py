"""Diff drive odometry with worked numbers."""

import math

import pytest

from py_controllers.controllers.diff_drive.controller import _mean_value
from py_controllers.controllers.diff_drive.odometry import Odometry
from py_controllers.hardware_interface.handle import StateInterface

# the arc: wheels at 1 and 2 m/s, separation 1 m -> v = 1.5 m/s, w = 1 rad/s, radius 1.5 m;
# after 1 s: heading 1, x = 1.5 sin 1, y = 1.5 (1 - cos 1)
ARC_X = 1.5 * math.sin(1.0)  # 1.262206...
ARC_Y = 1.5 * (1.0 - math.cos(1.0))  # 0.689544...


def odom(window: int = 10, left_radius: float = 1.0, right_radius: float = 1.0) -> Odometry:
    return Odometry(
        wheel_separation=1.0,
        left_wheel_radius=left_radius,
        right_wheel_radius=right_radius,
        velocity_rolling_window_size=window,
    )


def pose(o: Odometry) -> tuple[float, float, float]:
    return (o.x, o.y, o.heading)


def test_straight_line():
    o = odom()
    assert o.update_from_velocity(2.0, 2.0, 0.5)  # 2 rad/s * 1 m = 2 m/s for 0.5 s
    assert pose(o) == pytest.approx((1.0, 0.0, 0.0), abs=1e-12)
    assert (o.linear, o.angular) == (2.0, 0.0)


def test_pure_rotation():
    o = odom()
    assert o.update_from_velocity(-0.5, 0.5, 1.0)  # w = (0.5 - -0.5) / 1 m = 1 rad/s
    assert pose(o) == pytest.approx((0.0, 0.0, 1.0), abs=1e-12)
    assert (o.linear, o.angular) == (0.0, 1.0)


def test_arc_from_velocity_in_one_step_is_exact():
    o = odom()
    assert o.update_from_velocity(1.0, 2.0, 1.0)
    assert pose(o) == pytest.approx((ARC_X, ARC_Y, 1.0), abs=1e-9)
    assert (o.linear, o.angular) == (1.5, 1.0)


def test_arc_with_unequal_wheel_radii():
    # 2 rad/s * 0.5 m = 1 m/s on the left, 2 rad/s * 1 m = 2 m/s on the right
    o = odom(left_radius=0.5)
    o.update_from_velocity(2.0, 2.0, 1.0)
    assert pose(o) == pytest.approx((ARC_X, ARC_Y, 1.0), abs=1e-9)


def test_arc_from_positions_in_small_steps_matches():
    o = odom()
    # encoders not at zero on start: the first sample is latched, the pose does not jump
    assert not o.update_from_position(5.0, -3.0, 0.01)
    assert pose(o) == (0.0, 0.0, 0.0)
    for k in range(1, 101):  # 100 steps of 10 ms at 1 and 2 rad/s
        assert o.update_from_position(5.0 + 0.01 * k, -3.0 + 0.02 * k, 0.01)
    assert pose(o) == pytest.approx((ARC_X, ARC_Y, 1.0), abs=1e-9)
    assert o.linear == pytest.approx(1.5, abs=1e-9)
    assert o.angular == pytest.approx(1.0, abs=1e-9)


def test_tiny_dt_is_rejected():
    o = odom()
    assert not o.update_from_velocity(1.0, 1.0, 1e-7)
    assert not o.update_from_velocity(1.0, 1.0, -1e-7)
    assert not o.update_open_loop(1.0, 1.0, 0.0)
    assert pose(o) == (0.0, 0.0, 0.0)
    assert (o.linear, o.angular) == (0.0, 0.0)


def test_tiny_dt_keeps_the_latched_wheel_angles():
    o = odom()
    o.update_from_position(0.0, 0.0, 0.01)
    assert not o.update_from_position(0.5, 0.5, 1e-9)
    assert o.update_from_position(1.0, 1.0, 0.5)  # the whole 1 rad of travel counts
    assert pose(o) == pytest.approx((1.0, 0.0, 0.0), abs=1e-12)


def test_tiny_rotation_uses_the_midpoint_heading():
    # dtheta = 1e-7 rad is below the 1e-6 arc threshold: RK2 moves along heading + dtheta/2.
    # Euler with the start heading pi/2 would give x = cos(pi/2) = 6e-17 instead of -5e-8.
    o = odom()
    o.set_pose(0.0, 0.0, math.pi / 2)
    assert o.update_open_loop(1.0, 1e-7, 1.0)
    assert o.x == pytest.approx(-0.5e-7, rel=1e-6)
    assert o.y == pytest.approx(1.0, abs=1e-12)
    assert o.heading == pytest.approx(math.pi / 2 + 1e-7, abs=1e-15)


def test_both_sides_of_the_arc_threshold_match_the_closed_form():
    # 1 m on an arc turning by dtheta: x = sin(dtheta) / dtheta ~ 1, y = (1 - cos dtheta) /
    # dtheta ~ dtheta / 2. The arc formula loses digits here (1 - cos 1e-6 ~ 5e-13), which is
    # why RK2 takes over below 1e-6 rad.
    for dtheta in (0.999e-6, 1.001e-6):
        o = odom()
        o.update_open_loop(1.0, dtheta, 1.0)
        assert pose(o) == pytest.approx((1.0, dtheta / 2, dtheta), abs=1e-9)


def test_open_loop_square_side_and_turn_reports_the_command():
    o = odom(window=4)
    for _ in range(100):
        assert o.update_open_loop(0.5, 0.0, 0.01)
    assert (o.linear, o.angular) == (0.5, 0.0)  # the command itself, no rolling mean
    for _ in range(100):
        o.update_open_loop(0.0, math.pi / 2, 0.01)
    assert pose(o) == pytest.approx((0.5, 0.0, math.pi / 2), abs=1e-9)
    assert (o.linear, o.angular) == (0.0, math.pi / 2)


def test_rolling_mean_over_the_window():
    o = odom(window=4)
    o.update_from_velocity(1.0, 1.0, 0.1)
    o.update_from_velocity(2.0, 2.0, 0.1)
    assert o.linear == pytest.approx(1.5, abs=1e-12)  # mean of the samples so far
    for v in (3.0, 4.0, 5.0):
        o.update_from_velocity(v, v, 0.1)
    assert o.linear == pytest.approx((2 + 3 + 4 + 5) / 4, abs=1e-12)  # 1 has left
    o.update_from_velocity(-1.0, 1.0, 0.1)  # w = 2 rad/s, v = 0
    assert o.linear == pytest.approx((3 + 4 + 5 + 0) / 4, abs=1e-12)
    assert o.angular == pytest.approx(2.0 / 4, abs=1e-12)


def test_a_window_of_zeros_reads_exactly_zero():
    o = odom(window=3)
    for v in (1e8, 1e-8, 0.1, 1e8, 0.3, 1e-8):
        o.update_from_velocity(v, v, 0.01)
    for _ in range(3):
        o.update_from_velocity(0.0, 0.0, 0.01)
    assert o.linear == 0.0


def test_set_pose_continues_from_the_new_pose():
    o = odom()
    o.update_from_velocity(1.0, 2.0, 1.0)
    o.set_pose(1.0, 2.0, 0.5)
    assert (*pose(o), o.linear, o.angular) == (1.0, 2.0, 0.5, 0.0, 0.0)
    o.update_from_velocity(1.0, 1.0, 1.0)  # 1 m along heading 0.5
    assert pose(o) == pytest.approx((1.0 + math.cos(0.5), 2.0 + math.sin(0.5), 0.5), abs=1e-12)


def test_set_pose_keeps_the_latched_wheel_angles():
    o = odom()
    o.update_from_position(3.0, 3.0, 0.01)
    o.set_pose(1.0, 2.0, 0.0)
    assert o.update_from_position(4.0, 4.0, 1.0)  # 1 rad since the last sample still counts
    assert pose(o) == pytest.approx((2.0, 2.0, 0.0), abs=1e-12)


def test_reset_and_reset_accumulators_relatch_the_wheels():
    o = odom()
    o.update_from_position(0.0, 0.0, 0.01)
    o.update_from_position(1.0, 1.0, 0.5)
    o.reset()
    assert (*pose(o), o.linear, o.angular) == (0.0, 0.0, 0.0, 0.0, 0.0)
    assert not o.update_from_position(10.0, 10.0, 0.01)  # wheels moved while reset: no jump
    assert pose(o) == (0.0, 0.0, 0.0)
    o.update_from_position(11.0, 11.0, 0.5)
    assert pose(o) == pytest.approx((1.0, 0.0, 0.0), abs=1e-12)
    o.reset_accumulators()  # e.g. on re-activation: pose kept, wheels re-latched
    assert not o.update_from_position(20.0, 20.0, 0.01)
    assert pose(o) == pytest.approx((1.0, 0.0, 0.0), abs=1e-12)


def test_invalid_construction_names_the_parameter():
    with pytest.raises(ValueError, match=r'wheel_separation'):
        Odometry(0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match=r'velocity_rolling_window_size'):
        Odometry(1.0, 1.0, 1.0, velocity_rolling_window_size=0)


def test_the_diff_drive_averages_each_sides_wheels_feedback():
    """Several wheels a side: their feedback's mean; one wheel: its value as it is."""
    one = [StateInterface('left', 'position', value=1.25)]
    three = [StateInterface(f'w{i}', 'position', value=v) for i, v in enumerate((1.0, 2.0, 4.5))]
    assert _mean_value(one) == 1.25
    assert _mean_value(three) == 2.5
