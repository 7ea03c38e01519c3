"""Message builders for the controller inputs: trajectories, twists, latest-value holders."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from builtin_interfaces.msg import Duration, Time
from geometry_msgs.msg import TwistStamped
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

ARM = [f'joint{i}' for i in range(1, 7)]
NAN, INF = math.nan, math.inf
HUGE = 1e308  # finite, but anything multiplied by it overflows
INT32_MAX = 2**31 - 1


class Latest:
    """The newest message on a topic (nothing piles up at 100 Hz)."""

    def __init__(self, node: Any, msg_type: Any, topic: str, qos: Any = 10) -> None:
        self.msg: Any = None
        self.count = 0
        node.create_subscription(msg_type, topic, self._take, qos)

    def _take(self, msg: Any) -> None:
        self.msg = msg
        self.count += 1


def duration(seconds: float) -> Duration:
    """A Duration message; negative values keep a non-negative nanosec field."""
    ns = round(seconds * 1e9)
    sec, nanosec = divmod(ns, 1_000_000_000)
    return Duration(sec=int(sec), nanosec=int(nanosec))


def point(
    t: float,
    positions: Sequence[float] = (),
    velocities: Sequence[float] = (),
    accelerations: Sequence[float] = (),
    effort: Sequence[float] = (),
) -> JointTrajectoryPoint:
    return JointTrajectoryPoint(
        positions=[float(v) for v in positions],
        velocities=[float(v) for v in velocities],
        accelerations=[float(v) for v in accelerations],
        effort=[float(v) for v in effort],
        time_from_start=duration(t),
    )


def trajectory(
    points: Sequence[JointTrajectoryPoint],
    names: Sequence[str] = ARM,
    stamp: tuple[int, int] = (0, 0),
) -> JointTrajectory:
    msg = JointTrajectory(joint_names=list(names), points=list(points))
    msg.header.stamp = Time(sec=stamp[0], nanosec=stamp[1])
    return msg


def shifted(hold: Sequence[float], delta: float = 0.1) -> list[float]:
    """`hold` with every joint moved by `delta` (so an accepted bad input would show)."""
    return [v + delta for v in hold]


def bad_trajectories(hold: Sequence[float], now_s: float) -> dict[str, list[JointTrajectory]]:
    """Malformed trajectories by kind; each would move the arm if it were taken."""
    to = shifted(hold)
    half = to[:3]
    return {
        'wrong sizes': [
            trajectory([point(0.5, half)]),
            trajectory([point(0.5, to, [0.0, 0.0])]),
            trajectory([point(0.5, to, [0.0] * 6, [0.0] * 7)]),
            trajectory([point(0.5, to, effort=[1.0, 2.0])]),
            trajectory([point(0.5, to + [0.0] * 94)]),
        ],
        'NaN / inf values': [
            trajectory([point(0.5, [NAN, *to[1:]])]),
            trajectory([point(0.5, [*to[:5], INF])]),
            trajectory([point(0.5, to, [-INF] + [0.0] * 5)]),
            trajectory([point(0.5, to, [0.0] * 6, [NAN] * 6)]),
        ],
        'huge finite values (+-1e308)': [
            trajectory([point(0.5, [HUGE, *to[1:]])]),
            trajectory([point(0.5, [*to[:5], -HUGE])]),
            trajectory([point(0.5, to, [HUGE] + [0.0] * 5)]),
            trajectory([point(0.5, to, [0.0] * 6, [-HUGE] * 6)]),
        ],
        'negative stamps': [
            trajectory([point(0.5, to)], stamp=(-5, 0)),
            trajectory([point(0.5, to)], stamp=(-(2**31), 0)),
            trajectory([point(0.5, to)], stamp=(int(now_s) - 100, 0)),
        ],
        'unknown joints': [
            trajectory([point(0.5, to)], names=[*ARM[:5], 'no_such_joint']),
            trajectory([point(0.5, to[:1])], names=['gripper_joint']),
            trajectory([point(0.5, to)], names=[n.upper() for n in ARM]),
        ],
        'out-of-order times': [
            trajectory([point(1.0, to), point(0.5, hold)]),
            trajectory([point(0.5, to), point(0.5, hold)]),
            trajectory([point(-1.0, to)]),
            trajectory([point(0.5, to), point(0.2, hold), point(0.9, to)]),
        ],
        'duplicate / empty joint names': [
            trajectory([point(0.5, to)], names=[ARM[0]] * 6),
            trajectory([point(0.5, to)], names=[]),
            trajectory([point(0.5, to)], names=[''] * 6),
        ],
    }


def twist(linear: float, angular: float, stamp_ns: int | None) -> TwistStamped:
    """A TwistStamped; `stamp_ns` may be negative or absurd (None: zero stamp)."""
    msg = TwistStamped()
    if stamp_ns is not None:
        sec, nanosec = divmod(stamp_ns, 1_000_000_000)
        sec = max(-(2**31), min(INT32_MAX, sec))
        msg.header.stamp = Time(sec=int(sec), nanosec=int(nanosec))
    msg.twist.linear.x = linear
    msg.twist.angular.z = angular
    return msg
