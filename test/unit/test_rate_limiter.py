"""RateLimiter / SpeedLimiter with worked numbers."""

import math

import pytest

from py_controllers.control_toolbox.rate_limiter import RateLimiter
from py_controllers.controllers.diff_drive.speed_limiter import SpeedLimiter

DT = 0.01


def run(limiter, target, steps, v0=0.0):
    out, hist = [], [v0, v0]
    for _ in range(steps):
        v = limiter.limit(target, hist[0], hist[1], DT)
        hist = [v, hist[0]]
        out.append(v)
    return out


def test_acceleration_limit_takes_half_a_second_to_one_meter_per_second():
    out = run(SpeedLimiter(max_acceleration=2.0), 1.0, 60)
    assert out[0] == pytest.approx(0.02)
    assert out[48] == pytest.approx(0.98)
    assert out[49] == pytest.approx(1.0)  # 50 steps of 10 ms = 0.5 s
    assert out[59] == 1.0


def test_deceleration_and_reverse_limits():
    lim = SpeedLimiter(
        max_acceleration=2.0,
        max_deceleration=-4.0,
        max_acceleration_reverse=-1.0,
        max_deceleration_reverse=3.0,
    )
    assert lim.limit(0.0, 1.0, 1.0, DT) == pytest.approx(0.96)  # slowing forward: 4 m/s^2
    assert lim.limit(-1.0, 0.0, 0.0, DT) == pytest.approx(-0.01)  # from 0 backward: 1 m/s^2
    assert lim.limit(-2.0, -0.5, -0.5, DT) == pytest.approx(-0.51)  # faster backward
    assert lim.limit(0.0, -0.5, -0.5, DT) == pytest.approx(-0.47)  # slowing backward: 3


def test_velocity_clamp_and_nan_disables():
    assert SpeedLimiter(max_velocity=1.0).limit(5.0, 0.0, 0.0, DT) == 1.0
    assert SpeedLimiter(max_velocity=1.0).limit(-5.0, 0.0, 0.0, DT) == -1.0
    assert SpeedLimiter(max_velocity=1.0, min_velocity=-0.5).limit(-5.0, 0.0, 0.0, DT) == -0.5
    assert SpeedLimiter().limit(123.0, 0.0, 0.0, DT) == 123.0


def test_jerk_limit():
    lim = RateLimiter(min_second_derivative=-10.0, max_second_derivative=10.0)
    # dv0 = 0, wanted dv = 1: jerk bound 10 * dt^2 = 0.001
    assert lim.limit(1.0, 0.0, 0.0, DT) == pytest.approx(0.001)
    # already rising by 0.001 per step: the next step may add another 0.001
    assert lim.limit(1.0, 0.001, 0.0, DT) == pytest.approx(0.003)


def test_invalid_bounds_raise_naming_the_bound():
    with pytest.raises(ValueError, match='min_value'):
        RateLimiter(min_value=1.0, max_value=0.0)
    with pytest.raises(ValueError, match='first_derivative_pos'):
        RateLimiter(min_first_derivative_pos=1.0, max_first_derivative_pos=0.5)
    assert math.isinf(RateLimiter().max_value)
