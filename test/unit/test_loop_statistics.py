"""Loop statistics: the full snapshot (sorted: percentiles) and the brief figures the 1 Hz
diagnostics publish (no sort), over partial and wrapped windows."""

import numpy as np
import pytest

from py_controllers.controller_manager.statistics import LoopStatistics, moments


def filled(count: int, window: int = 100, seed: int = 3) -> tuple[LoopStatistics, dict]:
    """Statistics with `count` cycles recorded into a `window`-sample ring; the samples each
    ring should hold, oldest first."""
    stats = LoopStatistics(1000.0, window=window)
    rng = np.random.default_rng(seed)
    periods = rng.integers(900_000, 1_100_000, count)
    execution = rng.integers(20_000, 90_000, count)
    for p, e in zip(periods.tolist(), execution.tolist()):
        stats.period.record(p)
        stats.execution.record(e)
    stats.overruns = 7
    return stats, {'period': periods[-window:], 'execution': execution[-window:]}


@pytest.mark.parametrize('count', [1, 40, 100, 257])
def test_brief_gives_the_moments_of_exactly_the_window(count):
    stats, expected = filled(count)
    brief = stats.brief()
    for name in ('period', 'execution'):
        samples = expected[name]
        assert brief[name] == pytest.approx(
            {
                'mean_us': samples.mean() / 1e3,
                'stddev_us': samples.std() / 1e3,
                'min_us': samples.min() / 1e3,
                'max_us': samples.max() / 1e3,
            }
        )
    assert brief['measured_rate_hz'] == pytest.approx(1e9 / expected['period'].mean())
    assert brief['overruns'] == 7
    assert brief['update_rate_hz'] == 1000.0


def test_brief_agrees_with_the_sorted_snapshot():
    stats, _ = filled(257)
    brief, full = stats.brief(), stats.snapshot()
    assert brief['measured_rate_hz'] == pytest.approx(full['measured_rate_hz'])
    for name in ('period', 'execution'):
        for key in ('mean_us', 'stddev_us', 'min_us', 'max_us'):
            assert brief[name][key] == pytest.approx(full[name][key]), (name, key)


def test_snapshot_percentiles_are_numpys_linear_ones():
    stats, expected = filled(257)
    period = stats.snapshot()['period']
    samples = expected['period'] / 1e3
    assert period['count'] == 100
    for key, q in (('p50_us', 50), ('p99_us', 99), ('p999_us', 99.9)):
        assert period[key] == pytest.approx(np.percentile(samples, q)), key


def test_nothing_recorded_gives_zeros():
    stats = LoopStatistics(100.0)
    brief = stats.brief()
    assert brief['measured_rate_hz'] == 0.0
    assert brief['period'] == moments(np.zeros(0, dtype=np.int64))
    assert set(brief['period'].values()) == {0.0}
    stats.period.record(5)
    stats.clear()
    assert stats.brief()['period']['max_us'] == 0.0
