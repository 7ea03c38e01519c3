"""A mobile base driven as a user would: its legs streamed as TwistStamped references, and
the path the controller applied from them, against which its odometry is judged.

The controller's own messages say when it took each leg up (`paths.legs_taken_up`) and
the twist it applied, cycle by cycle (`paths.applied_path` integrates it): a reference that
reaches it late on a busy host, or so late that it times out mid-leg (the base told to
rest), moves the commanded path along with the base. Where this process stalled and lost
messages meanwhile, the path takes the odometry's motion.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
    """A pose in a line, its yaw wrapped to [-180, 180) deg."""
    yaw = math.degrees(paths.heading_error(pose[2], 0.0))
    return f'x={pose[0]:+.3f} m  y={pose[1]:+.3f} m  yaw={yaw:+7.2f} deg'


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


@dataclass
class DrivenPath:
    """A drive judged: when the controller took each leg up, the odometry (stamp, pose) from
    the first take-up, the path of the twists the controller applied (`paths.applied_path`),
    each leg's end pose index in it and the seconds of each leg it applied."""

    starts: list[float]
    odometry: list[tuple[float, Pose]]
    commanded: CommandedPath
    ends: list[int]
    held: list[float]


def driven_path(
    legs: Sequence[Leg],
    sent_s: Sequence[float],
    states: Sequence[Any],
    applied: Callable[[Any], Twist],
    odom: Sequence[Any],
    stalls: Sequence[tuple[float, float]],
) -> DrivenPath:
    """The drive of `legs` (first sent at `sent_s`) as the controller applied them, from
    its `states` (`applied` giving the twist each shows) and its Odometry messages `odom`;
    `stalls`: where this process stalled (a `StallWatch`'s)."""
    twists = [(stamp_s(m), applied(m)) for m in states]
    starts = paths.legs_taken_up(legs, sent_s, twists)
    odometry = [(stamp_s(m), pose_of(m)) for m in odom if stamp_s(m) >= starts[0]]
    commanded, ends, held = paths.applied_path(legs, starts, twists, odometry, stalls)
    for t0, t1 in stalls:
        print(
            f'    this process stalled {t1 - t0:.2f} s, {t0 - starts[0]:.2f} s into the '
            f'drive (the next state {_after_ms([t for t, _ in twists], t1)}, the next '
            f'odometry {_after_ms([t for t, _ in odometry], t1)}): where states are missing '
            "then, the commanded path takes the odometry's motion"
        )
    return DrivenPath(starts, odometry, commanded, ends, held)


def _after_ms(stamps: Sequence[float], t: float) -> str:
    """When the first of `stamps` (in order) at or after `t` came, for a stall's account."""
    later = paths.first_at_or_after(stamps, t)
    return 'never came' if later is None else f'{(later - t) * 1000:.0f} ms after it'
