"""Publishing malformed messages where there is no answer channel: the controller must
stay where it was and say why in a (throttled) log line."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from faults.common import Robot, Row

GAP_S = 0.01  # between two messages: every one reaches the callback (queue depth 10)
THROTTLE_S = 1.1  # controllers throttle a callback's log to one line a second: start afresh


def topic_row(
    robot: Robot,
    row: Row,
    pub: Any,
    msgs: Sequence[Any],
    *,
    loggers: Sequence[str],
    observe: Callable[[], Any],
    unchanged: Callable[[Any, Any], bool],
    expected: dict[str, str],
    expect_error: bool = True,
) -> None:
    """Publish `msgs`; the observed state must not change, and (for bad input) a log line
    must say why: only then do the inputs count as errors back."""
    robot.wait(lambda: pub.get_subscription_count() > 0, 10.0)
    before = settled(robot, observe, unchanged)
    mark = robot.mark()
    bad_writes = robot.nonfinite_writes()
    with robot.batch(row):
        for msg in msgs:
            pub.publish(msg)
            row.sent += 1
            robot.spin(GAP_S)
        robot.spin(0.3)
    after = observe()
    row.logs = len(robot.log_lines(mark, loggers))
    held = unchanged(before, after)
    if not held:
        row.fail(f'state changed: {before} -> {after}')
    if expect_error:
        row.expected_errors += row.sent
        row.errors += row.sent if held and row.logs else 0
        if not row.logs:
            row.note('no log line')
        elif row.sent >= 5 and row.logs >= row.sent:
            row.note(f'log not throttled ({row.logs} lines)')
    robot.expect_states(row, expected)
    robot.reactivate(row, expected)
    if bad_writes is not None:
        count_nonfinite(robot, row, bad_writes)


def count_nonfinite(robot: Robot, row: Row, before: int) -> None:
    """Fail `row` if write() got non-finite commands since `before`; say so either way."""
    bad = (robot.nonfinite_writes() or 0) - before
    row.note(f'{bad} non-finite writes')
    if bad:
        row.fail('non-finite commands reached the hardware')


def settled(
    robot: Robot,
    observe: Callable[[], Any],
    unchanged: Callable[[Any, Any], bool],
    min_s: float = THROTTLE_S,
) -> Any:
    """The observed state once it holds still, at least `min_s` from now (by default: once
    the last log throttle window is over)."""
    deadline = time.monotonic() + min_s
    current = observe()
    while True:
        robot.spin(0.2)
        latest = observe()
        if unchanged(current, latest) and time.monotonic() >= deadline:
            return latest
        if time.monotonic() > deadline + 5.0:
            return latest
        current = latest


def close(a: Sequence[float] | None, b: Sequence[float] | None, tol: float = 1e-4) -> bool:
    return a is not None and b is not None and all(abs(x - y) <= tol for x, y in zip(a, b))
