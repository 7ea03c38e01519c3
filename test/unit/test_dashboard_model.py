"""The dashboard's pure rules: slider ranges, goal timing, steering dead man, access."""

import math

import pytest

from py_controllers.dashboard.model import (
    ControllerInfo,
    JointRange,
    Series,
    SteeringLease,
    Velocity,
    controller_actions,
    gripper_result_text,
    hardware_targets,
    joint_ranges,
    joints_of,
    loadable,
    loop_rows,
    quaternion_to_rpy,
    resolve_token,
    slider_step,
    step_digits,
    token_ok,
    trajectory_duration_s,
    trajectory_result_text,
    try_joint_ranges,
    twist_from_pad,
)
from py_controllers.testing import CONFIG


def test_joint_ranges_from_the_demo_urdf():
    ranges = joint_ranges((CONFIG / 'demo_robot.urdf').read_text())
    assert (ranges['joint1'].lower, ranges['joint1'].upper) == (-3.1, 3.1)
    assert ranges['joint1'].max_velocity == 2.0
    # continuous: +-pi, as rqt_joint_trajectory_controller does; its velocity limit holds
    assert (ranges['joint4'].lower, ranges['joint4'].upper) == (-math.pi, math.pi)
    assert ranges['joint4'].max_velocity == 3.0
    assert (ranges['gripper_joint'].lower, ranges['gripper_joint'].upper) == (0.0, 0.04)
    assert 'tool0_joint' not in ranges and 'caster_joint' not in ranges  # fixed


def test_unusable_description_says_why():
    assert try_joint_ranges('') == ({}, 'no robot description found: sliders span +-pi')
    ranges, problem = try_joint_ranges('<robot')
    assert ranges == {} and 'not usable' in problem


def test_trajectory_duration_uses_the_slowest_joint():
    # joint a: 1.0 rad at 2 rad/s * 0.5 = 1.0 s; joint b: 0.3 rad at 1 rad/s (no limit:
    # DEFAULT_VELOCITY) * 0.5 = 0.6 s -> 1.0 s
    assert trajectory_duration_s([0.0, 0.0], [1.0, -0.3], [2.0, None], 0.5) == pytest.approx(1.0)
    assert trajectory_duration_s([0.0], [0.01], [2.0], 1.0) == 0.2  # the minimum
    assert trajectory_duration_s([math.nan], [1.0], [2.0], 1.0) == 0.2  # unknown start: skipped
    # a scale above 1 is taken as 1: 1 rad at 2 rad/s
    assert trajectory_duration_s([0.0], [1.0], [2.0], 7.0) == pytest.approx(0.5)


def test_twist_from_pad():
    assert twist_from_pad(0.0, 1.0, 0.5, 1.0) == (0.5, 0.0)
    assert twist_from_pad(1.0, 0.0, 0.5, 1.0) == (0.0, -1.0)  # right turns clockwise
    linear, angular = twist_from_pad(1.0, 1.0, 0.5, 1.0)  # limited to the unit circle
    assert (linear, angular) == pytest.approx((0.5 / math.sqrt(2), -1.0 / math.sqrt(2)))
    assert twist_from_pad(math.nan, 0.5, 0.5, 1.0) == (0.0, 0.0)
    assert math.copysign(1.0, twist_from_pad(0.0, 0.0, 0.5, 1.0)[1]) == 1.0  # no -0.0


def test_steering_lease_sends_zero_once_after_release_or_expiry():
    lease = SteeringLease(lease_s=0.3)
    assert lease.tick(0.0) is None  # nothing before the first command
    lease.command('page1', Velocity(0.4, 0.0, 0.1), now=10.0)
    assert lease.tick(10.1) == (0.4, 0.0, 0.1)
    assert lease.tick(10.3) == (0.4, 0.0, 0.1)  # the lease holds until 10.3
    assert lease.tick(10.31) == SteeringLease.ZERO  # ran out: one zero
    assert lease.tick(10.35) is None  # then nothing
    lease.command('page1', Velocity(0.4, 0.2, 0.0), now=11.0)
    assert not lease.release('page2')  # another page cannot stop what it does not steer
    assert lease.tick(11.1) == (0.4, 0.2, 0.0)
    assert lease.release('page1')
    assert lease.current is None
    assert lease.tick(11.1) == SteeringLease.ZERO
    assert lease.tick(11.2) is None
    assert not lease.release()  # nothing to stop


def test_tokens():
    assert resolve_token('abc') == ('abc', False)  # given: required
    token, generated = resolve_token(None)  # on by default, loopback or not
    assert generated and token and len(token) >= 16
    assert resolve_token(None, no_token=True) == (None, False)
    assert token_ok(None, None) and token_ok(None, 'anything')
    assert token_ok('abc', 'abc')
    assert not token_ok('abc', 'abd') and not token_ok('abc', None) and not token_ok('abc', '')


def test_controller_rules():
    assert controller_actions('inactive') == ('activate', 'cleanup', 'unload')
    assert controller_actions('active') == ('deactivate',)
    assert controller_actions('bogus') == ()
    assert hardware_targets('active') == ('inactive', 'finalized')
    jtc = ControllerInfo(
        'arm',
        'joint_trajectory_controller/JointTrajectoryController',
        'inactive',
        required_command_interfaces=('j1/position', 'j1/velocity', 'j2/position'),
    )
    assert joints_of(jtc) == ['j1', 'j2']
    declared = ['arm.type', 'update_rate', 'base.type', 'arm.params_file', 'a.b.type']
    assert loadable(declared, ['arm']) == ['base']


def test_texts_and_series():
    assert trajectory_result_text(4, 0, '') == 'succeeded (SUCCESSFUL)'
    assert (
        trajectory_result_text(6, -5, 'joint2 off by 0.1')
        == 'aborted (GOAL_TOLERANCE_VIOLATED: joint2 off by 0.1)'
    )
    rows = loop_rows(
        {
            'period': {'mean_us': 10000.04, 'p99_us': 10100.0, 'max_us': 12000.0},
            'controllers': {'b': {'mean_us': 2.0}, 'a': {'mean_us': 1.0}},
        }
    )
    assert [r['what'] for r in rows] == ['period', 'update a', 'update b']
    assert rows[0]['mean_us'] == 10000.0
    series = Series(window_s=10.0)
    for t in (0.0, 5.0, 11.0):
        series.add(t, t)
    series.add(12.0, math.nan)
    assert series.relative_to(12.0) == [[-7.0, 5.0], [-1.0, 11.0]]
    half = math.sqrt(0.5)
    assert quaternion_to_rpy(0.0, 0.0, half, half) == pytest.approx((0.0, 0.0, math.pi / 2))


def test_a_sliders_step_is_finer_for_a_short_range():
    assert slider_step(JointRange(-3.1, 3.1)) == 0.01  # an arm joint: as before
    assert slider_step(JointRange(-0.17, 1.75)) == pytest.approx(0.001)  # SO-101 jaw, rad
    assert slider_step(JointRange(-0.010, 0.019)) == pytest.approx(0.0001)  # OMX fingers, m
    assert slider_step(JointRange(0.0, 0.0)) == 0.01  # no usable range: the default
    assert [step_digits(s) for s in (0.01, 0.001, 0.0001, 1.0)] == [2, 3, 4, 0]


def test_gripper_results_in_one_line():
    assert gripper_result_text(4, True, False, 0.0123) == 'succeeded (reached the goal at 0.0123)'
    assert gripper_result_text(6, False, True, 0.004) == 'aborted (stalled at 0.004)'
    assert gripper_result_text(5, False, False, math.nan) == (
        'canceled (stopped at an unknown position)'
    )
