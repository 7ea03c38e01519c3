"""The loop's time and period (LoopTime, LoopDuration) behave as rclpy's Time and Duration
everywhere a controller may use them, and make rclpy's C objects only when something asks
for more than the numbers."""

import pytest
import rclpy
from rclpy.clock import Clock, ClockType
from rclpy.context import Context
from rclpy.duration import Duration
from rclpy.time import Time

from py_controllers.controller_manager.loop_time import LoopDuration, LoopTime

NS = 1_500_000_123


def test_the_numbers_and_what_is_built_from_them_match_rclpy():
    t, ref = LoopTime(NS, ClockType.ROS_TIME), Time(nanoseconds=NS, clock_type=ClockType.ROS_TIME)
    d, ref_d = LoopDuration(2_000_000), Duration(nanoseconds=2_000_000)
    assert isinstance(t, Time) and isinstance(d, Duration)
    assert (t.nanoseconds, t.clock_type, t.seconds_nanoseconds()) == (
        ref.nanoseconds,
        ref.clock_type,
        ref.seconds_nanoseconds(),
    )
    assert t == ref and not t < ref and t <= ref and ref == t
    assert t.to_msg() == ref.to_msg() and repr(t) == repr(ref)
    assert (t + d).nanoseconds == NS + 2_000_000
    assert (t - d).nanoseconds == NS - 2_000_000
    assert t - Time(nanoseconds=123, clock_type=ClockType.ROS_TIME) == Duration(seconds=1.5)
    assert d == ref_d and d < Duration(seconds=1.0) and d.to_msg() == ref_d.to_msg()
    with pytest.raises(TypeError):  # as rclpy: no arithmetic across clock types
        t - Time(nanoseconds=1, clock_type=ClockType.STEADY_TIME)
    # nothing above needed rclpy's own objects: only the numbers are held
    assert set(vars(t)) == {'_loop_ns', '_loop_clock_type'} and set(vars(d)) == {'_loop_ns'}


def test_rclpy_code_that_needs_its_own_objects_gets_them():
    context = Context()
    rclpy.init(context=context)
    try:
        clock = Clock(clock_type=ClockType.STEADY_TIME)
        until = LoopTime(clock.now().nanoseconds + 1_000_000, ClockType.STEADY_TIME)
        assert clock.sleep_until(until, context=context)
        assert clock.now() >= until
        assert LoopDuration(5).get_c_duration().nanoseconds == 5
    finally:
        rclpy.shutdown(context=context)
    with pytest.raises(AttributeError):
        _ = LoopTime(NS, ClockType.ROS_TIME).no_such_attribute
