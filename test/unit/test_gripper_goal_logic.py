"""The pure parts of the gripper action controllers: success and stall test, effort clamp, goal
checks, the parallel gripper's command conversion. Worked numbers in integer nanoseconds."""

import math

import pytest

from py_controllers.controllers.gripper_action.goal_check import (
    REACHED,
    RUNNING,
    STALLED,
    GoalCheck,
    clamp_effort,
    gripper_command_problem,
)
from py_controllers.controllers.parallel_gripper.command import (
    ParallelTarget,
    parallel_command_problem,
    parallel_target,
)

MS = 1_000_000
LIMITS = {'goal_tolerance': 0.01, 'stall_velocity_threshold': 0.001, 'stall_timeout_s': 0.2}


def test_reached_only_strictly_inside_the_goal_tolerance():
    check = GoalCheck()
    check.start(0)
    assert check.check(0.0099, 0.0, 10 * MS, **LIMITS) == REACHED
    assert check.check(-0.0099, 0.0, 10 * MS, **LIMITS) == REACHED
    assert check.check(0.01, 0.5, 10 * MS, **LIMITS) == RUNNING  # |error| < tolerance, strictly
    limits = {**LIMITS, 'goal_tolerance': 0.0}
    assert check.check(0.0, 0.0, 10 * MS, **limits) == RUNNING  # 0 never succeeds


def test_stall_after_more_than_stall_timeout_without_movement():
    check = GoalCheck()
    check.start(1_000 * MS)
    # not moving from the start: 200 ms later is not yet "more than" 0.2 s, 210 ms is
    assert check.check(0.05, 0.0, 1_200 * MS, **LIMITS) == RUNNING
    assert check.check(0.05, 0.0, 1_210 * MS, **LIMITS) == STALLED


def test_movement_restarts_the_stall_clock_and_direction_does_not_matter():
    check = GoalCheck()
    check.start(0)
    assert check.check(0.05, -0.0011, 150 * MS, **LIMITS) == RUNNING  # moving (backwards)
    assert check.last_movement_ns == 150 * MS
    assert check.check(0.05, 0.001, 300 * MS, **LIMITS) == RUNNING  # not above the threshold
    assert check.check(0.05, 0.0, 350 * MS, **LIMITS) == RUNNING  # 200 ms since 150
    assert check.check(0.05, 0.0, 360 * MS, **LIMITS) == STALLED
    check.start(400 * MS)  # a new goal starts a new clock
    assert check.check(0.05, 0.0, 590 * MS, **LIMITS) == RUNNING


def test_reached_wins_over_a_stall():
    check = GoalCheck()
    check.start(0)
    assert check.check(0.001, 0.0, 10_000 * MS, **LIMITS) == REACHED


def test_effort_clamped_by_the_magnitude_of_max_effort():
    assert clamp_effort(2.0, 10.0) == 2.0
    assert clamp_effort(2.0, 1.5) == 1.5
    assert clamp_effort(-2.0, 1.5) == -1.5
    assert clamp_effort(2.0, -1.5) == 1.5  # upstream uses fabs(max_effort)
    assert clamp_effort(-2.0, -1.5) == -1.5
    assert clamp_effort(2.0, 0.0) == 0.0  # no effort allowed
    assert clamp_effort(-7.0, math.inf) == -7.0


def test_gripper_command_checks():
    assert gripper_command_problem(0.04, 10.0) == ''
    assert gripper_command_problem(0.04, -1.0) == ''  # used by magnitude, as upstream
    assert gripper_command_problem(0.04, math.inf) == ''  # no limit
    assert gripper_command_problem(math.nan, 1.0) == 'command.position must be finite, got nan'
    assert gripper_command_problem(-math.inf, 1.0) == ('command.position must be finite, got -inf')
    assert gripper_command_problem(0.04, math.nan) == 'command.max_effort must not be NaN'


@pytest.mark.parametrize(
    ('names', 'positions', 'velocities', 'efforts', 'problem'),
    [
        (['g'], [0.02], [], [], ''),
        ([], [0.02], [0.1], [5.0], ''),
        (['g'], [], [], [], 'expects 1 position value, got 0'),
        (['g'], [0.02, 0.03], [], [], 'expects 1 position value, got 2'),
        (['h'], [0.02], [], [], "command.name must be empty or ['g'], got ['h']"),
        (['g', 'h'], [0.02], [], [], "command.name must be empty or ['g'], got ['g', 'h']"),
        (['g'], [math.nan], [], [], 'command.position must be finite, got nan'),
        (['g'], [0.02], [0.1, 0.2], [], 'command.velocity must hold at most 1 value, got 2'),
        (['g'], [0.02], [-0.1], [], 'command.velocity must be finite and >= 0, got -0.1'),
        (['g'], [0.02], [], [math.inf], 'command.effort must be finite and >= 0, got inf'),
        (['g'], [0.02], [], [1.0, 2.0], 'command.effort must hold at most 1 value, got 2'),
    ],
)
def test_parallel_command_checks(names, positions, velocities, efforts, problem):
    assert parallel_command_problem('g', names, positions, velocities, efforts) == problem


def test_parallel_target_takes_goal_limits_only_for_claimed_interfaces():
    defaults = {'default_velocity': 0.1, 'default_effort': 10.0}
    both = {'velocity_claimed': True, 'effort_claimed': True}
    assert parallel_target([0.02], [0.05], [3.0], **defaults, **both) == ParallelTarget(
        0.02, 0.05, 3.0
    )
    assert parallel_target([0.02], [], [], **defaults, **both) == ParallelTarget(0.02, 0.1, 10.0)
    neither = {'velocity_claimed': False, 'effort_claimed': False}
    assert parallel_target([0.02], [0.05], [3.0], **defaults, **neither) == ParallelTarget(
        0.02, 0.1, 10.0
    )


def test_clamp_effort_keeps_nan():
    # min/max would turn NaN into -bound: a full reverse squeeze from a non-finite error
    assert math.isnan(clamp_effort(math.nan, 10.0))
    assert math.isnan(clamp_effort(math.nan, math.inf))
