"""`--dashboard`: a demo's robot kept up after its run, with the web dashboard on it, until
Ctrl-C (the dashboard is started only then: its start-up would compete with the steps)."""

from __future__ import annotations

import contextlib
import signal

from py_controllers.demo.summary import print_summary


def stay_up_with_dashboard(port: int, results: list[tuple[str, bool, str]]) -> None:
    """Serve the dashboard on `port`, print the summary and its address, wait for Ctrl-C."""
    from py_controllers.dashboard.browser import DashboardProcess

    with DashboardProcess(port=port) as dashboard:
        print_summary(results)
        print(f'\n   the robot stays up for the dashboard at {dashboard.address()}: Ctrl-C ends')
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: let cleanup finish
