"""The ROS-free pieces of examples/ros2_control_demos: upstream's random numbers, exactly;
example 7's trajectory sampling and reference; example 14's stod; the log throttle."""

import math

import numpy as np
import pytest
from ros2_control_demos_py.common import (
    MINSTD_M,
    MinstdRand,
    Throttle,
    generate_canonical,
    uniform_from_time,
)
from ros2_control_demos_py.r6bot_interpolation import Trajectory, sample, trajectory_problem
from ros2_control_demos_py.socket_sensor import leading_number


def test_minstd_rand_is_the_standard_engine():
    # the C++ standard ([rand.predef]): the 10000th draw of a default-constructed
    # minstd_rand (seed 1) is 399268537
    rng = MinstdRand(1)
    for _ in range(9999):
        rng()
    assert rng() == 399268537
    assert MinstdRand(1)() == 48271
    assert MinstdRand(0).x == 1  # libstdc++: a seed of 0 (mod m) becomes 1
    assert MinstdRand(MINSTD_M + 5).x == 5


def test_generate_canonical_takes_two_draws_as_libstdcxx():
    # k = 2 draws of a 31-bit engine: (g1 - 1 + (g2 - 1) * r) / r^2, r = 2^31 - 2
    rng = MinstdRand(7)
    g1, g2 = rng(), rng()
    r = float(2**31 - 2)
    assert generate_canonical(MinstdRand(7)) == ((g1 - 1) + (g2 - 1) * r) / (r * r)


def test_fake_sensor_reading_changes_with_the_second_and_the_index():
    first = uniform_from_time(0, 5.0, now_s=1_700_000_000.2)
    assert first == uniform_from_time(0, 5.0, now_s=1_700_000_000.9)  # same second
    assert first != uniform_from_time(0, 5.0, now_s=1_700_000_001.0)
    assert first != uniform_from_time(1, 5.0, now_s=1_700_000_000.2)
    assert 0.0 <= first < 5.0
    rng = MinstdRand(1_700_000_000)
    assert first == generate_canonical(rng) * 5.0


def test_throttle_lets_one_through_per_period():
    now = [0]
    throttle = Throttle(500, clock=lambda: now[0])
    seen = []
    for ms in range(0, 2001, 100):
        now[0] = ms * 1_000_000
        seen.append(throttle.ready())
    assert [ms for ms, ok in zip(range(0, 2001, 100), seen) if ok] == [0, 500, 1000, 1500, 2000]


def trajectory():
    return Trajectory(
        positions=((0.0, 0.0), (1.0, 2.0), (2.0, 4.0), (3.0, 6.0)),
        velocities=((0.0, 0.0), (1.0, 1.0), (1.0, 1.0), (0.0, 0.0)),
        total_s=3.0,
    )


def test_sampling_is_upstreams_formula():
    positions, velocities = [0.0, 0.0], [0.0, 0.0]
    # t = 1.2: ind = min(int(1.2 * 4 / 3), 2) = 1, delta = min(1.2 - 1 * 3 / 4, 1) = 0.45
    assert not sample(trajectory(), 1.2, positions, velocities)
    assert positions == pytest.approx([1.45, 2.9])
    assert velocities == pytest.approx([1.0, 1.0])
    # t = 2.9: ind = min(3, 2) = 2, delta = min(2.9 - 1.5, 1) = 1: the next point
    assert not sample(trajectory(), 2.9, positions, velocities)
    assert positions == [3.0, 6.0]
    # from the last point's time on: its positions, velocities 0
    velocities = [5.0, 5.0]
    assert sample(trajectory(), 3.0, positions, velocities)
    assert (positions, velocities) == ([3.0, 6.0], [0.0, 0.0])


@pytest.mark.parametrize(
    ('positions', 'velocities', 'total', 'problem'),
    [
        ([[0.0, 0.0]], [[0.0, 0.0]], 1.0, 'at least 2 points'),
        ([[0.0], [1.0]], [[0.0], [0.0]], 1.0, 'expected 2 of each'),
        ([[0.0, 0.0], [1.0, math.nan]], [[0.0, 0.0], [0.0, 0.0]], 1.0, 'not a finite'),
        ([[0.0, 0.0], [1.0, 1.0]], [[0.0, math.inf], [0.0, 0.0]], 1.0, 'not a finite'),
        ([[0.0, 0.0], [1.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]], 0.0, 'must be > 0'),
    ],
)
def test_a_trajectory_the_sampling_cannot_follow_is_refused(positions, velocities, total, problem):
    assert problem in trajectory_problem(positions, velocities, total, 2)
    assert trajectory_problem([[0.0, 0.0]] * 2, [[0.0, 0.0]] * 2, 1.0, 2) == ''


@pytest.mark.parametrize(
    ('text', 'value'),
    [('0.5', 0.5), ('0.50.5', 0.5), ('-1e-07', -1e-07), ('  3', 3.0), ('0', 0.0), ('.25x', 0.25)],
)
def test_socket_text_is_read_as_stod_reads_it(text, value):
    assert leading_number(text) == value


def test_socket_text_without_a_number_is_nan():
    assert math.isnan(leading_number('abc'))
    assert math.isnan(leading_number('nan'))


def test_the_pseudo_inverse_drops_tiny_singular_values():
    from ros2_control_demos_py.r6bot_reference import pseudo_inverse

    matrix = np.diag([2.0, 1e-9])
    assert np.allclose(pseudo_inverse(matrix), np.diag([0.5, 0.0]))


def test_r6bot_reference_draws_a_closed_curve_with_the_tool():
    # the tool's path: x(t) = 0.9/pi sin(2 pi t), y(t) = 0.45/pi (cos(2 pi t) - 1) over
    # t in [0, 1] (3 s), the integral of example 7's Cartesian velocity
    from pathlib import Path

    import xacro
    from ros2_control_demos_py.r6bot_reference import POINTS, reference_points

    from py_controllers.kinematics.pinocchio_kinematics import KinematicsInterfacePinocchio

    root = Path(__file__).resolve().parents[1] / 'fixtures' / 'ros2_control_demos' / 'example_7'
    urdf = xacro.process_file(str(root / 'urdf' / 'r6bot.urdf.xacro')).toxml()
    joints, points = reference_points(urdf)
    assert joints == [f'joint_{i}' for i in range(1, 7)]
    assert len(points) == POINTS
    assert points[-1].time_s == 3.0 and points[-1].velocities == [0.0] * 6
    kinematics = KinematicsInterfacePinocchio()
    kinematics.initialize(urdf, {'base': 'base_link', 'tip': 'tool0'})
    start = kinematics.calculate_link_transform(points[0].positions, 'tool0')[:3, 3]
    for point in points[::20]:
        t = point.time_s / 3.0
        tool = kinematics.calculate_link_transform(point.positions, 'tool0')[:3, 3] - start
        expected = [
            0.9 / math.pi * math.sin(2 * math.pi * t),
            0.45 / math.pi * (math.cos(2 * math.pi * t) - 1),
        ]
        assert np.allclose(tool[:2], expected, atol=0.01), (t, tool, expected)
        assert abs(tool[2]) < 0.01  # no z velocity asked
