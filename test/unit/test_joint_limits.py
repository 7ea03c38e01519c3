"""Worked-number tests of py_controllers.joint_limits: the saturation and soft limiters (the
parameters merged into the limits: test_joint_limits_parameters.py).

Every expected value is computed by hand in the comment beside its assertion.
"""

from __future__ import annotations

import math

import pytest
from limits_samples import SOFT, data, hard

from py_controllers.joint_limits import (
    InvalidJointLimitsError,
    JointPositionOutOfBoundsError,
    JointSaturationLimiter,
    JointSoftLimiter,
    SoftJointLimits,
    make_joint_limiters,
)

NAN = math.nan
DEG = math.pi / 180.0


# --- saturation limiter: position ----------------------------------------------------------


def test_position_clamped_to_position_limits() -> None:
    limiter = JointSaturationLimiter('j1', hard(position=(-1.0, 1.0)))
    desired = data(position=1.5)
    assert limiter.enforce(data(position=0.5), desired, 0.1) is True
    assert desired.position == 1.0  # 1.5 above max 1.0 -> 1.0
    desired = data(position=-3.0)
    assert limiter.enforce(data(position=0.5), desired, 0.1) is True
    assert desired.position == -1.0  # -3.0 below min -1.0 -> -1.0


def test_position_within_limits_is_unchanged_and_not_reported() -> None:
    limiter = JointSaturationLimiter('j1', hard(position=(-1.0, 1.0)))
    desired = data(position=0.25)
    assert limiter.enforce(data(position=0.0), desired, 0.1) is False
    assert desired.position == 0.25


def test_position_step_limited_by_velocity_from_previous_command() -> None:
    limiter = JointSaturationLimiter('j1', hard(position=(-5.0, 5.0), velocity=2.0))
    actual = data(position=1.0)
    desired = data(position=2.0)
    assert limiter.enforce(actual, desired, 0.1) is True
    # first cycle: reference = actual 1.0, step = 2.0 * 0.1 = 0.2 -> 1.0 + 0.2 = 1.2
    assert desired.position == pytest.approx(1.2)
    desired = data(position=2.0)
    limiter.enforce(actual, desired, 0.1)
    # actual still 1.0 (lags); reference = previous command 1.2 -> 1.2 + 0.2 = 1.4
    assert desired.position == pytest.approx(1.4)


def test_position_step_with_acceleration_limit_uses_actual_speed() -> None:
    limits = hard(position=(-5.0, 5.0), velocity=2.0, acceleration=5.0)
    limiter = JointSaturationLimiter('j1', limits)
    desired = data(position=1.0)
    limiter.enforce(data(position=0.0, velocity=0.5), desired, 0.1)
    # speed = min(2.0, |0.5| + 5.0 * 0.1) = 1.0, step = 1.0 * 0.1 = 0.1 -> 0.0 + 0.1
    assert desired.position == pytest.approx(0.1)
    limiter = JointSaturationLimiter('j1', limits)
    desired = data(position=1.0)
    limiter.enforce(data(position=0.0), desired, 0.1)
    # no velocity state: speed = min(2.0, 0 + 5.0 * 0.1) = 0.5, step 0.05 -> 0.05
    assert desired.position == pytest.approx(0.05)


def test_position_without_any_reference_gets_static_limits_only() -> None:
    limiter = JointSaturationLimiter('j1', hard(position=(-math.pi, math.pi), velocity=1.0))
    desired = data(position=4.0)
    limiter.enforce(data(), desired, 1.0)
    # no actual position, no previous command: no reachable band -> clamp to pi
    assert desired.position == pytest.approx(math.pi)


def test_position_command_far_outside_with_actual_out_of_bounds_raises() -> None:
    limiter = JointSaturationLimiter('j1', hard(position=(-1.0, 1.0)))
    desired = data(position=0.5)
    with pytest.raises(JointPositionOutOfBoundsError, match="'j1'"):
        # 1.01 > 1.0 + 0.0087 = 1.0087
        limiter.enforce(data(position=1.01), desired, 0.1)
    assert desired.position == 0.5
    limiter.enforce(data(position=1.008), desired, 0.1)  # 1.008 < 1.0087: tolerated
    assert desired.position == 0.5


