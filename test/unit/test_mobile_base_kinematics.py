"""Mecanum, omni-wheel and tricycle kinematics, odometry and limiters: upstream's numbers."""

import math

import pytest

from py_controllers.controllers.mecanum_drive.kinematics import (
    MecanumGeometry,
    MecanumOdometry,
    forward,
    inverse,
)
from py_controllers.controllers.omni_wheel_drive.kinematics import OmniKinematics, OmniOdometry
from py_controllers.controllers.tricycle.kinematics import (
    ackermann_to_twist,
    steering_speed_scale,
    twist_to_ackermann,
)
from py_controllers.controllers.tricycle.limiters import SteeringLimiter, TractionLimiter

# --- mecanum (upstream test_mecanum_drive_controller.cpp) --------------------------------

UPSTREAM_TEST = MecanumGeometry(0.5, 1.0)  # wheels_radius 0.5, lx + ly = 1.0, no offset


def test_mecanum_inverse_of_upstream_step_command():
    # test_no_speed_limiter_when_not_configured: (10, 5, 3) -> fl 4, fr 36, rr 16, rl 24
    assert inverse(UPSTREAM_TEST, 10.0, 5.0, 3.0) == pytest.approx((4.0, 36.0, 16.0, 24.0))


def test_mecanum_inverse_of_upstream_forward_references():
    # when_reference_msg_received...: 1.5 m/s forward -> 3.0 on every wheel; chained 3.0 -> 6.0
    assert inverse(UPSTREAM_TEST, 1.5, 0.0, 0.0) == (3.0, 3.0, 3.0, 3.0)
    assert inverse(UPSTREAM_TEST, 3.0, 0.0, 0.0) == (6.0, 6.0, 6.0, 6.0)


def test_mecanum_sideways_turns_diagonal_pairs_against_each_other():
    fl, fr, rr, rl = inverse(UPSTREAM_TEST, 0.0, 1.0, 0.0)
    assert (fl, fr, rr, rl) == (-2.0, 2.0, -2.0, 2.0)
    assert forward(UPSTREAM_TEST, fl, fr, rr, rl) == pytest.approx((0.0, 1.0, 0.0))


@pytest.mark.parametrize('offset', [(0.0, 0.0, 0.0), (1.0, 2.0, 3.0), (-0.2, 0.1, -0.7)])
def test_mecanum_forward_inverts_inverse_with_base_frame_offset(offset):
    # test_mecanum_drive_controller_with_rotation's offset (1, 2, 3), r 0.05, k 0.2925
    g = MecanumGeometry(0.05, 0.2925, offset)
    twist = (0.3, -0.7, 0.4)
    assert forward(g, *inverse(g, *twist)) == pytest.approx(twist)


def test_mecanum_offset_base_frame_moves_the_centre():
    # base frame 1 m ahead of the centre: turning left about it moves the centre (1 m
    # behind) to the right at 1 m/s, so the wheels add -y to the spin
    g = MecanumGeometry(1.0, 1.0, (1.0, 0.0, 0.0))
    spin = inverse(MecanumGeometry(1.0, 1.0), 0.0, 0.0, 1.0)
    right = inverse(MecanumGeometry(1.0, 1.0), 0.0, -1.0, 0.0)
    assert inverse(g, 0.0, 0.0, 1.0) == pytest.approx([s + r for s, r in zip(spin, right)])
    assert inverse(g, 0.0, 0.0, 1.0) == pytest.approx((0.0, 0.0, 2.0, -2.0))


def test_mecanum_odometry_sideways_then_set_pose():
    odom = MecanumOdometry(UPSTREAM_TEST)
    for _ in range(10):  # odometry_set_service: 10 cycles at 50 Hz
        assert odom.update(*inverse(UPSTREAM_TEST, 0.0, 1.0, 0.0), 0.02)
    assert (odom.x, odom.y, odom.heading) == pytest.approx((0.0, 0.2, 0.0))
    assert (odom.vx, odom.vy, odom.wz) == pytest.approx((0.0, 1.0, 0.0))
    odom.set_pose(5.0, -2.0, 1.57079632679)
    for _ in range(10):  # facing +y: forward drives y up
        odom.update(*inverse(UPSTREAM_TEST, 1.0, 0.0, 0.0), 0.02)
    assert (odom.x, odom.y) == pytest.approx((5.0, -1.8))


def test_mecanum_odometry_refuses_tiny_steps():
    odom = MecanumOdometry(UPSTREAM_TEST)
    assert not odom.update(1.0, 1.0, 1.0, 1.0, 0.00005)
    assert odom.x == 0.0


