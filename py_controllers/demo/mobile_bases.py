"""`make demo ARGS=--car` / `--mecanum`: a car's figure-eight, a mecanum base's square.

A car-like robot drives a figure-eight, a mecanum base a square without turning.

Starts `ros2_control_node` with the robot (config/carlikebot.urdf or config/mecanumbot.urdf,
both on py_controllers/SimulatedSystem: the wheels and the steering lag behind their
commands as motors do) and its controller YAML; spawns the joint state broadcaster and the
base's controller with `spawner`, remapping the controller's `~/tf_odometry` to /tf as
ros2_control_demos' launch files do; streams TwistStamped references to
/<controller>/reference; integrates the references it sent into the commanded path and
judges the controller's odometry against it: how far it strays from the commanded path,
where it ends, how well the loop closes. Prints the numbers, a summary table, and plots the
two paths. Exit status 0 only if every number is within its bound.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from pathlib import Path

from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from tf2_msgs.msg import TFMessage

from py_controllers.demo import paths
from py_controllers.demo.paths import CommandedPath, Leg, Pose
from py_controllers.demo.summary import print_summary
from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

PUBLISH_PERIOD_S = 0.02  # the reference stream: about 40 Hz once spinning is counted
SETTLE_S = 0.5  # zero references after the path, so the lagging wheels come to rest


@dataclass(frozen=True)
class BaseDemo:
    """One robot, the path it drives and the bounds its odometry must keep."""

    name: str
    urdf: Path
    params: Path
    controller: str
    legs: list[Leg]
    quick_legs: list[Leg]  # the same path driven faster (--quick)
    path_name: str
    max_deviation_m: float  # odometry from the commanded path, at its worst
    max_end_error_m: float  # odometry's end position from the commanded end position
    max_heading_error_rad: float  # odometry's end heading from the commanded end heading


CAR = BaseDemo(
    name='car-like robot (Ackermann steering)',
    urdf=CONFIG / 'carlikebot.urdf',
    params=CONFIG / 'carlikebot_controllers.yaml',
    controller='ackermann_steering_controller',
    legs=paths.figure_eight(speed=0.5, radius=0.6),
    quick_legs=paths.figure_eight(speed=1.0, radius=0.6),
    path_name='figure-eight',
    # the steering's lag when it swings from left to right costs the most: measured 4 to
    # 21 mm and 0.4 to 1.8 deg at the end, 13 to 27 mm at worst at 0.5 m/s (the spread is
    # the reference stream's timing on a loaded machine); 43 mm, 3.7 deg, 55 mm at 1 m/s
    max_deviation_m=0.10,
    max_end_error_m=0.08,
    max_heading_error_rad=0.10,
)
MECANUM = BaseDemo(
    name='mecanum base',
    urdf=CONFIG / 'mecanumbot.urdf',
    params=CONFIG / 'mecanumbot_controllers.yaml',
    controller='mecanum_drive_controller',
    legs=paths.sideways_square(speed=0.25, side=0.5),
    quick_legs=paths.sideways_square(speed=0.5, side=0.5),
    path_name='square',
    # a leg's start and stop reaching the loop late by different amounts moves a corner by
    # speed * that difference: 3 mm (5 mm at worst) at 0.25 m/s on a quiet host, 46 mm at
    # 0.5 m/s (--quick) while another test suite ran beside it; the heading stays 0 (all
    # four wheels lag alike), which is the holonomic base's point
    max_deviation_m=0.10,
    max_end_error_m=0.08,
    max_heading_error_rad=0.005,
)
BASES = {'car': CAR, 'mecanum': MECANUM}


def pose_of(msg: Odometry) -> Pose:
    p, q = msg.pose.pose.position, msg.pose.pose.orientation
    return p.x, p.y, 2.0 * math.atan2(q.z, q.w)


def describe(pose: Pose) -> str:
    return f'x={pose[0]:+.3f} m  y={pose[1]:+.3f} m  yaw={math.degrees(pose[2]):+7.2f} deg'


class BaseRun:
    """One run of a base demo; every step records whether it succeeded."""

    def __init__(self, ros: RosHarness, base: BaseDemo, quick: bool) -> None:
        self.ros = ros
        self.base = base
        self.legs = base.quick_legs if quick else base.legs
        self.results: list[tuple[str, bool, str]] = []
        self.odom = ros.subscribe(Odometry, f'/{base.controller}/odometry', 1000)
        self.tf = ros.subscribe(TFMessage, '/tf', 1000)
        self.commanded = CommandedPath()
        self.odometry_path: list[Pose] = []
        self.leg_ends: list[tuple[Pose, Pose]] = []  # (commanded, odometry) at each leg's end

    def record(self, step: str, ok: bool, detail: str) -> bool:
        print(f'  [{"ok" if ok else "FAILED"}] {step}: {detail}')
        self.results.append((step, ok, detail))
        return ok

    def spawn(self) -> bool:
        controllers = ['joint_state_broadcaster', self.base.controller]
        remap = f'-r /{self.base.controller}/tf_odometry:=/tf'
        print(f'\n== spawning {", ".join(controllers)} with `spawner` ({remap})')
        result = run_tool(
            'spawner',
            *controllers,
            '--controller-ros-args',
            remap,
            '--controller-manager-timeout',
            '30',
            timeout_s=120,
        )
        if result.returncode != 0:
            print(result.stdout + result.stderr)
        return self.record('spawner', result.returncode == 0, ', '.join(controllers))

    def _odometry_now(self) -> Pose:
        pose = pose_of(self.odom[-1]) if self.odom else (0.0, 0.0, 0.0)
        self.odometry_path.append(pose)
        return pose

    def _stream(self, pub, twist: TwistStamped, leg: Leg) -> None:
        """Publish `leg`'s twist until its time is up, adding to the commanded path the
        time each sent twist was in force."""
        twist.twist.linear.x, twist.twist.linear.y = leg.vx, leg.vy
        twist.twist.angular.z = leg.wz
        start = last = time.monotonic()
        end = start + leg.seconds
        while (now := time.monotonic()) < end:
            self.commanded.hold(leg.vx, leg.vy, leg.wz, now - last)
            last = now
            twist.header.stamp = self.ros.node.get_clock().now().to_msg()
            pub.publish(twist)
            self.ros.spin_until(lambda: False, timeout_s=PUBLISH_PERIOD_S)
            self._odometry_now()
        self.commanded.hold(leg.vx, leg.vy, leg.wz, end - last)

    def drive(self) -> bool:
        base = self.base
        topic = f'/{base.controller}/reference'
        print(f'\n== driving a {base.path_name} with TwistStamped on {topic}')
        pub = self.ros.node.create_publisher(TwistStamped, topic, 10)
        if not self.ros.spin_until(lambda: pub.get_subscription_count() > 0 and self.odom):
            return self.record(base.path_name, False, 'no reference subscriber or no odometry')
        twist = TwistStamped()
        for k, leg in enumerate(self.legs):
            self._stream(pub, twist, leg)
            ends = (self.commanded.end, self._odometry_now())
            self.leg_ends.append(ends)
            print(f'    leg {k + 1} ends: commanded {describe(ends[0])}')
            print(f'               odometry  {describe(ends[1])}')
        self._stream(pub, twist, Leg(0.0, 0.0, 0.0, SETTLE_S))
        return self.judge()

    def judge(self) -> bool:
        base = self.base
        commanded, odometry = self.commanded.end, self._odometry_now()
        end_error = math.hypot(odometry[0] - commanded[0], odometry[1] - commanded[1])
        heading_error = paths.heading_error(odometry[2], commanded[2])
        deviation = paths.max_deviation(self.odometry_path, self.commanded.poses)
        closure = math.hypot(odometry[0], odometry[1])
        print(f'\n    commanded end: {describe(commanded)}')
        print(f'    odometry end:  {describe(odometry)}')
        print(
            f'    end error {end_error * 1000:.1f} mm, heading {math.degrees(heading_error):+.2f}'
            f' deg; loop closure {closure * 1000:.1f} mm (commanded '
            f'{math.hypot(*commanded[:2]) * 1000:.1f} mm); worst deviation from the commanded '
            f'path {deviation * 1000:.1f} mm'
        )
        if base is MECANUM:
            yaw = max(abs(p[2]) for p in self.odometry_path)
            print(f'    largest |yaw| while driving: {math.degrees(yaw):.3f} deg (no turning)')
        ok = (
            end_error <= base.max_end_error_m
            and abs(heading_error) <= base.max_heading_error_rad
            and deviation <= base.max_deviation_m
        )
        return self.record(
            base.path_name,
            ok,
            f'end {end_error * 1000:.0f} mm / {math.degrees(heading_error):+.1f} deg from the '
            f'commanded end, closure {closure * 1000:.0f} mm, worst deviation '
            f'{deviation * 1000:.0f} mm',
        )

    def transforms(self) -> bool:
        """The remapped ~/tf_odometry: odom -> base_link on /tf, at the odometry's pose."""
        ends = [
            t.transform.translation
            for m in self.tf
            for t in m.transforms
            if t.header.frame_id == 'odom' and t.child_frame_id == 'base_link'
        ]
        if not ends:
            return self.record('tf', False, 'no odom -> base_link on /tf')
        odometry = self.odometry_path[-1]
        gap = math.hypot(ends[-1].x - odometry[0], ends[-1].y - odometry[1])
        return self.record(
            'tf',
            gap < 0.01,
            f'{len(ends)} odom -> base_link transforms on /tf, the last '
            f'{gap * 1000:.1f} mm from the odometry',
        )


