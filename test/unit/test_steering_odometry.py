"""Steering odometry and kinematics against upstream's test_steering_odometry.cpp (numbers
re-expressed) and the controller tests' first-cycle commands."""

import math

import pytest

from py_controllers.controllers.steering.kinematics import Configuration
from py_controllers.controllers.steering.steering_odometry import Geometry, SteeringOdometry

ALL = list(Configuration)


def odometry(config, radius=1.0, wheelbase=2.0, track=1.0):
    return SteeringOdometry(config, Geometry(radius, wheelbase, track), 1)


def exact_pose(x, y, heading, linear, angular, dt):
    """The pose after a constant twist: exact arc, RK2 below 1e-6 rad of turn."""
    if abs(angular * dt) < 1e-6:
        mid = heading + angular * dt / 2
        return (
            x + linear * math.cos(mid) * dt,
            y + linear * math.sin(mid) * dt,
            heading + angular * dt,
        )
    end = heading + angular * dt
    r = linear / angular
    return (
        x + r * (math.sin(end) - math.sin(heading)),
        y - r * (math.cos(end) - math.cos(heading)),
        end,
    )


# --- SteeringOdometryIntegratorTest (integrates_open_loop_straight / _arcs) ---------------
OPEN_LOOP_CASES = [
    ((0.0, 0.0, 0.0), 2.0, 0.0, 0.5),
    ((-1.2, 0.7, 0.4), 1.1, 0.0, 0.35),
    *[((0.0, 0.0, 0.0), 1.0, d, 1.0) for d in (-1.0, 1.0)],
    *[((0.8, -0.45, -0.3), 1.3, d * 0.45, 0.6) for d in (-1.0, 1.0)],
]


@pytest.mark.parametrize('config', ALL)
@pytest.mark.parametrize(('start', 'linear', 'angular', 'dt'), OPEN_LOOP_CASES)
def test_open_loop_integrates_the_exact_pose(config, start, linear, angular, dt):
    odom = SteeringOdometry(config, Geometry(1.0, 1.0), 1)
    odom.set_pose(*start)
    odom.update_open_loop(linear, angular, dt)
    x, y, heading = exact_pose(*start, linear, angular, dt)
    assert odom.x == pytest.approx(x, abs=1e-10)
    assert odom.y == pytest.approx(y, abs=1e-10)
    assert odom.heading == pytest.approx(heading, abs=1e-10)
    assert (odom.linear, odom.angular) == (linear, angular)


def test_initial_pose_is_zero():
    odom = odometry(Configuration.ACKERMANN, 1.0, 2.0, 3.0)
    assert (odom.x, odom.y, odom.heading) == (0.0, 0.0, 0.0)


# --- forward kinematics: ackermann_odometry, bicycle_odometry, tricycle_odometry ------------
@pytest.mark.parametrize(
    ('config', 'traction', 'steering', 'linear'),
    [
        (Configuration.ACKERMANN, [1.0, 1.0], [0.1, 0.1], 1.002),
        (Configuration.BICYCLE, [1.0], [0.1], 1.0),
        (Configuration.TRICYCLE, [1.0, 1.0], [0.1], 1.002),
    ],
)
def test_closed_loop_odometry(config, traction, steering, linear):
    odom = odometry(config, 1.0, 1.0, 1.0)
    assert odom.update_from_velocity(traction, steering, 0.1)
    assert odom.linear == pytest.approx(linear, abs=1e-3)
    assert odom.angular == pytest.approx(0.1, abs=1e-3)
    assert odom.x == pytest.approx(0.1, abs=1e-3)
    assert odom.heading == pytest.approx(0.01, abs=1e-3)


# --- inverse kinematics: *_IK_linear, *_IK_left, *_IK_right ---------------------------------
@pytest.mark.parametrize('config', ALL)
def test_ik_straight_ahead(config):
    odom = odometry(config)
    odom.update_open_loop(1.0, 0.0, 1.0)
    traction, steering = odom.get_commands(1.0, 0.0, True)
    assert traction == [1.0] * (1 if config is Configuration.BICYCLE else 2)
    assert steering == [0.0] * (2 if config is Configuration.ACKERMANN else 1)


@pytest.mark.parametrize('config', ALL)
@pytest.mark.parametrize('side', [1.0, -1.0])
def test_ik_turning_already_steered(config, side):
    odom = odometry(config)
    odom.update_from_position([0.0], [0.2 * side], 1.0)  # already steered
    traction, steering = odom.get_commands(1.0, 0.1 * side, False)
    assert all(s * side > 0.0 for s in steering)
    if config is Configuration.BICYCLE:
        assert traction == [1.0]
        return
    right, left = traction
    assert right > 0.0 and left > 0.0
    assert (right - left) * side > 0.0  # the outer wheel runs faster
    if config is Configuration.ACKERMANN:
        right_angle, left_angle = steering
        assert (abs(left_angle) - abs(right_angle)) * side > 0.0  # the inner wheel steers more


