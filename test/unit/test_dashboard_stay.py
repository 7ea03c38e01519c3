"""`--dashboard`'s wait for Ctrl-C: a Ctrl-C that comes right with the prompt ends it cleanly
(with signal.pause() one that came before the call was lost and the demo slept on)."""

import os
import signal
import threading

import py_controllers.dashboard.browser as browser
import py_controllers.demo.dashboard_stay as stay


class _Served:
    def __init__(self, port: int) -> None:
        self.port = port

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def address(self) -> str:
        return f'http://127.0.0.1:{self.port}/'


def test_a_ctrl_c_with_the_prompt_ends_the_wait(monkeypatch, capsys):
    monkeypatch.setattr(browser, 'DashboardProcess', _Served)
    monkeypatch.setattr(stay, 'print_summary', lambda _: os.kill(os.getpid(), signal.SIGINT))
    previous = signal.getsignal(signal.SIGINT)
    done = threading.Event()
    # a guard: the wait must end on the Ctrl-C already given, not on this one
    guard = threading.Timer(30.0, lambda: done.is_set() or os.kill(os.getpid(), signal.SIGINT))
    guard.start()
    try:
        stay.stay_up_with_dashboard(8123, [])
        done.set()
    finally:
        guard.cancel()
        signal.signal(signal.SIGINT, previous)
    assert 'Ctrl-C ends' in capsys.readouterr().out
