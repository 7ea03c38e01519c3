"""The fault table, its totals row and the verdict."""

from __future__ import annotations

from collections.abc import Sequence

from faults.common import Row

HEADERS = [
    'entry point',
    'kind',
    'inputs',
    'crashes',
    'stalls > 2 periods (worst ms)',
    'no answer',
    'errors back',
    'log lines',
    'cmds after stop',
    'states as expected',
]


def _errors(row: Row) -> str:
    return f'{row.errors}/{row.expected_errors}' if row.expected_errors else '-'


def _states(row: Row) -> str:
    if not row.set_up:
        return 'NOT SET UP'
    return 'yes' if row.states_ok else 'NO'


def _cells(row: Row) -> list[str]:
    return [
        row.entry,
        row.kind,
        str(row.sent),
        str(row.crashes),
        f'{row.stalls} ({row.worst_ms:.1f})' if row.measured else 'n/a',
        str(row.unanswered),
        _errors(row),
        '-' if row.logs is None else str(row.logs),
        '-' if row.after_stop is None else str(row.after_stop),
        _states(row) + ''.join(f'; {n}' for n in row.notes),
    ]


def totals(rows: Sequence[Row]) -> Row:
    """The sums of every column (states: all rows as expected)."""
    total = Row('**total**', f'{len(rows)} rows')
    for row in rows:
        total.sent += row.sent
        total.crashes += row.crashes
        total.stalls += row.stalls
        total.worst_ms = max(total.worst_ms, row.worst_ms)
        total.unanswered += row.unanswered
        total.errors += row.errors
        total.expected_errors += row.expected_errors
        if row.logs is not None:
            total.logs = (total.logs or 0) + row.logs
        if row.after_stop is not None:
            total.after_stop = (total.after_stop or 0) + row.after_stop
    bad = sum(not row.states_ok for row in rows)
    total.states_ok = bad == 0
    if bad:
        total.notes.append(f'{bad} rows')
    unset = sum(not row.set_up for row in rows)
    total.set_up = unset == 0
    if unset:
        total.notes.append(f'{unset} rows not set up')
    return total


def table(rows: Sequence[Row]) -> str:
    """The markdown table, a totals row last."""
    lines = ['| ' + ' | '.join(HEADERS) + ' |', '|' + '---|' * len(HEADERS)]
    for row in [*rows, totals(rows)]:
        cells = [c.replace('|', '/') for c in _cells(row)]
        lines.append('| ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines)


def failures(rows: Sequence[Row]) -> list[str]:
    """What makes the run fail (empty: the safety net held everywhere)."""
    t = totals(rows)
    problems = []
    if t.crashes:
        problems.append(f'{t.crashes} crashes')
    if t.stalls:
        problems.append(f'{t.stalls} loop stalls (worst period {t.worst_ms:.1f} ms)')
    if t.unanswered:
        problems.append(f'{t.unanswered} clients without an answer')
    if t.after_stop:
        problems.append(f'{t.after_stop} commands after stop')
    missing = t.expected_errors - t.errors
    if missing:
        problems.append(f'{missing} bad inputs without an error back')
    if not t.states_ok:
        problems.append(f'{sum(not r.states_ok for r in rows)} rows not in the expected state')
    if not t.set_up:
        problems.append(
            f'{sum(not r.set_up for r in rows)} rows not set up (nothing was tried there)'
        )
    return problems


def verdict(rows: Sequence[Row], seconds: float) -> str:
    problems = failures(rows)
    sent = sum(r.sent for r in rows)
    if not problems:
        return (
            f'**Verdict: the safety net held.** {sent} inputs and faults in {seconds:.0f} s: '
            'no crash, no stall, every client answered, no command after stop, every bad input '
            'got an error back, every controller in its expected state.'
        )
    return f'**Verdict: NOT held** ({sent} inputs in {seconds:.0f} s): ' + ', '.join(problems) + '.'
