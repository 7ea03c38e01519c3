"""CycleGate: other threads wait out the loop's window, and only that."""

import threading
import time

from py_controllers.realtime_tools.cycle_gate import CycleGate


def test_no_loop_never_waits():
    gate = CycleGate()
    gate.wait_clear(max_wait_s=10.0)  # would hang the test if it waited
    assert gate.waits == 0


def test_outside_the_window_runs_at_once():
    gate = CycleGate(guard_ns=1_000_000)
    gate.next_deadline(time.monotonic_ns() + 3_600 * 10**9)  # next cycle in an hour
    gate.wait_clear(max_wait_s=10.0)
    assert gate.waits == 0


def test_inside_the_window_waits_until_the_cycle_ends():
    gate = CycleGate(guard_ns=1_000_000)
    gate.next_deadline(time.monotonic_ns())  # a cycle is due now
    entered = threading.Event()
    released = threading.Event()

    def worker():
        entered.set()
        gate.wait_clear(max_wait_s=60.0)
        released.set()

    thread = threading.Thread(target=worker)
    thread.start()
    assert entered.wait(10.0)
    assert not released.wait(0.05)  # still inside the window: held back
    gate.next_deadline(time.monotonic_ns() + 3_600 * 10**9)  # the cycle ended
    thread.join(10.0)
    assert released.is_set()
    assert gate.waits == 1


def test_a_stopped_loop_releases_waiters():
    gate = CycleGate()
    gate.next_deadline(time.monotonic_ns())
    thread = threading.Thread(target=gate.wait_clear, kwargs={'max_wait_s': 60.0})
    thread.start()
    gate.close()
    thread.join(10.0)
    assert not thread.is_alive()
