"""Worked examples for joint trajectory tolerances (joint_trajectory/tolerances.py)."""

import numpy as np
import pytest

from py_controllers.controllers.joint_trajectory.tolerances import (
    JointTolerance,
    SegmentTolerances,
    StateTolerance,
    check_state_tolerance,
    default_tolerances,
    resolve_tolerance,
    tolerance_violations,
    tolerances_from_goal,
    within_state_tolerance,
)

JOINTS = ['j1', 'j2', 'j3']


def defaults() -> SegmentTolerances:
    # constraints.<j>.trajectory = 0.1, 0.0, 0.3; .goal = 0.01, 0.02, 0.0;
    # stopped_velocity_tolerance 0.05; goal_time 2.0
    return default_tolerances([0.1, 0.0, 0.3], [0.01, 0.02, 0.0], 0.05, 2.0)


def test_default_tolerances_from_parameters():
    tol = defaults()
    assert tol.state_tolerance.position.tolist() == [0.1, 0.0, 0.3]
    assert tol.state_tolerance.velocity.tolist() == [0.0, 0.0, 0.0]
    assert tol.state_tolerance.acceleration.tolist() == [0.0, 0.0, 0.0]
    assert tol.goal_state_tolerance.position.tolist() == [0.01, 0.02, 0.0]
    assert tol.goal_state_tolerance.velocity.tolist() == [0.05, 0.05, 0.05]
    assert tol.goal_state_tolerance.acceleration.tolist() == [0.0, 0.0, 0.0]
    assert tol.goal_time_tolerance == 2.0


def test_default_tolerances_reject_mismatched_lengths():
    with pytest.raises(ValueError):
        default_tolerances([0.1, 0.2], [0.1], 0.01, 0.0)


@pytest.mark.parametrize(
    ('default', 'requested', 'expected'),
    [
        (0.5, 0.2, 0.2),  # > 0 overrides
        (0.5, 0.0, 0.5),  # 0 keeps the default
        (0.5, -1.0, 0.0),  # -1 erases
        (0.5, -1.0 + 1e-8, 0.0),  # within float epsilon of -1 still erases
        (0.0, 3.0, 3.0),
    ],
)
def test_resolve_tolerance(default, requested, expected):
    assert resolve_tolerance(default, requested) == expected


@pytest.mark.parametrize('requested', [-0.5, -2.0, -1.001])
def test_resolve_tolerance_illegal_negative(requested):
    with pytest.raises(ValueError):
        resolve_tolerance(0.5, requested)


def test_goal_values_override_erase_and_keep():
    base = defaults()
    merged, error = tolerances_from_goal(
        base,
        JOINTS,
        path_tolerance=[('j1', 0.0, 0.4, 0.0), JointTolerance('j3', -1.0, 0.0, 2.5)],
        goal_tolerance=[JointTolerance('j2', 0.5, -1.0, 0.0)],
        goal_time_tolerance_s=1.5,
    )
    assert error is None
    assert merged.state_tolerance.position.tolist() == [0.1, 0.0, 0.0]
    assert merged.state_tolerance.velocity.tolist() == [0.4, 0.0, 0.0]
    assert merged.state_tolerance.acceleration.tolist() == [0.0, 0.0, 2.5]
    assert merged.goal_state_tolerance.position.tolist() == [0.01, 0.5, 0.0]
    assert merged.goal_state_tolerance.velocity.tolist() == [0.05, 0.0, 0.05]
    assert merged.goal_time_tolerance == 1.5
    # The defaults are not modified.
    assert base.state_tolerance.position.tolist() == [0.1, 0.0, 0.3]
    assert base.goal_state_tolerance.velocity.tolist() == [0.05, 0.05, 0.05]


@pytest.mark.parametrize(('requested', 'expected'), [(0.0, 2.0), (-1.0, 0.0), (0.25, 0.25)])
def test_goal_time_tolerance_rules(requested, expected):
    merged, error = tolerances_from_goal(defaults(), JOINTS, [], [], requested)
    assert error is None
    assert merged.goal_time_tolerance == expected


def test_illegal_goal_time_uses_defaults():
    merged, error = tolerances_from_goal(
        defaults(), JOINTS, [('j1', 0.9, 0.0, 0.0)], [], goal_time_tolerance_s=-2.0
    )
    assert 'goal_time_tolerance' in error
    assert merged.state_tolerance.position.tolist() == [0.1, 0.0, 0.3]
    assert merged.goal_time_tolerance == 2.0


