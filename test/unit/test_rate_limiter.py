"""RateLimiter and the diff drive SpeedLimiter, with worked numbers."""

import math

import pytest

from py_controllers.control_toolbox.rate_limiter import RateLimiter
from py_controllers.controllers.diff_drive.speed_limiter import SpeedLimiter

DT = 0.01


def run(limiter, target, steps, start=0.0):
    """Drive the limiter like the controller does: history = the last two limited values."""
    out, v0, v1 = [], start, start
    for _ in range(steps):
        v = limiter.limit(target, v0, v1, DT)
        v0, v1 = v, v0
        out.append(v)
    return out


# --- acceleration ------------------------------------------------------------------------
def test_acceleration_limit_reaches_one_meter_per_second_after_exactly_50_steps():
    # 2 m/s^2 * 0.01 s = 0.02 m/s per step; 1 m/s / 0.02 = 50 steps
    out = run(SpeedLimiter(max_acceleration=2.0), 1.0, 60)
    assert out[0] == pytest.approx(0.02, abs=1e-12)
    assert out[48] == pytest.approx(0.98, abs=1e-12)
    assert out.index(1.0) == 49  # the 50th step is the first at 1.0
    assert out[49:] == [1.0] * 11


def test_deceleration_limit_stops_from_one_meter_per_second_in_25_steps():
    # slowing down at 4 m/s^2: 0.04 m/s per step
    lim = SpeedLimiter(max_acceleration=2.0, max_deceleration=-4.0)
    out = run(lim, 0.0, 30, start=1.0)
    assert out[0] == pytest.approx(0.96, abs=1e-12)
    assert out[23] == pytest.approx(0.04, abs=1e-12)
    assert out[24] == pytest.approx(0.0, abs=1e-12)


def test_reverse_limits():
    lim = SpeedLimiter(
        max_acceleration=2.0,
        max_deceleration=-4.0,
        max_acceleration_reverse=-1.0,
        max_deceleration_reverse=3.0,
    )
    assert lim.limit(1.0, 0.0, 0.0, DT) == pytest.approx(0.02)  # from rest forward: 2
    assert lim.limit(-1.0, 0.0, 0.0, DT) == pytest.approx(-0.01)  # from rest backward: 1
    assert lim.limit(0.0, 1.0, 1.0, DT) == pytest.approx(0.96)  # slowing forward: 4
    assert lim.limit(-2.0, -0.5, -0.5, DT) == pytest.approx(-0.51)  # faster backward: 1
    assert lim.limit(0.0, -0.5, -0.5, DT) == pytest.approx(-0.47)  # slowing backward: 3
    # while moving forward the forward deceleration bound applies, even across zero
    assert lim.limit(-1.0, 0.01, 0.01, DT) == pytest.approx(-0.03)


def test_unset_max_first_derivative_neg_defaults_to_max_first_derivative_pos():
    # control_toolbox rate_limiter.hpp (jazzy..rolling) set_params: an unset
    # max_first_derivative_neg takes max_first_derivative_pos (not -min_first_derivative_pos)
    lim = RateLimiter(min_first_derivative_neg=-0.5, max_first_derivative_pos=1.0)
    assert lim.max_first_derivative_neg == 1.0
    assert lim.min_first_derivative_pos == -0.5  # min_pos takes min_neg
    # from v0 = -1 towards 10 in 1 s: while v0 < 0 the bounds are [min_neg, max_neg] =
    # [-0.5, 1.0], so the step is +1.0 and v = 0.0 (with -min_pos = 0.5 it was -0.5)
    assert lim.limit(10.0, -1.0, -1.0, 1.0) == 0.0
    # and the other way: from v0 = -1 towards -10, the step is min_neg = -0.5
    assert lim.limit(-10.0, -1.0, -1.0, 1.0) == -1.5
    # from v0 = +1 (bounds [min_pos, max_pos] = [-0.5, 1.0]): down by 0.5, up by 1.0
    assert lim.limit(-10.0, 1.0, 1.0, 1.0) == 0.5
    assert lim.limit(10.0, 1.0, 1.0, 1.0) == 2.0