# --- saturation limiter: velocity -----------------------------------------------------------


def test_velocity_clamped_to_max_velocity() -> None:
    limiter = JointSaturationLimiter('j1', hard(position=(-5.0, 5.0), velocity=1.0))
    desired = data(velocity=2.0)
    assert limiter.enforce(data(position=0.0), desired, 0.1) is True
    assert desired.velocity == 1.0  # |2.0| > 1.0 -> 1.0
    desired = data(velocity=-3.0)
    limiter.enforce(data(position=0.0), desired, 0.1)
    assert desired.velocity == -1.0  # -3.0 -> -1.0


def test_velocity_reduced_to_stay_within_position_limits() -> None:
    limiter = JointSaturationLimiter('j1', hard(position=(-5.0, 5.0), velocity=1.0))
    desired = data(velocity=1.0)
    limiter.enforce(data(position=4.95), desired, 0.1)
    # upper = min((5.0 - 4.95) / 0.1, 1.0) = 0.5
    assert desired.velocity == pytest.approx(0.5)


def test_velocity_limited_by_acceleration_from_previous_command() -> None:
    limiter = JointSaturationLimiter('j1', hard(velocity=1.0, acceleration=2.0))
    desired = data(velocity=1.0)
    limiter.enforce(data(velocity=0.0), desired, 0.1)
    # first cycle: previous = actual 0.0; 0.0 + 2.0 * 0.1 = 0.2
    assert desired.velocity == pytest.approx(0.2)
    desired = data(velocity=1.0)
    limiter.enforce(data(velocity=0.0), desired, 0.1)
    # previous command 0.2 -> 0.2 + 0.2 = 0.4 (the actual 0.0 is not used)
    assert desired.velocity == pytest.approx(0.4)


def test_velocity_just_past_position_limit_may_only_move_back() -> None:
    limits = hard(position=(-5.0, 5.0), velocity=1.0)
    limiter = JointSaturationLimiter('j1', limits)
    desired = data(velocity=0.5)
    limiter.enforce(data(position=5.001), desired, 0.1)
    # 5.0 < 5.001 < 5.0 + 0.002 and pushing further out (>= 0) -> [0, 0]
    assert desired.velocity == 0.0
    desired = data(velocity=-0.5)
    assert limiter.enforce(data(position=5.001), desired, 0.1) is False
    # back in: bounds [max(-10.001/0.1, -1), min(-0.001/0.1, 1)] = [-1, -0.01] -> -0.5 kept
    assert desired.velocity == -0.5


def test_velocity_far_past_position_limit_is_zero() -> None:
    limiter = JointSaturationLimiter('j1', hard(position=(-5.0, 5.0), velocity=1.0))
    desired = data(velocity=-0.5)
    limiter.enforce(data(position=5.01), desired, 0.1)
    # 5.01 > 5.0 + 0.002: no velocity allowed at all -> 0.0
    assert desired.velocity == 0.0


# --- saturation limiter: effort, acceleration, jerk -----------------------------------------


def test_effort_clamped_to_max_effort() -> None:
    limiter = JointSaturationLimiter('j1', hard(effort=10.0))
    desired = data(effort=15.0)
    assert limiter.enforce(data(), desired, 0.1) is True
    assert desired.effort == 10.0  # 15 -> 10
    desired = data(effort=-15.0)
    limiter.enforce(data(), desired, 0.1)
    assert desired.effort == -10.0  # -15 -> -10