def test_illegal_joint_value_makes_the_whole_goal_use_defaults():
    merged, error = tolerances_from_goal(
        defaults(),
        JOINTS,
        path_tolerance=[('j1', 0.9, 0.0, 0.0)],
        goal_tolerance=[('j2', 0.5, 0.0, 0.0), ('j3', 0.0, -0.5, 0.0)],
        goal_time_tolerance_s=1.0,
    )
    assert "'j3'" in error
    assert 'velocity' in error
    assert merged.state_tolerance.position.tolist() == [0.1, 0.0, 0.3]
    assert merged.goal_state_tolerance.position.tolist() == [0.01, 0.02, 0.0]
    assert merged.goal_time_tolerance == 2.0


def test_unknown_joint_name_uses_defaults():
    merged, error = tolerances_from_goal(
        defaults(), JOINTS, [('j1', 0.9, 0.0, 0.0), ('elbow', 0.1, 0.0, 0.0)], [], 1.0
    )
    assert "'elbow'" in error
    assert 'path_tolerance' in error
    assert merged.state_tolerance.position.tolist() == [0.1, 0.0, 0.3]
    assert merged.goal_time_tolerance == 2.0
    _, error = tolerances_from_goal(defaults(), JOINTS, [], [('wrist', 0.1, 0.0, 0.0)], 0.0)
    assert 'goal_tolerance' in error


def test_check_state_tolerance_per_joint():
    tol = StateTolerance(
        position=np.array([0.1, 0.0, 0.1, -1.0]),  # joint 2 and 4 unchecked (<= 0)
        velocity=np.array([0.0, 0.0, 0.5, 0.0]),
        acceleration=np.zeros(4),
    )
    pos_err = np.array([0.1, 5.0, -0.05, 9.0])  # |0.1| is not > 0.1 -> inside
    vel_err = np.array([3.0, 3.0, -0.6, 3.0])  # joint 3: |-0.6| > 0.5 -> outside
    ok = check_state_tolerance(pos_err, vel_err, None, tol)
    assert ok.tolist() == [True, True, False, True]
    # Position just outside for joint 1.
    ok = check_state_tolerance(np.array([-0.1000001, 0.0, 0.0, 0.0]), None, None, tol)
    assert ok.tolist() == [False, True, True, True]
    # Missing velocity / acceleration errors count as zero.
    ok = check_state_tolerance(np.zeros(4), None, None, tol)
    assert ok.tolist() == [True, True, True, True]


def test_check_acceleration_tolerance():
    tol = StateTolerance(np.zeros(2), np.zeros(2), np.array([1.0, 2.0]))
    ok = check_state_tolerance(np.zeros(2), np.zeros(2), np.array([1.5, -1.5]), tol)
    assert ok.tolist() == [False, True]


@pytest.mark.parametrize('n_joints', [1, 6, 32, 33, 100])  # both sides of the plain/numpy switch
def test_within_state_tolerance_answers_as_the_per_joint_check(n_joints):
    rng = np.random.default_rng(n_joints)
    for case in range(300):
        # tolerances of 0 and below are unchecked; errors straddle the bounds, some NaN
        tol = StateTolerance(*(rng.choice([-1.0, 0.0, 0.1, 0.5], n_joints) for _ in range(3)))
        errors = [rng.uniform(-0.6, 0.6, n_joints) for _ in range(3)]
        errors[case % 3][rng.integers(n_joints)] = np.nan if case % 7 == 0 else 0.1
        for missing in (None, 1, 2):  # velocity or acceleration errors may be absent
            args = [e if k != missing else None for k, e in enumerate(errors)]
            expected = bool(check_state_tolerance(*args, tol).all())
            assert within_state_tolerance(*args, tol) is expected


def test_within_state_tolerance_worked_example():
    tol = StateTolerance(np.array([0.1, 0.0]), np.array([0.0, 0.5]), np.zeros(2))
    assert within_state_tolerance(np.array([0.1, 9.0]), np.array([9.0, -0.5]), None, tol)
    assert not within_state_tolerance(np.array([-0.1000001, 0.0]), None, None, tol)
    assert not within_state_tolerance(np.zeros(2), np.array([0.0, 0.51]), None, tol)


def test_tolerance_violations_text():
    tol = StateTolerance(np.array([0.1, 0.1]), np.array([0.0, 0.2]), np.zeros(2))
    lines = tolerance_violations(['a', 'b'], np.array([0.2, 0.0]), np.array([1.0, 0.3]), None, tol)
    assert lines == [
        "joint 'a': position error 0.200000 exceeds tolerance 0.100000",
        "joint 'b': velocity error 0.300000 exceeds tolerance 0.200000",
    ]
