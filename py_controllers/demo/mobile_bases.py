"""`make demo ARGS=--car` / `--mecanum`: a car's figure-eight, a mecanum base's square.

A car-like robot drives a figure-eight, a mecanum base a square without turning.

Starts `ros2_control_node` with the robot (config/carlikebot.urdf or config/mecanumbot.urdf,
both on py_controllers/SimulatedSystem: the wheels and the steering lag behind their
commands as motors do) and its controller YAML; spawns the joint state broadcaster and the
base's controller with `spawner`, remapping the controller's `~/tf_odometry` to /tf as
ros2_control_demos' launch files do; streams TwistStamped references to
/<controller>/reference; integrates the twist the controller applied (its ~/controller_state
shows it, cycle by cycle) into the commanded path and judges the controller's odometry
against it: how far it strays from the commanded path, where it ends. A busy host delivers
references late, or so late that one times out mid-leg and the base rests: that moves the
path, not the judgement (how far the loop is from closing is printed, not judged). Where
this process stalled and missed states, the path takes the odometry's motion. Prints the
numbers, a summary table, and plots the two paths. Exit status 0 only if every number is
within its bound.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from control_msgs.msg import MecanumDriveControllerState, SteeringControllerStatus
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from tf2_msgs.msg import TFMessage

from py_controllers.controllers.steering import kinematics
from py_controllers.demo import paths, references
from py_controllers.demo.paths import Leg, Pose, Twist
from py_controllers.demo.references import describe, pose_of
from py_controllers.demo.summary import Steps, print_summary
from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

SETTLE_S = 0.5  # zero references after the path, so the lagging wheels come to rest
# config/carlikebot_controllers.yaml
WHEELBASE_M = 0.325
STEERING_TRACK_M = 0.2
TRACTION_RADIUS_M = 0.05


def car_twist(state: SteeringControllerStatus) -> Twist:
    """The twist a bicycle model gives the Ackermann controller's commands: the rear axle's
    mean wheel speed and the middle steering angle of the (right, left) pair, as the
    controller's odometry takes it (their mean turns about 2 % faster in the demo's circles)."""
    if len(state.traction_command) != 2 or len(state.steering_angle_command) != 2:
        return paths.REST
    v = sum(state.traction_command) / 2.0 * TRACTION_RADIUS_M
    right, left = state.steering_angle_command
    steer = kinematics.middle_steering_from_pair(right, left, WHEELBASE_M, STEERING_TRACK_M)
    return (v, 0.0, v * math.tan(steer) / WHEELBASE_M)


def mecanum_twist(state: MecanumDriveControllerState) -> Twist:
    """The reference the mecanum controller applies (it says so in its state)."""
    r = state.reference_velocity
    return (r.linear.x, r.linear.y, r.angular.z)


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
    state_type: Any  # the controller's ~/controller_state message
    applied: Callable[[Any], Twist]  # the twist a state shows the controller applying


CAR = BaseDemo(
    name='car-like robot (Ackermann steering)',
    urdf=CONFIG / 'carlikebot.urdf',
    params=CONFIG / 'carlikebot_controllers.yaml',
    controller='ackermann_steering_controller',
    legs=paths.figure_eight(speed=0.5, radius=0.6),
    quick_legs=paths.figure_eight(speed=1.0, radius=0.6),
    path_name='figure-eight',
    # the steering's lag when it swings from left to right costs the most: measured 1 mm and
    # 1.8 deg at the end, 8 mm at worst at 0.5 m/s, quiet or beside four busy loops; 3 mm,
    # 3.7 deg, 15 mm at 1 m/s. The rest of the margin: the take-up times' resolution (the
    # controller's state comes at most every cycle, 10 ms, and a busy one skips some), and a
    # host that stalls the loop while the steering swings (the odometry then integrates the
    # whole stall at the final steering angle): 7.7 deg and 61 mm in q19, on a loaded host
    max_deviation_m=0.10,
    max_end_error_m=0.05,
    max_heading_error_rad=0.17,
    state_type=SteeringControllerStatus,
    applied=car_twist,
)
MECANUM = BaseDemo(
    name='mecanum base',
    urdf=CONFIG / 'mecanumbot.urdf',
    params=CONFIG / 'mecanumbot_controllers.yaml',
    controller='mecanum_drive_controller',
    legs=paths.sideways_square(speed=0.25, side=0.5),
    quick_legs=paths.sideways_square(speed=0.5, side=0.5),
    path_name='square',
    # the wheels' lag rounds the corners: 4 mm at worst and 0 at the end at 0.25 m/s, 8 mm
    # at 0.5 m/s (--quick); the heading stays 0 (all four wheels lag alike), which is the
    # holonomic base's point
    max_deviation_m=0.06,
    max_end_error_m=0.05,
    max_heading_error_rad=0.005,
    state_type=MecanumDriveControllerState,
    applied=mecanum_twist,
)
BASES = {'car': CAR, 'mecanum': MECANUM}


class BaseRun(Steps):
    """One run of a base demo; every step records whether it succeeded."""

    def __init__(self, ros: RosHarness, base: BaseDemo, quick: bool) -> None:
        self.ros = ros
        self.base = base
        # the path, then zero references so the lagging wheels come to rest
        self.legs = [*(base.quick_legs if quick else base.legs), Leg(0.0, 0.0, 0.0, SETTLE_S)]
        super().__init__()
        self.odom = ros.subscribe(Odometry, f'/{base.controller}/odometry', 1000)
        self.states = ros.subscribe(base.state_type, f'/{base.controller}/controller_state', 1000)
        self.tf = ros.subscribe(TFMessage, '/tf', 1000)
        self.watch = references.StallWatch(ros)
        self.sent_s: list[float] = []  # when each leg's first reference went out
        self.commanded = paths.CommandedPath()
        self.odometry_path: list[Pose] = []

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

    def drive(self) -> bool:
        base = self.base
        topic = f'/{base.controller}/reference'
        print(f'\n== driving a {base.path_name} with TwistStamped on {topic}')
        pub = self.ros.node.create_publisher(TwistStamped, topic, 10)
        if not self.ros.spin_until(lambda: pub.get_subscription_count() > 0 and self.odom):
            return self.record(base.path_name, False, 'no reference subscriber or no odometry')
        self.sent_s = references.stream_legs(self.ros, pub, self.legs, self.watch)
        # the controller's state once it has taken the stop up, and the odometry after it
        stop_sent = (self.sent_s[-1], paths.twist_of(self.legs[-2]))
        if not references.wait_for_rest(
            self.ros, self.states, base.applied, stop_sent, self.legs[-1].seconds, self.watch
        ):
            return self.record(base.path_name, False, 'the controller never showed the stop')
        return self.judge()

    def judge(self) -> bool:
        base = self.base
        drive = references.driven_path(
            self.legs, self.sent_s, self.states, base.applied, self.odom, self.watch.stalls
        )
        self.commanded, ends, held = drive.commanded, drive.ends, drive.held
        starts, odometry = drive.starts, drive.odometry
        self.odometry_path = [pose for _, pose in odometry]
        for k, (start, end) in enumerate(pairwise(starts)):
            at_end = next((pose for t, pose in odometry if t >= end), self.odometry_path[-1])
            print(
                f'    leg {k + 1}: {end - start:.2f} s at the controller (taken up '
                f'{(start - self.sent_s[k]) * 1000:.0f} ms after it was sent), applied for '
                f'{held[k]:.2f} s of it'
            )
            print(f'      ends: commanded {describe(self.commanded.poses[ends[k]])}')
            print(f'            odometry  {describe(at_end)}')
        commanded, end_pose = self.commanded.end, self.odometry_path[-1]
        end_error = math.hypot(end_pose[0] - commanded[0], end_pose[1] - commanded[1])
        heading_error = paths.heading_error(end_pose[2], commanded[2])
        deviation = paths.max_deviation(self.odometry_path, self.commanded.poses)
        closure = math.hypot(end_pose[0], end_pose[1])
        print(f'\n    commanded end: {describe(commanded)}')
        print(f'    odometry end:  {describe(end_pose)}')
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
        if not ends or not self.odom:
            return self.record('tf', False, 'no odom -> base_link on /tf, or no odometry')
        odometry = pose_of(self.odom[-1])
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
        demo.check_manager(proc)
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
            commanded_label=f'commanded {base.path_name} (the legs as the controller held them)',
        )
        print(f'\n  plot written to {written.resolve()}')
    print(f'\n{"demo succeeded" if ok else "demo FAILED"}')
    return 0 if ok else 1
