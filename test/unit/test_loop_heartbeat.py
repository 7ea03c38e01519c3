"""The loop's heartbeat starts once its thread is set up: `thread_setup` (SCHED_FIFO, CPU
affinity, lock_memory, which can take seconds) is not a stall. Before, the heartbeat was set
first, so a slow lock_memory tripped the watchdog at start."""

import threading
import time

from rclpy.clock import Clock, ClockType

from py_controllers.controller_manager.loop import ControlLoop
from py_controllers.controller_manager.watchdog import LoopWatchdog


class Manager:
    cycle_lock = threading.RLock()
    rm = None


def test_the_heartbeat_starts_after_the_loop_threads_set_up():
    in_setup, go_on = threading.Event(), threading.Event()

    def slow_setup():  # mlockall on a big process, say
        in_setup.set()
        go_on.wait(10.0)
        raise RuntimeError('the test ends the loop here')

    loop = ControlLoop(
        Manager(), Clock(clock_type=ClockType.STEADY_TIME), 100, thread_setup=slow_setup
    )
    stalls = []
    dog = LoopWatchdog(loop, on_stall=lambda silent_s, stack: stalls.append(silent_s))
    loop.start()
    try:
        assert in_setup.wait(10.0)
        assert loop.running and loop.last_cycle_ns == 0
        check = dog.check_ns
        now = time.monotonic_ns()
        for i in range(1, 9):  # two stall thresholds of looks, on time, while set-up runs
            dog.check(now + i * check, check)
        assert stalls == []
    finally:
        go_on.set()
        loop.stop(10.0)