def test_effort_outward_side_closed_at_position_limit() -> None:
    limiter = JointSaturationLimiter('j1', hard(position=(-1.0, 1.0), effort=10.0))
    desired = data(effort=5.0)
    limiter.enforce(data(position=1.0, velocity=0.0), desired, 0.1)
    assert desired.effort == 0.0  # at max, not moving back: upper = 0 -> 5 becomes 0
    desired = data(effort=-5.0)
    assert limiter.enforce(data(position=1.0, velocity=0.0), desired, 0.1) is False
    assert desired.effort == -5.0  # pulling back in is allowed
    desired = data(effort=5.0)
    limiter.enforce(data(position=1.0), desired, 0.1)
    assert desired.effort == 5.0  # no velocity state: the position rule needs both


def test_effort_outward_side_closed_beyond_velocity_limit() -> None:
    limiter = JointSaturationLimiter('j1', hard(velocity=2.0, effort=10.0))
    desired = data(effort=-5.0)
    limiter.enforce(data(velocity=-2.5), desired, 0.1)
    assert desired.effort == 0.0  # -2.5 < -2.0: lower = 0 -> -5 becomes 0
    desired = data(effort=5.0)
    assert limiter.enforce(data(velocity=-2.5), desired, 0.1) is False
    assert desired.effort == 5.0


def test_acceleration_uses_deceleration_limit_when_slowing_down() -> None:
    limiter = JointSaturationLimiter('j1', hard(acceleration=3.0, deceleration=6.0))
    desired = data(acceleration=-8.0)
    limiter.enforce(data(velocity=1.0), desired, 0.1)
    assert desired.acceleration == -6.0  # -8 against +1.0 m/s: slowing down -> -6
    desired = data(acceleration=8.0)
    limiter.enforce(data(velocity=1.0), desired, 0.1)
    assert desired.acceleration == 3.0  # speeding up -> +3
    desired = data(acceleration=-8.0)
    limiter.enforce(data(), desired, 0.1)
    assert desired.acceleration == -3.0  # velocity unknown: acceleration limit -> -3


def test_jerk_clamped_only_with_jerk_limits() -> None:
    limiter = JointSaturationLimiter('j1', hard(jerk=50.0))
    desired = data(jerk=80.0)
    assert limiter.enforce(data(), desired, 0.1) is True
    assert desired.jerk == 50.0  # 80 -> 50
    desired = data(jerk=-80.0)
    limiter.enforce(data(), desired, 0.1)
    assert desired.jerk == -50.0  # -80 -> -50
    switched_off = hard(jerk=50.0)
    switched_off.has_jerk_limits = False
    desired = data(jerk=80.0)
    assert JointSaturationLimiter('j1', switched_off).enforce(data(), desired, 0.1) is False
    assert desired.jerk == 80.0  # flag off: the stored 50 is not applied


# --- saturation limiter: NaN, dt, state -----------------------------------------------------


def test_nan_commands_stay_nan_and_keep_previous_command() -> None:
    limits = hard(position=(-1.0, 1.0), velocity=1.0, effort=1.0, acceleration=1.0, jerk=1.0)
    limiter = JointSaturationLimiter('j1', limits)
    first = data(position=0.5)
    limiter.enforce(data(position=0.5), first, 0.1)
    desired = data(position=NAN, velocity=NAN, effort=NAN, acceleration=NAN, jerk=NAN)
    assert limiter.enforce(data(position=0.5, velocity=0.0), desired, 0.1) is False
    assert all(math.isnan(v) for v in (desired.position, desired.velocity, desired.effort))
    assert math.isnan(desired.acceleration) and math.isnan(desired.jerk)
    assert limiter.prev_command.position == 0.5  # NaN did not overwrite the last command


def test_nan_position_command_is_not_checked_against_actual_position() -> None:
    for limiter in (
        JointSaturationLimiter('j1', hard(position=(-1.0, 1.0))),
        JointSoftLimiter('j1', hard(position=(-1.0, 1.0)), SOFT),
    ):
        desired = data(position=NAN)
        # actual 2.0 is far out of [-1, 1], but a NaN command is "no command": no error
        assert limiter.enforce(data(position=2.0), desired, 0.1) is False
        assert math.isnan(desired.position)


