"""Run a step of the way out with a bound on its time: hardware code may block forever."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def run_bounded(work: Callable[[], Any], timeout_s: float, name: str) -> tuple[bool, Any]:
    """Run `work` in a daemon thread and wait at most `timeout_s`; (finished, its result).

    An exception in `work` comes back as the result. A step that does not finish is left
    running (a daemon thread: it ends with the process) and the caller goes on.
    """
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # reported to the caller, never lost
            outcome.append(exc)

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        return False, None
    return True, outcome[0] if outcome else None