def test_mecanum_geometry_refuses_zero_sizes():
    with pytest.raises(ValueError, match='wheels_radius'):
        MecanumGeometry(0.0, 1.0)
    with pytest.raises(ValueError, match='sum_of_robot_center_projection_on_X_Y_axis'):
        MecanumGeometry(0.1, 0.0)


# --- omni wheels (upstream test_omni_wheel_drive_controller.cpp and test_odometry.cpp) ----


@pytest.mark.parametrize(
    ('count', 'offset', 'expected'),
    [
        (3, 0.0, [-15.0, 8.66025, -8.66025]),  # 3_wheel_test
        (3, 1.0471975512, [-1.33975, 5.0, -18.6603]),  # 3_wheel_rot_test
        (4, 0.7853981634, [-5.0, 9.14214, -5.0, -19.1421]),  # 4_wheel_rot_test
        (5, 0.0, [-15.0, 1.42040, 8.96802, -2.78768, -17.6007]),  # 5_wheel_test
    ],
)
def test_omni_inverse_matches_upstream_wheel_commands(count, offset, expected):
    # robot_radius 0.5, wheel_radius 0.1, twist (1, 1, 1)
    kin = OmniKinematics(count, 0.5, 0.1, offset)
    assert kin.inverse(1.0, 1.0, 1.0) == pytest.approx(expected, abs=1e-4)


UPSTREAM_ODOM = OmniKinematics(4, 1.0, 0.1, 0.0)  # OmniOdometryTest's robot


@pytest.mark.parametrize(
    ('wheels', 'pose', 'twist'),
    [
        ([0.0, 10.0, 0.0, -10.0], (1.0, 0.0, 0.0), (1.0, 0.0, 0.0)),  # TestLinearMotionX
        ([-10.0, 0.0, 10.0, 0.0], (0.0, 1.0, 0.0), (0.0, 1.0, 0.0)),  # TestLinearMotionY
        ([-20.0, -20.0, -20.0, -20.0], (0.0, 0.0, 2.0), (0.0, 0.0, 2.0)),  # TestPureRotation
    ],
)
def test_omni_odometry_from_wheel_velocities(wheels, pose, twist):
    odom = OmniOdometry(UPSTREAM_ODOM)
    assert odom.update_from_velocity(wheels, 1.0)
    assert (odom.x, odom.y, odom.heading) == pytest.approx(pose, abs=1e-9)
    assert (odom.vx, odom.vy, odom.wz) == pytest.approx(twist, abs=1e-9)


def test_omni_odometry_exact_arc():
    # TestCurvedMotion_ExactArc: (1.5, 0.5, 1.0) for 1 s from wheels (-15, 5, -5, -25)
    odom = OmniOdometry(UPSTREAM_ODOM)
    assert UPSTREAM_ODOM.inverse(1.5, 0.5, 1.0) == pytest.approx([-15.0, 5.0, -5.0, -25.0])
    assert odom.update_from_velocity([-15.0, 5.0, -5.0, -25.0], 1.0)
    x = 1.5 * math.sin(1.0) + 0.5 * (math.cos(1.0) - 1.0)
    y = -1.5 * (math.cos(1.0) - 1.0) + 0.5 * math.sin(1.0)
    assert (odom.x, odom.y, odom.heading) == pytest.approx((x, y, 1.0), abs=1e-9)


def test_omni_odometry_open_loop_and_tiny_steps():
    odom = OmniOdometry(UPSTREAM_ODOM)
    assert not odom.update_from_velocity([1.0, 1.0, 1.0, 1.0], 1e-7)  # TestSmallDtRejection
    assert odom.x == 0.0
    assert odom.update_open_loop(2.0, 0.5, 1.0, 1.0)  # TestOpenLoopUpdate
    x = 2.0 * math.sin(1.0) + 0.5 * (math.cos(1.0) - 1.0)
    y = -2.0 * (math.cos(1.0) - 1.0) + 0.5 * math.sin(1.0)
    assert (odom.x, odom.y, odom.heading) == pytest.approx((x, y, 1.0), abs=1e-12)
    assert (odom.vx, odom.vy, odom.wz) == (2.0, 0.5, 1.0)


def test_omni_odometry_from_positions_latches_the_first_sample():
    # TestUpdateFromPosition moves the wheels 10 rad from 0 in 1 s; the first sample only
    # latches here (see OmniOdometry), so the move is measured from a latched 0
    odom = OmniOdometry(UPSTREAM_ODOM)
    assert not odom.update_from_position([3.0, 3.0, 3.0, 3.0], 1.0)
    assert odom.x == 0.0
    assert odom.update_from_position([3.0, 13.0, 3.0, -7.0], 1.0)
    assert (odom.x, odom.vx) == pytest.approx((1.0, 1.0))


