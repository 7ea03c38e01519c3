"""Per-cycle cost of the loop's `time` and `period`: LoopTime/LoopDuration against rclpy's
own Time/Duration (public API), for one 1 kHz cycle of a demo-sized robot.

One cycle makes a time for read() and one for update(), a period for each and one more for a
controller at a lower rate, and the controllers and components read `nanoseconds` about 24
times (demo robot: 6 controllers, 2 components) and stamp 3 messages (`to_msg`). Measured
hot (back to back) and after a 1 ms sleep, as the loop runs. `python -m bench.loop_time_cost`
"""

from __future__ import annotations

import statistics
import time

from rclpy.clock import ClockType
from rclpy.duration import Duration
from rclpy.time import Time

from bench.common import table
from py_controllers.controller_manager.loop_time import LoopDuration, LoopTime

READS = 24
STAMPS = 0  # stamps go through set_stamp(nanoseconds), not to_msg()


def _rclpy(ns: int) -> int:
    times = [Time(nanoseconds=ns, clock_type=ClockType.ROS_TIME) for _ in range(2)]
    periods = [Duration(nanoseconds=1_000_000) for _ in range(3)]
    total = 0
    for i in range(READS):
        total += times[i % 2].nanoseconds + periods[i % 3].nanoseconds
    for _ in range(STAMPS):
        times[1].to_msg()
    return total


def _loop(ns: int) -> int:
    times = [LoopTime(ns, ClockType.ROS_TIME) for _ in range(2)]
    periods = [LoopDuration(1_000_000) for _ in range(3)]
    total = 0
    for i in range(READS):
        total += times[i % 2].nanoseconds + periods[i % 3].nanoseconds
    for _ in range(STAMPS):
        times[1].to_msg()
    return total


def cycle_us(work, cycles: int, sleep_s: float) -> float:
    """Median microseconds of one cycle's time-and-period work."""
    samples = []
    for k in range(cycles):
        if sleep_s:
            time.sleep(sleep_s)
        t0 = time.perf_counter_ns()
        work(1_700_000_000_000_000_000 + k)
        samples.append((time.perf_counter_ns() - t0) / 1e3)
    return statistics.median(samples)


def main() -> None:
    rows = []
    for label, cycles, sleep_s in (('hot', 20_000, 0.0), ('after a 1 ms sleep', 2_000, 0.001)):
        ours, theirs = [], []
        for _ in range(5):  # A/B interleaved rounds
            ours.append(cycle_us(_loop, cycles, sleep_s))
            theirs.append(cycle_us(_rclpy, cycles, sleep_s))
        a, b = statistics.median(ours), statistics.median(theirs)
        rows.append([label, f'{a:.1f}', f'{b:.1f}', f'{b - a:.1f}', f'{(b - a) / 10:.2f} %'])
    headers = ['cycle', 'LoopTime us', 'rclpy Time us', 'difference us', 'of 1 ms']
    print(table(headers, rows))


if __name__ == '__main__':
    main()
