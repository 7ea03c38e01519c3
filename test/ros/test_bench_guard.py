"""`make bench` always completes: a table that cannot measure says why in its place, its
targets read "not measured", and the tables after it still run."""

from bench.common import table, verdict
from bench.targets import guarded


def test_a_failing_table_says_why_and_the_run_goes_on(capsys):
    targets: list = []

    def broken() -> None:
        targets.append(('judged before it failed', '1 us', True))
        raise RuntimeError("no message within 120 s on ['/tf']")

    def fine() -> None:
        targets.append(('the next table', '2 us', True))

    assert not guarded('2. Per-cycle cost', broken, targets, ('demo cycle at 1 kHz',))
    assert guarded('3. Command latency', fine, targets, ('latency',))
    out = capsys.readouterr().out
    assert '## 2. Per-cycle cost: could not measure' in out
    assert "RuntimeError: no message within 120 s on ['/tf']" in out
    # what the failed table judged before failing is dropped: its targets are not measured
    assert targets == [
        ('demo cycle at 1 kHz', 'not measured', None),
        ('the next table', '2 us', True),
    ]
    rows = table(['target', 'measured', ''], [[t, m, verdict(ok)] for t, m, ok in targets])
    assert '| demo cycle at 1 kHz | not measured | not measured |' in rows
    assert '| the next table | 2 us | met |' in rows