def test_nan_actual_position_keeps_static_position_limits() -> None:
    limiter = JointSaturationLimiter('j1', hard(position=(-1.0, 1.0), velocity=1.0))
    desired = data(position=3.0)
    assert limiter.enforce(data(position=NAN), desired, 0.1) is True
    # no usable reference for the reachable band, but [-1, 1] still applies -> 1.0
    assert desired.position == 1.0


def test_nan_actual_velocity_keeps_max_velocity() -> None:
    limiter = JointSaturationLimiter('j1', hard(velocity=1.0, acceleration=0.5))
    desired = data(velocity=2.0)
    limiter.enforce(data(velocity=NAN), desired, 1.0)
    # previous velocity seeded NaN: no acceleration band, but +-1.0 applies -> 1.0
    assert desired.velocity == 1.0


@pytest.mark.parametrize('dt_s', [0.0, -0.01, math.nan, math.inf])
def test_non_positive_or_non_finite_dt_changes_nothing(dt_s: float) -> None:
    limiter = JointSaturationLimiter('j1', hard(position=(-1.0, 1.0)))
    desired = data(position=3.0)
    assert limiter.enforce(data(position=0.0), desired, dt_s) is False
    assert desired.position == 3.0
    assert not limiter.prev_command.has_data()  # nothing remembered either


def test_reset_makes_next_cycle_start_from_actual() -> None:
    limiter = JointSaturationLimiter('j1', hard(velocity=1.0))
    desired = data(position=1.0)
    limiter.enforce(data(position=0.0), desired, 0.1)  # 0.0 + 0.1 = 0.1
    limiter.reset()
    desired = data(position=1.0)
    limiter.enforce(data(position=0.5), desired, 0.1)
    # after reset the reference is actual 0.5 -> 0.6 (without reset: 0.1 + 0.1 = 0.2)
    assert desired.position == pytest.approx(0.6)


def test_configure_sets_previous_command() -> None:
    limiter = JointSaturationLimiter('j1', hard(velocity=1.0))
    limiter.configure(data(position=0.3))
    desired = data(position=1.0)
    limiter.enforce(data(position=0.0), desired, 0.1)
    assert desired.position == pytest.approx(0.4)  # reference 0.3 (not actual 0.0) + 0.1


def test_limiter_rejects_invalid_limits() -> None:
    with pytest.raises(InvalidJointLimitsError, match=r"'j1'.*max_velocity"):
        JointSaturationLimiter('j1', hard(velocity=NAN))
    with pytest.raises(InvalidJointLimitsError, match=r"'j1'.*min_position"):
        JointSaturationLimiter('j1', hard(position=(1.0, -1.0)))


# --- soft limiter ---------------------------------------------------------------------------

HARD = hard(position=(-1.0, 1.0), velocity=2.0, effort=10.0)


def test_soft_velocity_bounds_from_k_position() -> None:
    limiter = JointSoftLimiter('j1', HARD, SOFT)
    desired = data(velocity=1.5)
    assert limiter.enforce(data(position=0.7), desired, 0.01) is True
    # upper = clamp(-10 * (0.7 - 0.8), +-2) = 1.0 -> 1.5 becomes 1.0
    assert desired.velocity == pytest.approx(1.0)
    limiter = JointSoftLimiter('j1', HARD, SOFT)
    desired = data(velocity=-1.5)
    limiter.enforce(data(position=-0.7), desired, 0.01)
    # lower = clamp(-10 * (-0.7 + 0.8), +-2) = -1.0 -> -1.5 becomes -1.0
    assert desired.velocity == pytest.approx(-1.0)


def test_soft_position_band_from_k_position() -> None:
    limiter = JointSoftLimiter('j1', HARD, SOFT)
    desired = data(position=0.9)
    limiter.enforce(data(position=0.7), desired, 0.01)
    # band: [0.7 - 2 * 0.01, 0.7 + 1.0 * 0.01] = [0.68, 0.71]; hard reach [0.68, 0.72]
    assert desired.position == pytest.approx(0.71)


