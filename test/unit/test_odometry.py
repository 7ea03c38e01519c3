"""Diff drive odometry with worked numbers."""

import math

import pytest

from py_controllers.controllers.diff_drive.odometry import Odometry


def odom(**kw):
    return Odometry(wheel_separation=1.0, left_wheel_radius=1.0, right_wheel_radius=1.0, **kw)


def test_straight_line():
    o = odom()
    assert o.update_from_velocity(2.0, 2.0, 0.5)  # 2 rad/s * 1 m = 2 m/s for 0.5 s
    assert (o.x, o.y, o.heading) == pytest.approx((1.0, 0.0, 0.0), abs=1e-12)
    assert o.linear == pytest.approx(2.0) and o.angular == 0.0


def test_pure_rotation():
    o = odom()
    o.update_from_velocity(-0.5, 0.5, 1.0)  # w = (0.5 - -0.5) / 1 = 1 rad/s
    assert (o.x, o.y, o.heading) == pytest.approx((0.0, 0.0, 1.0), abs=1e-12)


def test_arc_is_exact():
    # wheels 1 and 2 m/s, separation 1 m: v = 1.5 m/s, w = 1 rad/s, radius 1.5 m
    o = odom()
    o.update_from_velocity(1.0, 2.0, 1.0)
    assert o.x == pytest.approx(1.5 * math.sin(1.0), abs=1e-6)
    assert o.y == pytest.approx(1.5 * (1.0 - math.cos(1.0)), abs=1e-6)
    assert o.heading == pytest.approx(1.0, abs=1e-12)


def test_arc_from_positions_in_small_steps():
    o = odom()
    assert not o.update_from_position(5.0, -3.0, 0.01)  # first call latches, no jump
    for k in range(1, 101):
        o.update_from_position(5.0 + 0.01 * k, -3.0 + 0.02 * k, 0.01)
    assert o.x == pytest.approx(1.5 * math.sin(1.0), abs=1e-6)
    assert o.y == pytest.approx(1.5 * (1.0 - math.cos(1.0)), abs=1e-6)
    assert o.heading == pytest.approx(1.0, abs=1e-9)


def test_tiny_dt_is_rejected():
    o = odom()
    assert not o.update_from_velocity(1.0, 1.0, 1e-7)
    assert not o.update_open_loop(1.0, 1.0, 0.0)
    assert (o.x, o.y, o.heading) == (0.0, 0.0, 0.0)


def test_tiny_rotation_uses_midpoint_heading():
    o = odom()
    o.set_pose(0.0, 0.0, math.pi / 2)
    o.update_open_loop(1.0, 1e-7, 1.0)  # dtheta below the arc threshold
    assert o.x == pytest.approx(math.cos(math.pi / 2 + 0.5e-7), abs=1e-12)
    assert o.y == pytest.approx(1.0, abs=1e-12)


def test_open_loop_square_side_and_turn():
    o = odom()
    for _ in range(100):
        o.update_open_loop(0.5, 0.0, 0.01)
    for _ in range(100):
        o.update_open_loop(0.0, math.pi / 2, 0.01)
    assert (o.x, o.y, o.heading) == pytest.approx((0.5, 0.0, math.pi / 2), abs=1e-9)


def test_rolling_mean_and_set_pose():
    o = odom(velocity_rolling_window_size=4)
    for v in (1.0, 2.0, 3.0, 4.0, 5.0):
        o.update_open_loop(v, 0.0, 0.1)
    assert o.linear == pytest.approx((2 + 3 + 4 + 5) / 4)
    o.set_pose(1.0, 2.0, 0.5)
    assert (o.x, o.y, o.heading, o.linear) == (1.0, 2.0, 0.5, 0.0)
