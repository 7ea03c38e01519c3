"""The loop's final spin (controller_manager/wake_up.py): as long as this host's late sleeps
need, learned from how late each sleep returns, and never longer than the cap."""

import time

import pytest

from py_controllers.controller_manager.wake_up import (
    CAP_NS,
    EVERY,
    PERCENTILE,
    WINDOW,
    AdaptiveSpin,
    FixedSpin,
    sleep_until,
    wake_up_policy,
)

KHZ = 1_000_000  # period of a 1 kHz loop (ns); the tolerance is 2 % of it: 20 us
US = 1_000


def fed(spin: AdaptiveSpin, lates_ns: list[int]) -> AdaptiveSpin:
    for late in lates_ns:
        spin.record(late)
    return spin


def test_the_spin_is_the_cap_until_a_whole_window_of_sleeps_is_measured():
    spin = fed(AdaptiveSpin(KHZ), [5 * US] * (WINDOW - 1))
    assert spin.spin_ns == CAP_NS
    spin.record(5 * US)
    assert spin.spin_ns == 0  # 6 us (bucket edge) late at most, within the 20 us tolerance


def test_the_spin_is_the_90th_percentile_of_late_sleeps_less_the_tolerance():
    assert PERCENTILE == 90
    spin = fed(AdaptiveSpin(KHZ), [50 * US] * (WINDOW + EVERY))
    assert spin.spin_ns == 52 * US - 20 * US  # the 2 us bucket holding 50 us ends at 52
    # ten sleeps in a hundred much later: the percentile ignores them
    spin = fed(AdaptiveSpin(KHZ), ([30 * US] * 90 + [900 * US] * 10) * ((WINDOW + EVERY) // 100))
    assert spin.spin_ns == 32 * US - 20 * US
    # eleven in a hundred: the percentile is beyond the cap, the spin is the cap
    spin = fed(AdaptiveSpin(KHZ), ([30 * US] * 89 + [900 * US] * 11) * ((WINDOW + EVERY) // 100))
    assert spin.spin_ns == CAP_NS
    # a spread of lateness: 1..100 us, each alike; nine in ten end by 90 us (bucket 92)
    spin = fed(AdaptiveSpin(KHZ), [(i % 100 + 1) * US for i in range(WINDOW + EVERY)])
    assert spin.spin_ns == 92 * US - 20 * US


def test_the_spin_follows_the_host_as_the_window_moves_on():
    spin = fed(AdaptiveSpin(KHZ), [120 * US] * (WINDOW + EVERY))
    assert spin.spin_ns == 122 * US - 20 * US
    fed(spin, [10 * US] * WINDOW)  # the slow spell has left the window
    assert spin.spin_ns == 0
    fed(spin, [80 * US] * WINDOW)
    assert spin.spin_ns == 82 * US - 20 * US


def test_a_cycle_that_did_not_sleep_teaches_nothing():
    spin = fed(AdaptiveSpin(KHZ), [40 * US] * (WINDOW + EVERY))
    fed(spin, [-1] * (5 * WINDOW))
    assert spin.spin_ns == 42 * US - 20 * US


def test_the_cap_is_at_most_half_the_period():
    spin = fed(AdaptiveSpin(200_000), [900 * US] * (WINDOW + EVERY))  # 5 kHz
    assert spin.cap_ns == spin.spin_ns == 100_000


@pytest.mark.parametrize(
    ('rate_hz', 'spin_us', 'expected'),
    [
        (1000, -1, 'adaptive'),
        (500, -1, 'adaptive'),
        (499, -1, 0),  # slower loops only sleep
        (100, -1, 0),
        (1000, 0, 0),  # the user's value, kept
        (1000, 150, 150 * US),
        (100, 150, 150 * US),
        (1000, 900, 500 * US),  # at most half the period
    ],
)
def test_the_policy_for_a_rate_and_loop_spin_us(rate_hz, spin_us, expected):
    policy = wake_up_policy(round(1e9 / rate_hz), None if spin_us == -1 else spin_us * US)
    if expected == 'adaptive':
        assert isinstance(policy, AdaptiveSpin)
        assert policy.spin_ns == CAP_NS
    else:
        assert isinstance(policy, FixedSpin)
        assert policy.spin_ns == expected
        policy.record(900 * US)
        assert policy.spin_ns == expected


def test_sleep_until_never_returns_before_the_deadline_and_says_whether_it_slept():
    deadline = time.monotonic_ns() + 3_000_000
    late = sleep_until(deadline, 1_000_000)
    assert time.monotonic_ns() >= deadline
    assert late >= 0  # it slept, until 1 ms before the deadline at the earliest
    deadline = time.monotonic_ns() + 100_000
    assert sleep_until(deadline, 1_000_000) == -1  # all of it within the spin: no sleep
    assert time.monotonic_ns() >= deadline
