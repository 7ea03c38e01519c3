"""Worked-number tests of py_controllers.joint_limits: joint_limits parameters merged into the
URDF's limits, one joint picked out of a parameter tree, invalid parameters named."""

from __future__ import annotations

import math

import pytest
from limits_samples import SOFT, data, hard

from py_controllers.joint_limits import (
    InvalidJointLimitsError,
    JointSaturationLimiter,
    SoftJointLimits,
    apply_limits_parameters,
    joint_limits_parameters,
)

NAN = math.nan


URDF = hard(position=(-1.0, 1.0), velocity=2.0, effort=10.0)

SOFT_PARAMS: dict[str, object] = {
    'has_soft_limits': True,
    'k_position': 2.0,
    'k_velocity': 3.0,
    'soft_lower_limit': -0.5,
    'soft_upper_limit': 0.6,
}


def test_parameters_overwrite_urdf_values_looser_or_tighter() -> None:
    params = {
        'has_position_limits': True,
        'min_position': -2.0,
        'max_position': 0.5,
        'has_velocity_limits': True,
        'max_velocity': 3.0,
        'has_acceleration_limits': True,
        'max_acceleration': 5.0,
        'has_deceleration_limits': True,
        'max_deceleration': 7.5,
        'has_jerk_limits': True,
        'max_jerk': 100,
        'has_effort_limits': True,
        'max_effort': 20.0,
    }
    limits, soft = apply_limits_parameters('j1', params, URDF)
    assert (limits.lower, limits.upper) == (-2.0, 0.5)  # looser min and tighter max both win
    assert limits.velocity == 3.0  # 3.0 > URDF 2.0, still taken
    assert (limits.acceleration, limits.deceleration, limits.jerk) == (5.0, 7.5, 100.0)
    assert limits.effort == 20.0 and limits.has_jerk_limits
    assert soft is None
    assert (URDF.lower, URDF.velocity) == (-1.0, 2.0)  # input untouched


def test_parameter_flag_false_switches_limit_off() -> None:
    limits, _ = apply_limits_parameters('j1', {'has_velocity_limits': False}, URDF)
    assert limits.has_velocity_limits is False
    assert limits.velocity == 2.0  # value kept, unused
    desired = data(velocity=5.0)
    JointSaturationLimiter('j1', limits).enforce(data(), desired, 0.1)
    assert desired.velocity == 5.0  # no velocity limit any more


def test_no_parameters_leave_limits_unchanged() -> None:
    limits, soft = apply_limits_parameters('j1', {}, URDF, SOFT)
    assert limits == URDF
    assert (soft.min_position, soft.k_position) == (-0.8, 10.0)


def test_angle_wraparound_only_without_position_limits() -> None:
    limits, _ = apply_limits_parameters(
        'j1', {'has_position_limits': False, 'angle_wraparound': True}, URDF
    )
    assert limits.angle_wraparound and not limits.has_position_limits
    with pytest.raises(InvalidJointLimitsError, match=r"'j1'.*angle_wraparound"):
        apply_limits_parameters('j1', {'angle_wraparound': True}, URDF)


def test_soft_parameters_replace_soft_limits_as_a_whole() -> None:
    _, soft = apply_limits_parameters('j1', SOFT_PARAMS, URDF, SOFT)
    assert soft == SoftJointLimits(-0.5, 0.6, 2.0, 3.0)


def test_has_soft_limits_false_keeps_urdf_soft_limits() -> None:
    _, soft = apply_limits_parameters('j1', {'has_soft_limits': False}, URDF, SOFT)
    assert (soft.min_position, soft.max_position, soft.k_velocity) == (-0.8, 0.8, 5.0)


def test_joint_limits_parameters_picks_one_joint() -> None:
    node_params = {
        'joint_limits.j1.has_velocity_limits': True,
        'joint_limits.j1.max_velocity': 1.5,
        'joint_limits.j10.max_velocity': 9.0,
        'update_rate': 100,
    }
    assert joint_limits_parameters(node_params, 'j1') == {
        'has_velocity_limits': True,
        'max_velocity': 1.5,
    }


@pytest.mark.parametrize(
    ('params', 'named'),
    [
        ({'has_position_limits': True, 'min_position': 1.0, 'max_position': -1.0}, 'min_position'),
        ({'has_position_limits': True, 'min_position': 1.0, 'max_position': 1.0}, 'min_position'),
        ({'has_position_limits': True, 'min_position': -1.0}, 'max_position'),
        ({'min_position': -1.0, 'max_position': 1.0}, 'has_position_limits'),
        ({'has_velocity_limits': True}, 'max_velocity'),
        ({'max_velocity': 1.0}, 'has_velocity_limits'),
        ({'has_effort_limits': True, 'max_effort': -1.0}, 'max_effort'),
        ({'has_jerk_limits': True, 'max_jerk': NAN}, 'max_jerk'),
        ({'has_velocity_limits': 'yes', 'max_velocity': 1.0}, 'has_velocity_limits'),
        ({'has_velocity_limits': 1, 'max_velocity': 1.0}, 'has_velocity_limits'),
        ({'has_velocity_limits': True, 'max_velocity': True}, 'max_velocity'),
        ({'max_velocty': 1.0}, 'max_velocty'),
        ({'k_position': 1.0}, 'has_soft_limits'),
        (dict(SOFT_PARAMS, k_position=-1.0), 'k_position'),
        (dict(SOFT_PARAMS, k_velocity=NAN), 'k_velocity'),
        (dict(SOFT_PARAMS, soft_upper_limit=NAN), 'soft_upper_limit'),
        ({'has_soft_limits': True, 'k_position': 1.0, 'k_velocity': 1.0}, 'soft_lower_limit'),
        (
            {
                'has_soft_limits': True,
                'k_position': 1.0,
                'k_velocity': 1.0,
                'soft_lower_limit': 0.5,
                'soft_upper_limit': 0.2,
            },
            'soft_lower_limit',
        ),
    ],
)
def test_invalid_parameters_raise_value_error_naming_joint_and_parameter(
    params: dict[str, object], named: str
) -> None:
    with pytest.raises(ValueError, match=f"'j1'.*{named}"):
        apply_limits_parameters('j1', params, URDF)