def test_unset_reverse_deceleration_is_max_acceleration_in_the_diff_drive():
    # the diff drive wires max_deceleration_reverse to max_first_derivative_neg: left unset,
    # slowing down while reversing is bounded by max_acceleration (2 m/s^2, 0.02 per step),
    # not by -max_deceleration (4 m/s^2)
    lim = SpeedLimiter(max_acceleration=2.0, max_deceleration=-4.0)
    assert lim.limit(0.0, -0.5, -0.5, DT) == pytest.approx(-0.48, abs=1e-12)
    # speeding up backward: max_acceleration_reverse defaults to -max_acceleration
    assert lim.limit(-2.0, -0.5, -0.5, DT) == pytest.approx(-0.52, abs=1e-12)
    # forward, the given deceleration still applies
    assert lim.limit(0.0, 0.5, 0.5, DT) == pytest.approx(0.46, abs=1e-12)
    # the numbers through the diff drive names: reverse acceleration 0.5, forward
    # acceleration 1.0, from -1 m/s towards 10 m/s in 1 s
    lim = SpeedLimiter(max_acceleration=1.0, max_acceleration_reverse=-0.5)
    assert lim.limit(10.0, -1.0, -1.0, 1.0) == 0.0
    only_accel = SpeedLimiter(max_acceleration=2.0)
    assert only_accel.limit(0.0, 0.5, 0.5, DT) == pytest.approx(0.48)
    assert only_accel.limit(0.0, -0.5, -0.5, DT) == pytest.approx(-0.48)
    assert only_accel.limit(-1.0, -0.5, -0.5, DT) == pytest.approx(-0.52)


def test_unset_asymmetric_bounds_are_checked_after_defaulting():
    # upstream test_rate_limiter.cpp: (min_pos unset, max_neg 10) is valid, a given min_pos
    # above the defaulted max_neg (= max_pos) is not
    RateLimiter(
        min_first_derivative_neg=-1.0, max_first_derivative_pos=1.0, max_first_derivative_neg=10.0
    )
    with pytest.raises(
        ValueError, match=r'min_first_derivative_pos \(2\.0\) .* max_first_derivative_neg \(1\.0\)'
    ):
        RateLimiter(max_first_derivative_pos=1.0, min_first_derivative_pos=2.0)


def test_first_derivative_alone():
    lim = RateLimiter(max_first_derivative_pos=10.0)  # 0.1 per 10 ms step, both ways
    assert lim.limit_first_derivative(5.0, 1.0, DT) == pytest.approx(1.1)
    assert lim.limit_first_derivative(-5.0, 1.0, DT) == pytest.approx(0.9)
    assert lim.limit_first_derivative(1.05, 1.0, DT) == 1.05  # within the bound
    assert lim.limit_first_derivative(5.0, 1.0, 0.0) == 1.0  # no time, no change


# --- jerk --------------------------------------------------------------------------------
def test_jerk_limit_worked_example():
    # 10 m/s^3 * (0.01 s)^2 = 0.001: each step may exceed the previous one by 0.001, so from
    # rest v_k = 0.001 * k (k + 1) / 2
    lim = RateLimiter(max_second_derivative=10.0)
    out = run(lim, 1.0, 10)
    assert out == pytest.approx([0.001 * k * (k + 1) / 2 for k in range(1, 11)], abs=1e-12)
    assert out[-1] == pytest.approx(0.055, abs=1e-12)
    # braking from a constant 1 m/s: min_jerk defaults to -max_jerk
    assert lim.limit(0.0, 1.0, 1.0, DT) == pytest.approx(0.999, abs=1e-12)


def test_jerk_is_not_limited_while_the_step_shrinks():
    # previous step +0.1, wanted step +0.05: the acceleration falls, jerk is not limited
    # (control_toolbox issue #240: limiting it makes closed loops oscillate)
    lim = RateLimiter(max_second_derivative=10.0)
    assert lim.limit_second_derivative(0.55, 0.5, 0.4, DT) == 0.55
    assert lim.limit_second_derivative(0.5, 0.5, 0.4, DT) == 0.5


def test_jerk_then_acceleration_then_value():
    # jerk 10 m/s^3 ramps the step by 0.001 per cycle until the 0.5 m/s^2 bound (0.005 per
    # step) caps it; the 0.03 m/s value bound clamps last
    lim = SpeedLimiter(max_jerk=10.0, max_acceleration=0.5, max_velocity=0.03)
    out = run(lim, 1.0, 9)
    expected = [0.001, 0.003, 0.006, 0.010, 0.015, 0.020, 0.025, 0.030, 0.030]
    assert out == pytest.approx(expected, abs=1e-12)


