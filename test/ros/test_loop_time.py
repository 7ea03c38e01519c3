"""The loop's time and period (LoopTime, LoopDuration) behave as rclpy's Time and Duration
everywhere a controller may use them, and make rclpy's C objects only when something asks
for more than the numbers."""

import time

import pytest
import rclpy
from rclpy.clock import Clock, ClockType
from rclpy.context import Context
from rclpy.duration import Duration
from rclpy.parameter import Parameter
from rclpy.time import Time

from py_controllers.controller_manager.loop_time import LoopClock, LoopDuration, LoopTime

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
    assert set(vars(t)) == {'nanoseconds', 'clock_type'} and set(vars(d)) == {'nanoseconds'}


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


# What LoopTime/LoopDuration assume of rclpy: every member below works from `nanoseconds`
# (and `clock_type`) alone. A member rclpy adds or drops fails the first test: check that it
# still goes through those two properties (or through _BuiltOnDemand), then list it here.
TIME_MEMBERS = {
    '__add__', '__eq__', '__ge__', '__gt__', '__hash__', '__init__', '__le__', '__lt__',
    '__ne__', '__radd__', '__repr__', '__sub__', 'clock_type', 'from_msg', 'nanoseconds',
    'seconds_nanoseconds', 'to_msg',
}  # fmt: skip
DURATION_MEMBERS = {
    '__add__', '__eq__', '__ge__', '__gt__', '__hash__', '__init__', '__le__', '__lt__',
    '__mul__', '__ne__', '__repr__', '__str__', '__sub__', 'from_msg', 'get_c_duration',
    'nanoseconds', 'to_msg',
}  # fmt: skip
# jazzy's rclpy (7.1) has no Duration arithmetic: the same members less these
DURATION_ARITHMETIC = {'__add__', '__sub__', '__mul__'}
HAS_DURATION_ARITHMETIC = '__add__' in vars(Duration)


def _hash(x):
    try:
        return hash(x)
    except TypeError:  # rclpy's Time is unhashable
        return 'unhashable'


def _members(cls):
    return {n for n in vars(cls) if n not in ('__dict__', '__doc__', '__module__', '__weakref__')}


def test_rclpy_time_and_duration_have_the_members_loop_time_was_checked_against():
    assert _members(Time) == TIME_MEMBERS
    assert _members(Duration) in (DURATION_MEMBERS, DURATION_MEMBERS - DURATION_ARITHMETIC)


@pytest.mark.parametrize('ns', [0, 1, 999_999_999, 1_000_000_000, NS, 1_770_000_000_123_456_789])
def test_every_member_gives_what_rclpy_gives_for_the_same_nanoseconds(ns):
    clock = ClockType.ROS_TIME
    ours, real = LoopTime(ns, clock), Time(nanoseconds=ns, clock_type=clock)
    d_ours, d_real = LoopDuration(ns), Duration(nanoseconds=ns)
    other = Time(nanoseconds=7, clock_type=clock)
    step = Duration(nanoseconds=2_000_001)
    results = [
        lambda t, d: (t.nanoseconds, t.clock_type, t.seconds_nanoseconds(), t.to_msg()),
        lambda t, d: ((t + step).nanoseconds, (step + t).nanoseconds, (t + step).clock_type),
        lambda t, d: ((t - other).nanoseconds, (t - Duration(nanoseconds=min(ns, 5))).nanoseconds),
        lambda t, d: (t == other, t != other, t < other, t <= other, t > other, t >= other),
        lambda t, d: (_hash(t), repr(t), type(t - other), type(t + step)),
        lambda t, d: (d.nanoseconds, d.to_msg(), str(d), repr(d)),
        lambda t, d: (d == step, d != step, d < step, d <= step, d > step, d >= step),
        lambda t, d: (_hash(d), d.get_c_duration().nanoseconds),
    ]
    if HAS_DURATION_ARITHMETIC:
        results += [
            lambda t, d: ((d + step).nanoseconds, (d - step).nanoseconds),
            lambda t, d: ((d * 3).nanoseconds, (d * 0.5).nanoseconds),
        ]
    for i, result in enumerate(results):
        assert result(ours, d_ours) == result(real, d_real), i
    # and the other way round: rclpy's own objects on the left
    assert (
        real - ours == Duration() and ours - real == Duration() and real + d_ours == ours + d_real
    )


def test_the_loop_clock_reads_system_time_until_ros_time_takes_over_and_after_it_ends():
    """LoopClock skips rclpy's `now()` only while the clock is the system's: with use_sim_time
    switched on at run time it reads the ROS time (0 until /clock speaks), back off it reads
    the system time again; a steady clock reads the monotonic one."""
    context = Context()
    rclpy.init(context=context)
    node = rclpy.create_node('loop_clock_test', context=context)
    try:
        loop_clock = LoopClock(node.get_clock())
        before = time.time_ns()
        now = loop_clock.now_ns()
        assert before <= now <= time.time_ns()
        node.set_parameters([Parameter('use_sim_time', value=True)])
        assert node.get_clock().ros_time_is_active
        assert loop_clock.now_ns() == node.get_clock().now().nanoseconds == 0
        node.set_parameters([Parameter('use_sim_time', value=False)])
        before = time.time_ns()
        assert before <= loop_clock.now_ns() <= time.time_ns()

        steady = LoopClock(Clock(clock_type=ClockType.STEADY_TIME))
        before = time.monotonic_ns()
        assert before <= steady.now_ns() <= time.monotonic_ns()
        system = LoopClock(Clock(clock_type=ClockType.SYSTEM_TIME))
        before = time.time_ns()
        assert before <= system.now_ns() <= time.time_ns()
    finally:
        node.destroy_node()
        rclpy.shutdown(context=context)
