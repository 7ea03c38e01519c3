"""`median_after_gaps` (`python -m bench.cold_start`, the bench's table 2) times each call
right after its pause, and only the call: what runs between calls (the cycle's messages
sent) stays out of the figure."""

from bench import common


def test_each_call_is_timed_after_its_pause_and_the_work_between_is_not(monkeypatch):
    clock = {'ns': 0}
    events: list = []

    def step() -> None:
        events.append('step')
        clock['ns'] += 5_000 if len(events) % 2 else 7_000

    def between() -> None:
        events.append('between')
        clock['ns'] += 1_000_000

    monkeypatch.setattr(common.time, 'sleep', lambda s: events.append(('sleep', s)))
    monkeypatch.setattr(common.time, 'perf_counter_ns', lambda: clock['ns'])
    medians = common.median_after_gaps(step, (0.0, 0.002), 3, between)
    assert events == ['step', 'between'] * 3 + [('sleep', 0.002), 'step', 'between'] * 3
    assert medians == [5.0, 7.0]