def test_soft_position_limits_clamp_without_velocity_limits() -> None:
    limiter = JointSoftLimiter('j1', hard(position=(-1.0, 1.0)), SOFT)
    desired = data(position=0.9)
    limiter.enforce(data(position=0.0), desired, 0.01)
    assert desired.position == 0.8  # soft range [-0.8, 0.8] inside hard [-1, 1] -> 0.8


def test_soft_outside_soft_range_returns_at_one_degree_per_second() -> None:
    limiter = JointSoftLimiter('j1', HARD, SOFT)
    desired = data(velocity=0.3)
    limiter.enforce(data(position=0.85), desired, 0.01)
    # 0.85 > soft max 0.8: bounds [-10 * 1.65, -10 * 0.05] = [-2, -0.5] -> both take the
    # sign with magnitude 1 deg/s: [-0.0174533, -0.0174533]
    assert desired.velocity == pytest.approx(-DEG)


def test_soft_effort_bounds_from_k_velocity() -> None:
    limiter = JointSoftLimiter('j1', HARD, SOFT)
    desired = data(effort=8.0)
    limiter.enforce(data(position=0.7, velocity=0.5), desired, 0.01)
    # velocity bounds [-2, 1.0]; upper = clamp(-5 * (0.5 - 1.0), +-10) = 2.5 -> 2.5
    assert desired.effort == pytest.approx(2.5)
    desired = data(effort=-11.0)
    limiter.enforce(data(position=0.7, velocity=0.5), desired, 0.01)
    # lower = clamp(-5 * (0.5 + 2.0), +-10) = clamp(-12.5) = -10
    assert desired.effort == pytest.approx(-10.0)


def test_soft_effort_bounds_off_without_k_velocity() -> None:
    soft = SoftJointLimits(min_position=-0.8, max_position=0.8, k_position=10.0)  # k_velocity NaN
    limiter = JointSoftLimiter('j1', HARD, soft)
    desired = data(effort=8.0)
    assert limiter.enforce(data(position=0.7, velocity=0.5), desired, 0.01) is False
    assert desired.effort == 8.0  # only the hard +-10 applies


def test_soft_nan_actual_velocity_keeps_hard_effort_limit() -> None:
    limiter = JointSoftLimiter('j1', HARD, SOFT)
    desired = data(effort=15.0)
    limiter.enforce(data(position=0.7, velocity=NAN), desired, 0.01)
    assert desired.effort == 10.0  # soft effort law skipped, hard max 10 applies


def test_soft_nan_command_stays_nan() -> None:
    limiter = JointSoftLimiter('j1', HARD, SOFT)
    desired = data(position=NAN, velocity=NAN, effort=NAN)
    assert limiter.enforce(data(position=0.7, velocity=0.5), desired, 0.01) is False
    assert math.isnan(desired.position) and math.isnan(desired.velocity)
    assert math.isnan(desired.effort)


def test_soft_limiter_also_limits_acceleration_and_jerk() -> None:
    limiter = JointSoftLimiter('j1', hard(acceleration=3.0, jerk=50.0), SOFT)
    desired = data(acceleration=8.0, jerk=-80.0)
    assert limiter.enforce(data(), desired, 0.01) is True
    assert (desired.acceleration, desired.jerk) == (3.0, -50.0)  # 8 -> 3, -80 -> -50


def test_make_joint_limiters_picks_soft_where_soft_limits_exist() -> None:
    limiters = make_joint_limiters(
        {'a': HARD, 'b': HARD, 'c': HARD}, {'b': SOFT}, disabled_joints={'c'}
    )
    assert set(limiters) == {'a', 'b'}  # 'c' has limits disabled
    assert type(limiters['a']) is JointSaturationLimiter
    assert type(limiters['b']) is JointSoftLimiter
