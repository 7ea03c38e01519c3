"""Malformed input on the mobile bases' TwistStamped topics and odometry services: the
demo robot's diff drive (run from controller_inputs with the other demo controllers) and
the bases of faults.robots.BASES, each on its own ros2_control_node (`--only bases`).

A bad twist (non-finite, negative, stale or far-future stamps) must be refused with a log
line while the base stays where it was, the steering where it was; a huge finite one may be
taken, clamped by the limits, with finite odometry; a valid twist afterwards must still
move the base, and the base stop again once it ends. A SetOdometry with a non-finite pose
answers success false; std_srvs/Empty resets have nothing to malform and are counted as
calls that must be answered."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from control_msgs.srv import SetOdometry
from nav_msgs.msg import Odometry
from sensor_msgs.msg import JointState
from std_srvs.srv import Empty

from faults.common import Robot, Row, cycle, running
from faults.messages import HUGE, INF, INT32_MAX, NAN, Latest, twist
from faults.robots import BASES, Base
from faults.topics import topic_row

Observed = tuple[float, ...]
"""(odometry x, odometry linear.x, steering positions...)."""


class BaseView:
    """One base seen from outside: its odometry, its steering joints, a publisher."""

    def __init__(self, robot: Robot, base: Base) -> None:
        self.robot, self.base = robot, base
        self.odom = Latest(robot.node, Odometry, f'/{base.controller}/{base.odometry}')
        self.states = Latest(robot.node, JointState, '/joint_states') if base.steering else None
        self.pub = robot.node.create_publisher(type(twist(0, 0, None)), base.topic, 10)
        robot.wait(lambda: self.odom.msg is not None, 10.0)

    def observe(self) -> Observed | None:
        msg = self.odom.msg
        if msg is None:
            return None
        steering: list[float] = []
        if self.states is not None:
            js = self.states.msg
            if js is None:
                return None
            names = list(js.name)
            steering = [js.position[names.index(j)] for j in self.base.steering if j in names]
        return (msg.pose.pose.position.x, msg.twist.twist.linear.x, *steering)

    def drive_briefly(self) -> bool:
        """A valid twist until the base moves, then nothing until it has stopped again."""
        robot = self.robot

        def moving() -> bool:
            self.pub.publish(twist(0.2, 0.0, robot.node.get_clock().now().nanoseconds))
            robot.spin(0.05)
            return self.odom.msg is not None and self.odom.msg.twist.twist.linear.x > 0.05

        moved = robot.poll(moving, 5.0, 0.0)
        stopped = robot.wait(
            lambda: self.odom.msg is not None and abs(self.odom.msg.twist.twist.linear.x) < 1e-4,
            5.0,
        )
        return moved and stopped


def base_unchanged(a: Observed | None, b: Observed | None) -> bool:
    """At rest where it was: same x (1 mm), no speed, the steering where it was (1 mrad)."""
    return (
        a is not None
        and b is not None
        and len(a) == len(b)
        and abs(a[0] - b[0]) < 1e-3
        and abs(b[1]) < 1e-3
        and all(abs(x - y) < 1e-3 for x, y in zip(a[2:], b[2:]))
    )


def within_limits(base: Base) -> Callable[[Observed | None, Observed | None], bool]:
    """Huge finite input may be taken, clamped: finite odometry, the speed within the base's
    limit (if it has one), the steering within the joint limits."""

    def check(_: Observed | None, b: Observed | None) -> bool:
        if b is None or not all(map(math.isfinite, b)):
            return False
        speed_ok = base.speed_limit is None or abs(b[1]) <= base.speed_limit + 1e-3
        return speed_ok and all(abs(s) <= base.steering_limit + 1e-6 for s in b[2:])

    return check


def bad_twists(now: Callable[[], int]) -> dict[str, Callable[[int], Any]]:
    """The i-th malformed TwistStamped of each kind (stamps relative to `now()` in ns)."""
    return {
        'NaN / inf velocities': lambda i: twist(
            *[(NAN, 0.0), (0.2, INF), (-INF, NAN)][i % 3], now()
        ),
        'huge finite velocities (+-1e308)': lambda i: twist(
            *[(HUGE, 0.0), (0.0, -HUGE), (-HUGE, HUGE)][i % 3], now()
        ),
        'negative stamps': lambda i: twist(0.2, 0.0, -5_000_000_000 * (i + 1)),
        'huge stamps (far future)': lambda i: twist(0.2, 0.0, INT32_MAX * 1_000_000_000),
        'out-of-order (stale) stamps': lambda i: twist(0.2, 0.0, now() - 10_000_000_000 * (i + 1)),
    }


def twist_rows(robot: Robot, base: Base, n: int, rows: list[Row], expected: dict[str, str]) -> None:
    """One row per kind of bad twist on `base.topic` (see the module)."""
    view = BaseView(robot, base)
    kinds = bad_twists(lambda: robot.node.get_clock().now().nanoseconds)
    for kind, make in kinds.items():
        row = Row(base.topic, kind)
        huge = kind.startswith('huge finite')
        topic_row(
            robot,
            row,
            view.pub,
            [make(i) for i in range(n)],
            loggers=[base.controller],
            observe=view.observe,
            unchanged=within_limits(base) if huge else base_unchanged,
            expected=expected,
            expect_error=not huge,
        )
        if huge:
            row.note(
                f'odometry (x, v{", steering" if base.steering else ""}) afterwards '
                f'{_rounded(view.observe())}'
            )
        if not view.drive_briefly():
            row.fail('a valid twist afterwards did not move and stop the base')
        rows.append(row)


def _rounded(values: Sequence[float] | None) -> tuple[float, ...] | None:
    return None if values is None else tuple(round(v, 6) for v in values)


def set_odometry_rows(
    robot: Robot, controller: str, n: int, rows: list[Row], expected: dict[str, str]
) -> None:
    """SetOdometry with non-finite poses (refused) and huge finite ones (may be taken)."""
    service = f'/{controller}/set_odometry'
    for kind, values, expect_error in [
        ('NaN / inf pose', [(NAN, 0.0, 0.0), (0.0, INF, 0.0), (0.0, 0.0, -INF)], True),
        ('huge values', [(1e308, -1e308, 1e300), (1e30, 0.0, -1e30)], False),
    ]:
        row = Row(service, kind)
        mark = robot.mark()
        with robot.batch(row):
            for x, y, yaw in cycle(values, n):
                res = robot.call(SetOdometry, service, SetOdometry.Request(x=x, y=y, yaw=yaw))
                row.answered(
                    None if res is None else not (not res.success and res.message), expect_error
                )
        row.logs = len(robot.log_lines(mark, [controller]))
        reset = robot.call(SetOdometry, service, SetOdometry.Request())
        if reset is None or not reset.success:
            row.fail('a valid set_odometry afterwards failed')
        robot.expect_states(row, expected)
        rows.append(row)


def reset_odometry_row(
    robot: Robot, base: Base, n: int, rows: list[Row], expected: dict[str, str]
) -> None:
    """std_srvs/Empty ~/reset_odometry called n times while the odometry is away from 0:
    every call answered, the odometry back at 0."""
    service = f'/{base.controller}/reset_odometry'
    row = Row(service, 'repeated calls (std_srvs/Empty: no values to malform)')
    odom = Latest(robot.node, Odometry, f'/{base.controller}/{base.odometry}')
    with robot.batch(row):
        for _ in range(n):
            row.answered(robot.call(Empty, service, Empty.Request()) is not None, False)
    at_zero = robot.wait(
        lambda: odom.msg is not None and abs(odom.msg.pose.pose.position.x) < 1e-9, 5.0
    )
    if not at_zero:
        row.fail(f'odometry not reset: {None if odom.msg is None else odom.msg.pose.pose}')
    robot.expect_states(row, expected)
    rows.append(row)


def run(n: int, rows: list[Row], bases: Sequence[Base] = BASES) -> None:
    """Each base on its own ros2_control_node: its services, then its twist topic."""
    for base in bases:
        expected = {name: 'active' for name in base.controllers}
        with running(
            [base.params], base.urdf, base.controllers, recorded=['mock_components/GenericSystem']
        ) as robot:
            if base.set_odometry:
                set_odometry_rows(robot, base.controller, n, rows, expected)
            twist_rows(robot, base, n, rows, expected)
            if not base.set_odometry:
                reset_odometry_row(robot, base, n, rows, expected)