def test_omni_refuses_fewer_than_three_wheels():
    with pytest.raises(ValueError, match='at least 3 wheels'):
        OmniKinematics(2, 0.5, 0.1, 0.0)


# --- tricycle (upstream tricycle_controller tests) ----------------------------------------


def test_tricycle_straight_and_turning_commands():
    # correct_initialization_using_parameters: wheelbase 0.4, radius 1.0, (1, 0) -> (0, 1)
    assert twist_to_ackermann(1.0, 0.0, 0.4, 1.0) == (0.0, 1.0)
    alpha, ws = twist_to_ackermann(1.0, 1.0, 1.0, 0.1)
    assert alpha == pytest.approx(math.pi / 4)
    assert ws == pytest.approx(10.0 * math.sqrt(2.0))
    assert ackermann_to_twist(ws, alpha, 1.0, 0.1) == pytest.approx((1.0, 1.0))
    # turning on the spot: wheel across, speed |wz| L / r
    assert twist_to_ackermann(0.0, -2.0, 0.5, 0.1) == pytest.approx((-math.pi / 2, 10.0))


def test_tricycle_speed_scale_while_steering():
    assert steering_speed_scale(0.5) == 1.0
    assert steering_speed_scale(math.pi / 3) == pytest.approx(0.5)
    assert steering_speed_scale(2.0) == 0.01


def test_traction_limiter_no_limits():  # testNoLimits
    limiter = TractionLimiter()
    assert limiter.limit(10.0, 0.0, 0.0, 0.5) == 10.0
    assert limiter.limit(-10.0, 0.0, 0.0, 0.5) == -10.0


def test_traction_limiter_velocity_and_acceleration():  # testVelocityLimits
    limiter = TractionLimiter(0.5, 1.0, 0.5, 1.0, 2.0, 3.0, 0.5, 5.0)
    assert [limiter.limit_velocity(v) for v in (10.0, 0.1, 0.0, -10.0, -0.1)] == [
        1.0,
        0.5,
        0.5,
        -1.0,
        -0.5,
    ]
    # acceleration limits first: 1 m/s^2 for 0.5 s
    assert limiter.limit(10.0, 0.0, 0.0, 0.5) == 0.5
    assert limiter.limit(-10.0, 0.0, 0.0, 0.5) == -0.5


def test_traction_limiter_acceleration_and_jerk_alone():  # testVelocityNoLimits
    accel = TractionLimiter(min_acceleration=0.5, max_acceleration=1.0)
    assert accel.limit(10.0, 0.0, 0.0, 0.5) == 0.5
    assert accel.limit_acceleration(-10.0, 0.0, 0.5) == -0.5
    jerk = TractionLimiter(min_jerk=0.5, max_jerk=5.0)
    assert jerk.limit(10.0, 0.0, 0.0, 0.5) == 2.5  # 5 * 2 * 0.5^2
    assert jerk.limit(-10.0, 0.0, 0.0, 0.5) == -2.5


@pytest.mark.parametrize(
    'kwargs',
    [
        {'min_velocity': -10.0},
        {'min_velocity': -10.0, 'max_velocity': -20.0},
        {'max_velocity': -10.0},
        {'min_velocity': 20.0, 'max_velocity': 10.0},
        {'min_acceleration': -10.0},
        {'min_acceleration': 20.0, 'max_acceleration': 10.0},
        {'max_deceleration': -10.0},
        {'min_deceleration': 20.0, 'max_deceleration': 10.0},
        {'min_jerk': -10.0},
        {'min_jerk': 20.0, 'max_jerk': 10.0},
    ],
)
def test_traction_limiter_refuses_wrong_parameters(kwargs):  # testWrongParams
    with pytest.raises(ValueError):
        TractionLimiter(**kwargs)


def test_steering_limiter_position_velocity_acceleration():
    limiter = SteeringLimiter(min_position=-1.57, max_velocity=1.0)
    assert limiter.position == (-1.57, 1.57)  # the missing bound mirrors the given one
    assert limiter.limit(1.0, 0.0, 0.0, 0.1) == pytest.approx(0.1)  # 1 rad/s for 0.1 s
    assert SteeringLimiter(max_position=1.0).limit(3.0, 0.0, 0.0, 0.1) == 1.0
    accel = SteeringLimiter(max_acceleration=2.0)  # 2 * 2 * 0.1^2 = 0.04
    assert accel.limit(1.0, 0.0, 0.0, 0.1) == pytest.approx(0.04)
    with pytest.raises(ValueError):
        SteeringLimiter(max_velocity=-1.0)
