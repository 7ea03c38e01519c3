"""CycleGate: other threads wait out the loop's window, and only that; work that knows its
length waits when it would run into the window."""

import threading
import time

from py_controllers.realtime_tools.cycle_gate import CycleGate, WorkEstimate


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


def test_work_that_would_run_into_the_window_waits_for_the_cycle():
    gate = CycleGate(guard_ns=1_000_000)
    gate.next_deadline(time.monotonic_ns() + 3_600 * 10**9)  # the window opens in an hour
    gate.wait_clear(expected_ns=60 * 10**9, max_wait_s=10.0)  # a minute's work fits
    assert gate.waits == 0
    started = time.monotonic_ns()
    gate.wait_clear(expected_ns=2 * 3_600 * 10**9, max_wait_s=0.01)  # two hours do not
    assert gate.waits == 1
    assert time.monotonic_ns() - started >= 10_000_000  # held back until the bounded wait ran out


def test_work_estimate_takes_a_longer_sample_at_once_and_forgets_slowly():
    estimate = WorkEstimate()
    assert estimate.ns == 0
    estimate.record(800)
    assert estimate.ns == 800
    estimate.record(100)  # shorter: an eighth forgotten
    assert estimate.ns == 700
    estimate.record(600)  # below what is left after forgetting: forgotten again
    assert estimate.ns == 700 - (700 >> 3)
    estimate.record(650)  # above it: taken
    assert estimate.ns == 650
    estimate.record(5_000)
    assert estimate.ns == 5_000
    for _ in range(40):
        estimate.record(10)
    assert estimate.ns < 100
