"""Bounds on waits: a step of the way out (hardware code may block forever) and a service's
wait for the cycle lock (a cycle may be stuck)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def run_each_bounded(
    work: dict[str, Callable[[], Any]], timeout_s: float, what: str
) -> dict[str, Any]:
    """Run every `work[name]()` in a daemon thread of its own, all at once, and wait for
    them together at most `timeout_s`; name -> its result (an exception is a result), or
    TimeoutError for the ones still running (left to end with the process)."""
    results: dict[str, Any] = {}

    def run(name: str, job: Callable[[], Any]) -> None:
        try:
            results[name] = job()
        except BaseException as exc:  # reported to the caller, never lost
            results[name] = exc

    threads = [
        threading.Thread(target=run, args=(n, j), name=f'{what}:{n}', daemon=True)
        for n, j in work.items()
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout_s
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return {n: results.get(n, TimeoutError(what)) for n in work}


LOCK_TIMEOUT_S = 2.0
"""The longest a service waits for the cycle lock: a loop stuck inside a cycle holds it."""


class LoopBusyError(RuntimeError):
    """The cycle lock was not free within its bound (a loop stuck inside a cycle)."""


@contextmanager
def bounded_lock(lock: Any, what: str, timeout_s: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold `lock` (re-entrant: immediate for its holder) for the block, or raise
    LoopBusyError after `timeout_s`: a service never waits for the loop without a bound."""
    if not lock.acquire(timeout=timeout_s):
        raise LoopBusyError(
            f'{what}: the control loop did not let go of its lock within {timeout_s:g} s '
            '(a cycle is stuck): nothing changed'
        )
    try:
        yield
    finally:
        lock.release()
