"""Table 1 of `make bench` judges the lateness ratio on the median window of each loop, so
that one busy spell of the host, on either loop, does not decide it; the absolute targets
hold for every window."""

from bench.__main__ import loop_table
from bench.floor import LoopWindows


def window(p99_us: float, *, rate_hz: float = 1000.0, overruns: int = 0) -> dict:
    lateness = {'p50_us': 0.2, 'p99_us': p99_us, 'p999_us': 2 * p99_us, 'max_us': 3 * p99_us}
    return {
        'lateness': lateness,
        'measured_rate_hz': rate_hz,
        'overruns': overruns,
        'cycles': 5000,
        'goal': 'executing',
    }


def test_a_spell_on_one_window_of_either_loop_does_not_decide_the_ratio(capsys):
    windows = LoopWindows(
        bare=[window(1.0)] * 3,
        empty=[window(0.8), window(14.4), window(0.9)],
        demo=[window(19.9), window(1.0), window(1.2)],
    )
    targets: list = []
    loop_table(windows, targets)
    by_name = {name: (measured, ok) for name, measured, ok in targets}
    ratio = next(v for k, v in by_name.items() if k.startswith('p99 lateness <= 10x'))
    assert ratio == ('1.3x', True)  # 1.2 / 0.9, the medians
    worst = next(v for k, v in by_name.items() if k.startswith('p99 lateness < 100 us'))
    assert worst == ('20 us', True)  # the worst demo window
    out = capsys.readouterr().out
    assert out.count('| manager, demo robot |') == 3
    assert 'Median p99: demo 1.2 us, nearly empty manager 0.9 us (1.3x)' in out


def test_a_demo_late_in_most_windows_misses_the_ratio_and_every_window_counts():
    windows = LoopWindows(
        bare=[window(1.0)] * 3,
        empty=[window(0.8)] * 3,
        demo=[window(12.0), window(150.0), window(0.9, rate_hz=994.0, overruns=20)],
    )
    targets: list = []
    loop_table(windows, targets)
    ok = {name.split(',')[0].split(' (')[0]: (measured, met) for name, measured, met in targets}
    assert ok['p99 lateness <= 10x the nearly empty manager'] == ('15.0x', False)
    assert ok['p99 lateness < 100 us'] == ('150 us', False)
    assert ok['1 kHz mean rate within 0.5 %'] == ('0.60 % off', False)
    assert ok['overruns < 0.1 %'] == ('0.13 %', False)  # 20 of the 15 000 cycles
