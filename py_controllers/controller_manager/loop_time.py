"""The loop's `time` and `period`: rclpy `Time` and `Duration` holding plain integers.

Every controller and hardware component reads `time.nanoseconds` and `period.nanoseconds`
each cycle. rclpy keeps those numbers in objects of its C extension, and after the loop's
sleep, making and reading them is slow. These subclasses keep the integer and the clock type
as Python attributes (in one stepped demo at 100 Hz, A/B interleaved: 13-21 us less of a
380-560 us cycle). Everything public on `Time` and `Duration` is written in terms of `nanoseconds`
and `clock_type`, so it works unchanged; should anything ask for more (`Clock.sleep_until`
reads rclpy's own C object), rclpy's constructor runs then, once, with the same numbers.
Why not plain rclpy objects, with the numbers: docs/speed.md; test/ros/test_loop_time.py
fails when rclpy's members change.

`LoopClock` reads the node clock's time for each cycle without asking rclpy while that is
the system's own time, for the same reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rclpy.clock import Clock, ClockType, JumpHandle, JumpThreshold, TimeJump
from rclpy.duration import Duration
from rclpy.time import Time


class _BuiltOnDemand:
    """Runs the rclpy base class's constructor the first time an attribute it sets is asked
    for (`__getattr__` is only called for attributes not found otherwise)."""

    def _build(self) -> None:
        raise NotImplementedError

    def __getattr__(self, name: str) -> Any:
        state = self.__dict__
        if name.startswith('_loop') or state.get('_loop_built'):
            raise AttributeError(name)
        state['_loop_built'] = True
        self._build()
        return object.__getattribute__(self, name)


class LoopTime(_BuiltOnDemand, Time):
    """A `Time` of `nanoseconds` (>= 0) on a clock of `clock_type`."""

    # Plain class attributes hide rclpy's properties of the same names, so the instance's
    # own values are read as plain attributes (a property is a call, ~14 a demo cycle).
    nanoseconds: int = 0  # type: ignore[assignment]
    clock_type: ClockType = ClockType.ROS_TIME  # type: ignore[assignment]

    def __init__(self, nanoseconds: int, clock_type: ClockType) -> None:
        self.nanoseconds = nanoseconds
        self.clock_type = clock_type

    def _build(self) -> None:
        Time.__init__(self, nanoseconds=self.nanoseconds, clock_type=self.clock_type)


class LoopDuration(_BuiltOnDemand, Duration):
    """A `Duration` of `nanoseconds`."""

    nanoseconds: int = 0  # type: ignore[assignment]  (as LoopTime's)

    def __init__(self, nanoseconds: int) -> None:
        self.nanoseconds = nanoseconds

    def _build(self) -> None:
        Duration.__init__(self, nanoseconds=self.nanoseconds)


class LoopClock:
    """A rclpy clock's time in integer nanoseconds, read each cycle. While the clock is not
    overridden by ROS time (/clock with use_sim_time), its time is the system's: read with
    `time.time_ns()` (or `monotonic_ns()` for a steady clock), the same CLOCK_REALTIME rcl
    reads, at a fraction of `clock.now()`'s cost (2 us hot, 7 us after the loop's sleep).
    A jump callback on the clock follows ROS time being switched on and off."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.clock_type = clock.clock_type
        self._own: Callable[[], int] = (
            time.monotonic_ns if self.clock_type == ClockType.STEADY_TIME else time.time_ns
        )
        self._jumps: JumpHandle | None = None  # kept: the registration lives as long as it
        self._overridden = False
        if self.clock_type == ClockType.ROS_TIME:
            # registered before reading the state, so a switch in between is not missed
            self._jumps = clock.create_jump_callback(
                JumpThreshold(min_forward=None, min_backward=None, on_clock_change=True),
                post_callback=self._on_jump,
            )
            self._overridden = bool(clock.ros_time_is_active)  # type: ignore[attr-defined]

    def _on_jump(self, jump: TimeJump) -> None:
        # by name: jazzy hands rclpy's C enum here, kilted its own
        change = getattr(jump.clock_change, 'name', '')
        if change == 'ROS_TIME_ACTIVATED':
            self._overridden = True
        elif change == 'ROS_TIME_DEACTIVATED':
            self._overridden = False

    def now_ns(self) -> int:
        """The clock's time now, in nanoseconds."""
        if self._overridden:
            return self.clock.now().nanoseconds
        return self._own()
