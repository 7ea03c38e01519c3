"""ros2_control_node's signals (process_signals): a handled signal wakes the registered
waker from a thread of its own, as Python's C-level handler writes it to the wake-up
descriptor (the main thread may be inside rclpy's wait, where no Python handler runs), the
handler still asks for the safe stop, and close() gives handlers and descriptor back."""

import os
import signal
import threading

import pytest

from py_controllers.controller_manager.process_signals import ProcessSignals

WAIT_S = 10.0  # an upper guard: the wake comes within milliseconds


@pytest.fixture
def signals():
    made = ProcessSignals()
    yield made
    made.close()


def test_a_signal_wakes_the_waker_from_another_thread_and_asks_for_the_safe_stop(signals):
    woken_in: list[int] = []
    woken = threading.Event()

    def wake() -> None:
        woken_in.append(threading.get_ident())
        woken.set()

    signals.wake_with(wake)
    os.kill(os.getpid(), signal.SIGTERM)
    assert woken.wait(WAIT_S)
    assert woken_in[0] != threading.get_ident()  # the relay's thread, not the main one
    assert signals.stop.is_set() and not signals.emergency


def test_a_waker_that_fails_does_not_end_the_relay(signals):
    """After shutdown the node's guard condition is gone and waking it raises: the next
    signal must still wake (and the handler run)."""
    first, second = threading.Event(), threading.Event()

    def wake() -> None:
        if not first.is_set():
            first.set()
            raise RuntimeError('the node is gone')
        second.set()

    signals.wake_with(wake)
    os.kill(os.getpid(), signal.SIGHUP)
    assert first.wait(WAIT_S)
    assert signals.stop.is_set()  # the handler ran as this thread ran Python again
    signals.stop.clear()  # so the next signal is a first one again, not the emergency stop
    os.kill(os.getpid(), signal.SIGHUP)
    assert second.wait(WAIT_S)


def test_close_gives_back_the_handlers_and_the_wake_up_descriptor():
    wakeup_fd_before = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(wakeup_fd_before)
    handlers_before = {sig: signal.getsignal(sig) for sig in ProcessSignals.HANDLED}
    ProcessSignals().close()
    assert {sig: signal.getsignal(sig) for sig in ProcessSignals.HANDLED} == handlers_before
    assert signal.set_wakeup_fd(wakeup_fd_before) == wakeup_fd_before
    assert not any(t.name == 'signal wake-up' for t in threading.enumerate())