@pytest.mark.parametrize('config', ALL)
def test_reduce_wheel_speed_until_steering_reached(config):
    odom = odometry(config)
    odom.update_from_position([0.0], [-0.785], 1.0)  # steered close to the target
    steered, _ = odom.get_commands(1.0, -0.5, False, True)
    odom.update_from_position([0.0], [-0.1], 1.0)  # far from the target angle
    full, _ = odom.get_commands(1.0, -0.5, False, False)
    reduced, steering = odom.get_commands(1.0, -0.5, False, True)
    assert steering[0] < 0.0
    assert all(0.0 < r < f for r, f in zip(reduced, full))
    if config is Configuration.BICYCLE:
        assert steered == [1.0] and full == [1.0]
        odom.update_from_position([0.0], [math.pi], 1.0)  # larger error: the minimum scale
        smallest, _ = odom.get_commands(1.0, -0.5, False, True)
        assert 0.0 < smallest[0] < reduced[0]
        # scale cos(1.5608)/cos(pi/6): the floor the speed never drops below
        assert smallest[0] == pytest.approx(math.cos(1.5608) / math.cos(math.pi / 6))
    else:
        assert steered[0] < steered[1]  # right is the inner wheel turning right


# --- the controllers' first cycle (test_update_logic of each controller test) ---------------
UPSTREAM_WHEELBASE, UPSTREAM_RADIUS = 3.24644, 0.45


@pytest.mark.parametrize(
    ('config', 'track', 'traction', 'steering'),
    [
        (Configuration.ACKERMANN, 1.76868, [0.22222222222222224] * 2, [1.4179821977774734] * 2),
        (Configuration.BICYCLE, 0.0, [0.1 / 0.45], [1.4179821977774734]),
        (Configuration.TRICYCLE, 1.212121, [0.22222222222222224] * 2, [1.4179821977774734]),
    ],
)
def test_first_cycle_commands_of_the_controller_tests(config, track, traction, steering):
    odom = SteeringOdometry(config, Geometry(UPSTREAM_RADIUS, UPSTREAM_WHEELBASE, track), 10)
    n_traction = 1 if config is Configuration.BICYCLE else 2
    n_steering = 2 if config is Configuration.ACKERMANN else 1
    odom.update_from_velocity([0.5] * n_traction, [0.0] * n_steering, 0.01)  # steering at 0
    got_traction, got_steering = odom.get_commands(0.1, 0.2, False)
    assert got_traction == pytest.approx(traction, abs=1e-6)
    assert got_steering == pytest.approx(steering, abs=1e-6)


def test_ackermann_pair_estimate_recovers_the_middle_angle():
    """The wheel angles the IK commands, measured back, give the middle angle again, so a
    settled Ackermann car reports exactly the commanded twist."""
    odom = SteeringOdometry(Configuration.ACKERMANN, Geometry(0.45, 3.24644, 1.76868), 1)
    _, (right, left) = odom.get_commands(0.1, 0.2, True)
    odom.update_from_velocity([0.0, 0.0], [right, left], 0.01)
    assert odom.steer_pos == pytest.approx(math.atan(0.2 * 3.24644 / 0.1), abs=1e-12)
    traction, _ = odom.get_commands(0.1, 0.2, False)
    odom.update_from_velocity(traction, [right, left], 0.01)
    assert odom.linear == pytest.approx(0.1, abs=1e-12)
    assert odom.angular == pytest.approx(0.2, abs=1e-12)


def test_position_feedback_latches_the_first_sample():
    odom = SteeringOdometry(Configuration.BICYCLE, Geometry(0.5, 1.0), 1)
    assert not odom.update_from_position([7.0], [0.0], 0.1)  # encoder not at zero: latched
    assert (odom.x, odom.linear) == (0.0, 0.0)
    assert odom.update_from_position([7.2], [0.0], 0.1)  # 2 rad/s * 0.5 m
    assert odom.linear == pytest.approx(1.0)
    assert odom.x == pytest.approx(0.1)


def test_reverse_with_zero_speed_steers_sideways_like_upstream():
    odom = odometry(Configuration.BICYCLE)
    _, steering = odom.get_commands(0.0, 0.5, True)
    assert steering == [pytest.approx(math.pi / 2)]
    _, steering = odom.get_commands(0.0, 0.0, True)
    assert steering == [0.0]