# --- value -------------------------------------------------------------------------------
def test_value_clamp():
    assert SpeedLimiter(max_velocity=1.0).limit(5.0, 0.0, 0.0, DT) == 1.0
    assert SpeedLimiter(max_velocity=1.0).limit(-5.0, 0.0, 0.0, DT) == -1.0  # min = -max
    assert SpeedLimiter(max_velocity=1.0, min_velocity=-0.5).limit(-5.0, 0.0, 0.0, DT) == -0.5
    assert RateLimiter(max_value=1.0).limit_value(0.25) == 0.25


# --- NaN and invalid bounds --------------------------------------------------------------
def test_nan_disables_every_level():
    lim = RateLimiter()
    assert not (
        lim.has_value_limits or lim.has_first_derivative_limits or lim.has_second_derivative_limits
    )
    assert lim.limit(123.0, 0.0, 0.0, DT) == 123.0
    assert SpeedLimiter().limit(-7.0, 3.0, 1.0, DT) == -7.0


def test_a_min_without_its_max_does_nothing_like_upstream():
    # upstream enables a level only when its max is set
    assert SpeedLimiter(min_velocity=-0.5).limit(-5.0, 0.0, 0.0, DT) == -5.0
    assert SpeedLimiter(max_deceleration=-1.0).limit(0.0, 1.0, 1.0, DT) == 0.0
    assert RateLimiter(min_value=5.0).limit_value(0.0) == 0.0  # not even checked


def test_invalid_bounds_raise_naming_the_bound():
    with pytest.raises(ValueError, match=r'min_value .* max_value'):
        RateLimiter(min_value=1.0, max_value=0.0)
    with pytest.raises(ValueError, match=r'min_first_derivative_neg .* max_first_derivative_pos'):
        RateLimiter(min_first_derivative_neg=1.0, max_first_derivative_pos=0.5)
    with pytest.raises(ValueError, match=r'min_first_derivative_pos .* max_first_derivative_neg'):
        RateLimiter(
            max_first_derivative_pos=2.0, min_first_derivative_pos=1.0, max_first_derivative_neg=0.5
        )
    with pytest.raises(ValueError, match=r'min_second_derivative .* max_second_derivative'):
        RateLimiter(min_second_derivative=1.0, max_second_derivative=0.5)


def test_speed_limiter_errors_name_the_diff_drive_parameters():
    with pytest.raises(ValueError, match=r'^min_velocity \(2\.0\) must not exceed max_velocity'):
        SpeedLimiter(max_velocity=1.0, min_velocity=2.0)
    with pytest.raises(ValueError, match=r'max_acceleration_reverse .* max_acceleration '):
        SpeedLimiter(max_acceleration=1.0, max_acceleration_reverse=2.0)
    with pytest.raises(ValueError, match=r'max_deceleration .* max_deceleration_reverse'):
        SpeedLimiter(max_acceleration=1.0, max_deceleration=0.5, max_deceleration_reverse=0.2)
    with pytest.raises(ValueError, match=r'min_jerk .* max_jerk'):
        SpeedLimiter(max_jerk=1.0, min_jerk=2.0)


def test_speed_limiter_maps_onto_rate_limiter_arguments():
    lim = SpeedLimiter(
        max_velocity=1.0,
        min_velocity=-0.5,
        max_acceleration=2.0,
        max_deceleration=-4.0,
        max_acceleration_reverse=-1.0,
        max_deceleration_reverse=3.0,
        max_jerk=5.0,
        min_jerk=-6.0,
    )
    assert (lim.min_value, lim.max_value) == (-0.5, 1.0)
    assert (lim.min_first_derivative_pos, lim.max_first_derivative_pos) == (-4.0, 2.0)
    assert (lim.min_first_derivative_neg, lim.max_first_derivative_neg) == (-1.0, 3.0)
    assert (lim.min_second_derivative, lim.max_second_derivative) == (-6.0, 5.0)
    assert math.isnan(SpeedLimiter().max_value)
