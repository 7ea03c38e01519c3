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
    rescued = threading.Event()

    def rescue() -> None:  # a guard only: the wait must end on the Ctrl-C already given
        rescued.set()
        os.kill(os.getpid(), signal.SIGINT)

    guard = threading.Timer(30.0, rescue)
    guard.start()
    try:
        stay.stay_up_with_dashboard(8123, [])
    finally:
        guard.cancel()
        signal.signal(signal.SIGINT, previous)
    assert not rescued.is_set()
    assert 'Ctrl-C ends' in capsys.readouterr().out
