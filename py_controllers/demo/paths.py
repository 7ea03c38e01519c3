"""The planar paths the mobile base demos drive, and the numbers that judge them (no ROS).

A path is a list of legs, each a constant body twist (vx, vy, wz) held for some seconds.
`CommandedPath` integrates the legs over the times the controller held them (when each leg
reached the controller, from its ~/controller_state) into the pose the base was asked to
reach; the odometry is then judged against it. A reference that reaches the controller late
(a busy host) moves where the base goes, not how well its odometry follows what it was told.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from py_controllers.controllers.diff_drive.odometry import integrate_arc

STEP_S = 0.02  # a commanded path's resolution (s)

Pose = tuple[float, float, float]  # x (m), y (m), heading (rad)


@dataclass(frozen=True)
class Leg:
    """A body twist held for `seconds`: forward vx and sideways vy (m/s), yaw rate wz (rad/s)."""

    vx: float
    vy: float
    wz: float
    seconds: float


def figure_eight(speed: float, radius: float) -> list[Leg]:
    """One full circle to the left, then one to the right, at `speed` on `radius`: the
    second loop starts and ends where the first did (the origin, heading 0)."""
    rate = speed / radius
    loop_s = 2.0 * math.pi / rate
    return [Leg(speed, 0.0, rate, loop_s), Leg(speed, 0.0, -rate, loop_s)]


def sideways_square(speed: float, side: float) -> list[Leg]:
    """A square driven without turning: forward, left, back, right (counter-clockwise)."""
    s = side / speed
    return [
        Leg(speed, 0.0, 0.0, s),
        Leg(0.0, speed, 0.0, s),
        Leg(-speed, 0.0, 0.0, s),
        Leg(0.0, -speed, 0.0, s),
    ]


def advance(pose: Pose, vx: float, vy: float, wz: float, dt: float) -> Pose:
    """The pose after holding the body twist (vx, vy, wz) for `dt` seconds: the forward part
    along the exact arc, the sideways part along the mid-step heading."""
    x, y, heading = integrate_arc(pose[0], pose[1], pose[2], vx * dt, wz * dt)
    mid = pose[2] + 0.5 * wz * dt
    return x - vy * dt * math.sin(mid), y + vy * dt * math.cos(mid), heading


@dataclass
class CommandedPath:
    """The poses the legs ask for: `hold(twist, dt)` for each time a twist was in force."""

    poses: list[Pose] = field(default_factory=lambda: [(0.0, 0.0, 0.0)])

    def hold(self, vx: float, vy: float, wz: float, dt: float) -> None:
        self.poses.append(advance(self.poses[-1], vx, vy, wz, dt))

    def hold_for(self, vx: float, vy: float, wz: float, seconds: float, step_s: float) -> None:
        """`hold` for `seconds` in steps of at most `step_s` (a drawable polyline)."""
        steps = max(1, math.ceil(seconds / step_s))
        for _ in range(steps):
            self.hold(vx, vy, wz, seconds / steps)

    @property
    def end(self) -> Pose:
        return self.poses[-1]


Twist = tuple[float, float, float]  # vx (m/s), vy (m/s), wz (rad/s)


REST = (0.0, 0.0, 0.0)


def twist_of(leg: Leg) -> Twist:
    return (leg.vx, leg.vy, leg.wz)


def legs_taken_up(
    legs: Sequence[Leg], sent_s: Sequence[float], applied: Sequence[tuple[float, Twist]]
) -> list[float]:
    """When the controller took up each leg, on its clock. `applied`: (stamp, the twist the
    controller's state shows it applying), in stamp order. Leg k, first sent at `sent_s[k]`,
    was taken up at the first stamp at or after that (and after leg k-1's) whose twist is
    nearer leg k's than the leg's before it (the base at rest before the first). A leg never
    seen keeps its sent time."""
    starts: list[float] = []
    i = 0
    for k, sent in enumerate(sent_s):
        new, old = twist_of(legs[k]), twist_of(legs[k - 1]) if k else REST
        while i < len(applied) and applied[i][0] < max(sent, starts[-1] if starts else sent):
            i += 1
        j = next(
            (
                j
                for j in range(i, len(applied))
                if math.dist(applied[j][1], new) < math.dist(applied[j][1], old)
            ),
            None,
        )
        starts.append(applied[j][0] if j is not None else sent)
        if j is not None:
            i = j
    return starts


def distance_to_path(point: tuple[float, float], path: list[Pose]) -> float:
    """The shortest distance from `point` to the polyline through `path`'s positions."""
    px, py = point
    best = math.inf
    for (ax, ay, _), (bx, by, _) in pairwise(path):
        dx, dy = bx - ax, by - ay
        length2 = dx * dx + dy * dy
        t = (
            0.0
            if length2 == 0.0
            else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
        )
        best = min(best, math.hypot(px - ax - t * dx, py - ay - t * dy))
    return best


def max_deviation(odometry: list[Pose], commanded: list[Pose]) -> float:
    """How far the odometry path strays from the commanded path at its worst (m)."""
    return max((distance_to_path(p[:2], commanded) for p in odometry), default=math.nan)


def heading_error(a: float, b: float) -> float:
    """a - b wrapped to [-pi, pi)."""
    return (a - b + math.pi) % (2.0 * math.pi) - math.pi


def finite_or_rest(twist: Twist) -> Twist:
    """`twist`, or rest when a part of it is not a number (a controller with no reference)."""
    return twist if all(math.isfinite(v) for v in twist) else REST


def relative(a: Pose, b: Pose) -> Pose:
    """Pose `b` in the frame of pose `a` (the motion from a to b, as the base saw it)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    c, s = math.cos(a[2]), math.sin(a[2])
    return c * dx + s * dy, -s * dx + c * dy, b[2] - a[2]


def compose(a: Pose, d: Pose) -> Pose:
    """Pose `a` moved by `d`, a motion in a's frame (the inverse of `relative`)."""
    c, s = math.cos(a[2]), math.sin(a[2])
    return a[0] + c * d[0] - s * d[1], a[1] + s * d[0] + c * d[1], a[2] + d[2]


def applied_path(
    legs: Sequence[Leg],
    starts: Sequence[float],
    applied: Sequence[tuple[float, Twist]],
    odometry: Sequence[tuple[float, Pose]] = (),
    stalls: Sequence[tuple[float, float]] = (),
) -> tuple[CommandedPath, list[int], list[float]]:
    """The path of the twists a controller applied, `applied` being (stamp, twist) from its
    states in stamp order, from the first leg's take-up, each twist held until the next
    stamp (a stalled controller's base keeps its last command); each leg's end pose index
    (at the next leg's take-up, `starts`), and for how many seconds of each leg the applied
    twist was nearer the leg's than rest (fewer than the leg's length: its reference timed
    out, and the base was told to rest meanwhile).

    `stalls`: (from, to) spans in which the receiving process stalled and may have lost
    states (and odometry) sent meanwhile. Each lasts until the states come back too (states
    that come back after the odometry would otherwise leave the path holding the twist from
    before the stall, across a leg's take-up: 2 x 48 deg/s on the car's figure-eight, the
    likely cause of s41's 17 deg); over it, widened to the `odometry` (stamp, pose) around it
    (`stall_spans`), the path takes the odometry's own motion, and those seconds do not count
    as held.
    """
    last = applied[-1][0] if applied else starts[0]
    times = [t for t, _ in odometry]
    stamps = [t for t, _ in applied]
    resumed = []
    for a, b in stalls:
        came = first_at_or_after(stamps, b)
        resumed.append((a, b if came is None else came))
    spans = merged(
        (max(a, starts[0]), min(b, last))
        for a, b in stall_spans(times, resumed)
        if min(b, last) > max(a, starts[0])
    )
    cuts = sorted(
        {t for t, _ in applied}
        | {t for span in spans for t in span}
        | set(starts[1:])
        | {starts[0]}
    )
    twist_at = _stepwise([(t, finite_or_rest(twist)) for t, twist in applied])
    path, ends, held = CommandedPath(), [], [0.0] * (len(starts) - 1)
    k = 0
    for u, v in pairwise(c for c in cuts if starts[0] <= c <= last):
        span = next((sp for sp in spans if sp[0] <= u and v <= sp[1]), None)
        if span is None:
            twist = twist_at(u)
            path.hold_for(*twist, v - u, STEP_S)
            if k < len(held) and math.dist(twist, twist_of(legs[k])) < math.dist(twist, REST):
                held[k] += v - u
        elif v == span[1]:
            anchor = path.end
            path.poses.extend(compose(anchor, m) for m in motion_across(odometry, *span))
        while k + 1 < len(starts) and v >= starts[k + 1]:
            ends.append(len(path.poses) - 1)
            k += 1
    ends += [len(path.poses) - 1] * (len(held) - len(ends))
    return path, ends[: len(held)], held


def first_at_or_after(times: Sequence[float], t: float) -> float | None:
    """The first of `times` (in order) at or after `t`; None when none is."""
    i = bisect.bisect_left(times, t)
    return times[i] if i < len(times) else None


def stall_spans(
    times: Sequence[float], stalls: Iterable[tuple[float, float]]
) -> list[tuple[float, float]]:
    """Each stall (from, to) widened to the odometry `times` around it: from the last one at
    or before its start to the first at or after its end. A stall with no odometry after it
    is left out: nothing shows what the base did in it."""
    spans = []
    for a, b in stalls:
        after = bisect.bisect_left(times, b)
        if after < len(times):
            spans.append((times[max(bisect.bisect_right(times, a) - 1, 0)], times[after]))
    return spans


def motion_across(odometry: Sequence[tuple[float, Pose]], t0: float, t1: float) -> list[Pose]:
    """The odometry's motions, each relative to its pose at `t0` (the last at or before it),
    to each pose it has after `t0` up to `t1`."""
    times = [t for t, _ in odometry]
    start = odometry[max(bisect.bisect_right(times, t0) - 1, 0)][1]
    return [relative(start, pose) for t, pose in odometry if t0 < t <= t1]


def merged(spans: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """The union of (from, to) spans, as disjoint spans in order (q25: two stalls of the
    demo in one stall of the manager gave overlapping spans, and their motion twice)."""
    out: list[tuple[float, float]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _stepwise(points: Sequence[tuple[float, Twist]]) -> Callable[[float], Twist]:
    """The twist in force at time t: the last point's at or before t (rest before all)."""
    times = [t for t, _ in points]

    def at(t: float) -> Twist:
        i = bisect.bisect_right(times, t) - 1
        return points[i][1] if i >= 0 else REST

    return at
