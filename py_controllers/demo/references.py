"""A mobile base driven as a user would: its legs streamed as TwistStamped references, and
the path they command, each leg held as long as the controller held it.

The controller's own messages say when it took each leg up (`paths.legs_taken_up`); a
reference that reaches it late on a busy host then moves the commanded path along with the
base, and the odometry is judged against what the base was really told. Where the
controller's state shows the twist it applies, `paths.applied_path` integrates that twist
itself, so a reference that timed out mid-leg (the base told to rest) is in the commanded
path too.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from geometry_msgs.msg import TwistStamped

from py_controllers.demo import paths
from py_controllers.demo.paths import CommandedPath, Leg, Pose, Twist
from py_controllers.ros_conversions import duration_to_s
from py_controllers.testing import RosHarness

PUBLISH_PERIOD_S = 0.02  # the reference stream: about 40 Hz once spinning is counted


def stamp_s(msg: Any) -> float:
    """A message's header stamp, s."""
    return duration_to_s(msg.header.stamp)


def pose_of(msg: Any) -> Pose:
    """An Odometry message's planar pose."""
    p, q = msg.pose.pose.position, msg.pose.pose.orientation
    return p.x, p.y, 2.0 * math.atan2(q.z, q.w)


def describe(pose: Pose) -> str:
    return f'x={pose[0]:+.3f} m  y={pose[1]:+.3f} m  yaw={math.degrees(pose[2]):+7.2f} deg'


def odometry_twist(msg: Any) -> Twist:
    """The twist an Odometry message measured (the wheels', so it lags the command by the
    same amount when a leg starts and when it ends: the legs' lengths come out right)."""
    t = msg.twist.twist
    return (t.linear.x, t.linear.y, t.angular.z)


class StallWatch:
    """The times this process did not run for `min_s` or more, (from, to) in ROS time (s),
    seen between two `tick()`s: a process stopped or starved for a while can lose messages
    sent to it meanwhile (their writers keep only the last few)."""

    def __init__(self, ros: RosHarness, min_s: float = 0.25) -> None:
        self._clock = ros.node.get_clock()
        self.min_s = min_s
        self.stalls: list[tuple[float, float]] = []
        self._last: float | None = None

    def tick(self) -> None:
        now = self._clock.now().nanoseconds * 1e-9
        if self._last is not None and now - self._last >= self.min_s:
            self.stalls.append((self._last, now))
        self._last = now


def stream_legs(
    ros: RosHarness, pub: Any, legs: Sequence[Leg], watch: StallWatch | None = None
) -> list[float]:
    """Publish each leg's twist for its seconds (this process's clock), spinning between;
    when each leg's first reference went out (ROS time, s)."""
    twist = TwistStamped()
    sent_s = []
    for leg in legs:
        twist.twist.linear.x, twist.twist.linear.y = leg.vx, leg.vy
        twist.twist.angular.z = leg.wz
        sent_s.append(ros.node.get_clock().now().nanoseconds * 1e-9)
        end = time.monotonic() + leg.seconds
        while time.monotonic() < end:
            if watch is not None:
                watch.tick()
            twist.header.stamp = ros.node.get_clock().now().to_msg()
            pub.publish(twist)
            ros.spin_until(lambda: False, timeout_s=PUBLISH_PERIOD_S)
    return sent_s


def wait_for_rest(
    ros: RosHarness,
    states: list,
    applied: Callable[[Any], Twist],
    since: tuple[float, Twist],
    more_s: float,
    watch: StallWatch | None = None,
) -> bool:
    """Spin until `states` (stamped messages, `applied` giving the twist each shows) show
    the base told to rest, nearer rest than the twist before it, since `since` (the stop's
    send time, the twist before), and `more_s` more of their time passed."""
    since_s, before = since

    def resting(msg: Any) -> bool:
        twist = applied(msg)
        return math.dist(twist, paths.REST) < math.dist(twist, before)

    def done() -> bool:
        if watch is not None:
            watch.tick()
        rested = None
        for msg in reversed(states):
            if stamp_s(msg) < since_s or not resting(msg):
                break
            rested = stamp_s(msg)
        return rested is not None and stamp_s(states[-1]) >= rested + more_s

    return ros.spin_until(done)


def held_path(
    legs: Sequence[Leg], sent_s: Sequence[float], states: Sequence[Any], applied: Callable
) -> tuple[CommandedPath, list[float], list[float]]:
    """The commanded path with each leg held from its take-up to the next leg's, the take-up
    times, and each leg's end pose index in the path's poses."""
    starts = paths.legs_taken_up(legs, sent_s, [(stamp_s(m), applied(m)) for m in states])
    path, ends = CommandedPath(), []
    for leg, start, end in zip(legs, starts, starts[1:]):
        path.hold_for(leg.vx, leg.vy, leg.wz, max(0.0, end - start), paths.STEP_S)
        ends.append(len(path.poses) - 1)
    return path, starts, ends
