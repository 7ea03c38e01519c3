"""`--dashboard`: a demo's robot kept up after its run, with the web dashboard on it, until
Ctrl-C (the dashboard is started only then: its start-up would compete with the steps)."""

from __future__ import annotations

import signal
import threading

from py_controllers.demo.summary import print_summary


def stay_up_with_dashboard(port: int, results: list[tuple[str, bool, str]]) -> None:
    """Serve the dashboard on `port`, print the summary and its address, wait for Ctrl-C."""
    from py_controllers.dashboard.browser import DashboardProcess

    ctrl_c = threading.Event()
    with DashboardProcess(port=port) as dashboard:
        # The handler is in place before the prompt: a Ctrl-C right after it is not lost (it
        # was, with signal.pause(), when it came before the call: pause() then slept on).
        signal.signal(signal.SIGINT, lambda *_: ctrl_c.set())
        try:
            print_summary(results)
            address = dashboard.address()
            print(f'\n   the robot stays up for the dashboard at {address}: Ctrl-C ends')
            while not ctrl_c.wait(1.0):
                pass
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: let cleanup finish