def run(args: argparse.Namespace, which: str) -> int:
    """Run the demo of base `which` ('car' or 'mecanum'); 0 only if every step succeeded."""
    base = BASES[which]
    print(f'{__doc__.splitlines()[0]}\n\n== {base.name}: {base.urdf.name}, {base.params.name}')
    with (
        ManagerProcess([base.params], base.urdf) as proc,
        RosHarness(f'{which}_demo_user') as ros,
    ):
        demo = BaseRun(ros, base, args.quick)
        if demo.spawn():
            demo.drive()
            demo.transforms()
        else:
            print(proc.output()[-4000:])
        if not proc.alive:
            demo.record('ros2_control_node', False, 'the manager died:\n' + proc.output())
    print_summary(demo.results)
    ok = all(r[1] for r in demo.results)
    if not (args.no_plots or args.quick) and demo.odometry_path:
        from py_controllers.demo import plots

        args.output.mkdir(parents=True, exist_ok=True)
        written = plots.plot_path(
            args.output / f'{which}_path.png',
            [p[:2] for p in demo.odometry_path],
            [p[:2] for p in demo.commanded.poses],
            title=f'{base.controller}\nodometry against the commanded {base.path_name}',
            commanded_label=f'commanded {base.path_name} (integrated references)',
        )
        print(f'\n  plot written to {written.resolve()}')
    print(f'\n{"demo succeeded" if ok else "demo FAILED"}')
    return 0 if ok else 1
