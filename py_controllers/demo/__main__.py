"""`make demo`: py_controllers on a simulated mobile manipulator, driven as a user would.

Starts `ros2_control_node` with a 6-joint arm (joint trajectory controller on effort
joints through its PID, simulated dynamics) with a force-torque sensor at the wrist, a
gripper on a GripperActionController, and a differential drive base with an IMU (diff
drive controller, odometry, TF, sensor broadcasters); spawns the controllers with
`spawner`; sends a FollowJointTrajectory goal; drives a square; sends a GripperCommand
goal; reads the IMU and the wrench; prints what happens, a summary table, and writes plots.
With --mujoco: a 6-axis arm simulated by MuJoCo instead (py_controllers/demo/mujoco_arm.py);
with --car or --mecanum: a car-like robot's figure-eight or a mecanum base's square
(py_controllers/demo/mobile_bases.py).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from control_msgs.action import FollowJointTrajectory, GripperCommand
from control_msgs.msg import (
    DynamicInterfaceGroupValues,
    InterfaceValue,
)
from geometry_msgs.msg import TwistStamped, WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.action import ActionClient
from sensor_msgs.msg import Imu, JointState
from tf2_msgs.msg import TFMessage
from trajectory_msgs.msg import JointTrajectoryPoint

from py_controllers.demo import paths, references
from py_controllers.demo.arm_state import record_arm_state
from py_controllers.demo.dashboard_stay import stay_up_with_dashboard
from py_controllers.demo.paths import Leg, Twist, twist_of
from py_controllers.demo.references import describe
from py_controllers.demo.summary import Steps, print_summary
from py_controllers.ros_conversions import set_duration
from py_controllers.testing import CONFIG, GUARD_S, ManagerProcess, RosHarness, run_tool
from py_controllers.type_registration import message_types, register_message_types

GPIO_STATES = '/gpio_command_controller/gpio_states'

ARM_JOINTS = [f'joint{i}' for i in range(1, 7)]
# the square's end from where the twists the diff drive applied end: the wheels' lag. Where
# this process stalls, the path takes the odometry's motion, and the heading the wheels lagged
# by then stays (2.3 deg, 22 mm, after a 1.5 s SIGSTOP of the demo mid-turn)
SQUARE_END_M = 0.05
SQUARE_HEADING_RAD = math.radians(5.0)
CONTROLLERS = [
    'joint_state_broadcaster',
    'arm_controller',
    'diff_drive_controller',
    'gripper_controller',
    'imu_sensor_broadcaster',
    'force_torque_sensor_broadcaster',
    'gpio_command_controller',
]


def limited_twist(msg: TwistStamped) -> Twist:
    """The twist the diff drive applied, from its ~/cmd_vel_out."""
    return (msg.twist.linear.x, 0.0, msg.twist.angular.z)


class Demo(Steps):
    """One run of the demo; every step records whether it succeeded."""

    def __init__(self, ros: RosHarness, duration_scale: float) -> None:
        self.ros = ros
        self.scale = duration_scale
        super().__init__()
        self.joint_states = ros.subscribe(JointState, '/joint_states')
        self.arm_state = record_arm_state(ros)
        self.odom = ros.subscribe(Odometry, '/diff_drive_controller/odom', 1000)
        self.tf = ros.subscribe(TFMessage, '/tf', 100)
        self.limited = ros.subscribe(TwistStamped, '/diff_drive_controller/cmd_vel_out', 2000)

    def spin_for(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        self.ros.spin_until(lambda: time.monotonic() >= end, timeout_s=seconds + 1.0)

    # --- steps -----------------------------------------------------------------------
    def spawn(self) -> bool:
        print('\n== spawning controllers with `spawner`')
        result = run_tool(
            'spawner',
            *CONTROLLERS,
            '--controller-manager-timeout',
            str(GUARD_S),
            timeout_s=3 * GUARD_S,
        )
        ok = result.returncode == 0
        if not ok:
            print(result.stdout + result.stderr)
        self.record('spawner', ok, ', '.join(CONTROLLERS))
        cm = self.ros.manager()
        print(f'\n  {"controller":<26}{"type":<54}state')
        for c in cm.list_controllers():
            print(f'  {c.name:<26}{c.type:<54}{c.state}')
        for comp in cm.list_hardware_components():
            print(f'  hardware {comp.name} ({comp.plugin_name}): {comp.state.label}')
        return ok

    def trajectory(self) -> bool:
        print('\n== FollowJointTrajectory goal to /arm_controller/follow_joint_trajectory')
        client = ActionClient(
            self.ros.node, FollowJointTrajectory, '/arm_controller/follow_joint_trajectory'
        )
        if not self.ros.spin_until(client.server_is_ready, GUARD_S):
            return self.record('trajectory', False, 'action server not available')
        goal = FollowJointTrajectory.Goal()
        goal.trajectory.joint_names = ARM_JOINTS
        waypoints = [
            (1.0, [0.5, -0.4, 0.6, 0.8, 0.3, -0.2]),
            (2.0, [-0.3, 0.3, -0.5, -0.6, 0.6, 0.4]),
            (3.0, [0.2, 0.1, 0.2, 0.4, -0.3, 0.0]),
        ]
        for t, positions in waypoints:
            point = JointTrajectoryPoint(positions=positions, velocities=[0.0] * 6)
            set_duration(point.time_from_start, t * self.scale)
            goal.trajectory.points.append(point)
        set_duration(goal.goal_time_tolerance, 2.0)
        feedback: list = []
        sent = client.send_goal_async(goal, feedback_callback=feedback.append)
        if not self.ros.spin_until(sent.done, GUARD_S) or not sent.result().accepted:
            return self.record('trajectory', False, 'goal rejected')
        print('  goal accepted')
        result_future = sent.result().get_result_async()
        if not self.ros.spin_until(result_future.done, 3.0 * self.scale + 15.0):
            return self.record('trajectory', False, 'no result in time')
        result = result_future.result().result
        self.spin_for(0.2)
        final = dict(zip(self.joint_states[-1].name, self.joint_states[-1].position))
        target = waypoints[-1][1]
        errors = [final[j] - target[i] for i, j in enumerate(ARM_JOINTS)]
        for j, e in zip(ARM_JOINTS, errors):
            print(f'    {j}: final error {e * 1000:+.2f} mrad')
        ok = result.error_code == FollowJointTrajectory.Result.SUCCESSFUL
        return self.record(
            'trajectory',
            ok,
            f'error_code {result.error_code} {result.error_string!r}, {len(feedback)} feedback '
            f'messages, max final error {max(abs(e) for e in errors) * 1000:.2f} mrad',
        )

    def square(self, side_m: float = 0.5, speed: float = 0.25, turn_rate: float = 0.8) -> bool:
        """A square of `side_m`, each side and quarter turn followed by a stop. Judged against
        the twists the diff drive applied (its ~/cmd_vel_out, switched on for the drive as
        `ros2 param set` does): where references reach it late, or so late that it rests
        meanwhile (cmd_vel_timeout), the base really does not close the square, and the
        odometry is not to blame."""
        print('\n== driving a square with TwistStamped on /diff_drive_controller/cmd_vel')
        if not self.publish_limited_velocity(True):
            return self.record('square', False, 'could not switch ~/cmd_vel_out on')
        pub = self.ros.node.create_publisher(TwistStamped, '/diff_drive_controller/cmd_vel', 10)
        stop = Leg(0.0, 0.0, 0.0, 0.3)
        side = Leg(speed, 0.0, 0.0, side_m / speed)
        turn = Leg(0.0, 0.0, turn_rate, (math.pi / 2) / turn_rate)
        legs = [side, stop, turn, stop] * 4
        watch = references.StallWatch(self.ros)
        sent = references.stream_legs(self.ros, pub, legs, watch)
        twist = references.odometry_twist
        rested = references.wait_for_rest(
            self.ros, self.odom, twist, (sent[-1], twist_of(turn)), stop.seconds, watch
        )
        self.publish_limited_velocity(False)
        if not rested:
            return self.record('square', False, 'the odometry never came to rest')
        drive = references.driven_path(
            legs, sent, self.limited, limited_twist, self.odom, watch.stalls
        )
        odometry, commanded = drive.odometry, drive.commanded
        self.path = [pose[:2] for _, pose in odometry]
        self.commanded_path = [pose[:2] for pose in commanded.poses]
        for k in (3, 7, 11):  # the stops after the turns; the last one is the end
            at = drive.starts[k + 1]
            corner = next((pose for t, pose in odometry if t >= at), odometry[-1][1])
            print(f'    corner {k // 4 + 1}: odometry  {describe(corner)}')
            print(f'              commanded {describe(commanded.poses[drive.ends[k]])}')
        print(f'    end:      odometry  {describe(odometry[-1][1])}')
        print(f'              commanded {describe(commanded.end)}')
        end, held = odometry[-1][1], commanded.end
        error = math.hypot(end[0] - held[0], end[1] - held[1])
        heading = paths.heading_error(end[2], held[2])
        closure = math.hypot(end[0], end[1])
        tf_ok = any(
            t.header.frame_id == 'odom' and t.child_frame_id == 'base_link'
            for m in self.tf[-20:]
            for t in m.transforms
        )
        ok = error < SQUARE_END_M and abs(heading) < SQUARE_HEADING_RAD and tf_ok
        return self.record(
            'square',
            ok,
            f'{error * 1000:.0f} mm / {math.degrees(heading):+.1f} deg from where the twists '
            f'applied end, {closure:.3f} m from the start; /tf odom->base_link: {tf_ok}',
        )

    def publish_limited_velocity(self, on: bool) -> bool:
        """Switch the diff drive's ~/cmd_vel_out on or off (a parameter set at run time);
        on: once its messages arrive."""
        results = self.ros.set_parameters(
            '/diff_drive_controller', {'publish_limited_velocity': on}
        )
        if not results or not all(r.successful for r in results):
            return False
        if not on:
            return True
        self.limited.clear()
        return self.ros.spin_until(lambda: bool(self.limited), GUARD_S)

    def gripper(self, target: float = 0.03) -> bool:
        print('\n== a GripperCommand goal to /gripper_controller/gripper_cmd')
        client = ActionClient(self.ros.node, GripperCommand, '/gripper_controller/gripper_cmd')
        if not client.wait_for_server(timeout_sec=GUARD_S):
            return self.record('gripper', False, 'no gripper action server')
        goal = GripperCommand.Goal()
        goal.command.position, goal.command.max_effort = target, 10.0
        sent = client.send_goal_async(goal)
        if not self.ros.spin_until(sent.done, GUARD_S) or not sent.result().accepted:
            return self.record('gripper', False, 'goal rejected')
        result_future = sent.result().get_result_async()
        if not self.ros.spin_until(result_future.done, GUARD_S):
            return self.record('gripper', False, 'no result')
        result = result_future.result().result
        print(
            f'   result: position {result.position:.4f} m, effort {result.effort:.1f}, '
            f'reached_goal {result.reached_goal}, stalled {result.stalled}'
        )
        ok = result.reached_goal and abs(result.position - target) < 0.001
        return self.record('gripper', ok, f'reached {result.position:.4f} m of {target} m')

    def sensors(self) -> bool:
        print('\n== /imu_sensor_broadcaster/imu and /force_torque_sensor_broadcaster/wrench')
        imu = self.ros.subscribe(Imu, '/imu_sensor_broadcaster/imu')
        wrench = self.ros.subscribe(WrenchStamped, '/force_torque_sensor_broadcaster/wrench')
        ok = self.ros.spin_until(lambda: bool(imu) and bool(wrench), GUARD_S)
        if not ok:
            return self.record('sensors', False, f'imu: {len(imu)}, wrench: {len(wrench)}')
        a, w = imu[-1].linear_acceleration, wrench[-1].wrench
        print(
            f'   imu: acceleration z {a.z:.2f} m/s^2, yaw rate '
            f'{imu[-1].angular_velocity.z:.3f} rad/s; wrench: force z {w.force.z:.3f} N, '
            f'torque z {w.torque.z:.3f} Nm (frame {wrench[-1].header.frame_id})'
        )
        ok = abs(a.z - 9.81) < 0.01 and abs(w.force.z + 0.5 * 9.81) < 1e-6
        return self.record('sensors', ok, f'imu az {a.z:.2f}, wrench fz {w.force.z:.3f}')

    def gpio(self) -> bool:
        print('\n== the tool gpio: digital_output on through /gpio_command_controller/commands')
        states = self.ros.subscribe(DynamicInterfaceGroupValues, GPIO_STATES)
        pub = self.ros.node.create_publisher(
            DynamicInterfaceGroupValues, '/gpio_command_controller/commands', 10
        )
        command = DynamicInterfaceGroupValues(interface_groups=['tool_io'])
        command.interface_values = [
            InterfaceValue(interface_names=['digital_output'], values=[1.0])
        ]

        def tool_io() -> dict[str, float]:
            group = states[-1].interface_values[0] if states else None
            return dict(zip(group.interface_names, group.values)) if group else {}

        def on() -> bool:
            pub.publish(command)
            return tool_io().get('digital_output') == 1.0

        ok = self.ros.spin_until(on, GUARD_S)
        values = {k: round(v, 3) for k, v in tool_io().items()}
        print(f'   tool_io: {values}')
        if not states:  # who this process sees on the topic, for the report
            print(self.ros.graph_report(GPIO_STATES))
        return self.record('gpio', ok, f'tool_io {values}')

    def statistics(self) -> dict:
        stats = self.ros.manager().statistics()
        p = stats['period']
        print(
            f'\n== loop: {stats["measured_rate_hz"]:.1f} Hz measured '
            f'(target {stats["update_rate_hz"]}), '
            f'period mean {p["mean_us"]:.0f} us, stddev {p["stddev_us"]:.0f} us, p99 '
            f'{p["p99_us"]:.0f} us, max {p["max_us"]:.0f} us, overruns {stats["overruns"]}'
        )
        cost = stats['execution']
        print(f'   cycle cost mean {cost["mean_us"]:.1f} us, p99 {cost["p99_us"]:.1f} us')
        for name, s in stats.get('controllers', {}).items():
            print(f'   update {name:<26} mean {s["mean_us"]:7.1f} us  max {s["max_us"]:8.1f} us')
        return stats


def main(argv: list[str] | None = None) -> int:
    """Run the demo; exit status 0 only if every step succeeded."""
    parser = argparse.ArgumentParser(prog='demo', description=__doc__.splitlines()[0])
    parser.add_argument(
        '--duration', type=float, default=1.0, help='time scale of the trajectory (1.0 = 3 s)'
    )
    parser.add_argument('--quick', action='store_true', help='short run: half the square, no plots')
    parser.add_argument('--no-plots', action='store_true', help='do not write PNG plots')
    parser.add_argument('--output', type=Path, default=Path('demo_output'), help='folder for plots')
    parser.add_argument(
        '--mujoco', action='store_true', help='a 6-axis arm on MuJoCo instead (mujoco_arm.py)'
    )
    parser.add_argument(
        '--admittance',
        action='store_true',
        help='the MuJoCo arm pushed, yielding through the admittance controller',
    )
    parser.add_argument(
        '--car', action='store_true', help='a car-like robot (Ackermann steering): a figure-eight'
    )
    parser.add_argument(
        '--mecanum', action='store_true', help='a mecanum base: a square without turning'
    )
    parser.add_argument(
        '--so101', action='store_true', help='an SO-101 arm on a simulated Feetech bus'
    )
    parser.add_argument(
        '--leader', action='store_true', help='with --so101: a leader SO-101 teleoperates it'
    )
    parser.add_argument(
        '--omx', action='store_true', help='an OpenManipulator-X on a simulated Dynamixel bus'
    )
    parser.add_argument(
        '--dashboard',
        nargs='?',
        const=8080,
        type=int,
        metavar='PORT',
        help='also serve the web dashboard and keep the robot up after the run (Ctrl-C ends)',
    )
    args = parser.parse_args(argv)
    register_message_types(message_types())  # before any node of ours discovers the manager
    if args.admittance:
        from py_controllers.demo import mujoco_admittance

        return mujoco_admittance.run(args)
    if args.so101 or args.omx:
        from py_controllers.demo import servo_arms

        if args.leader:
            return servo_arms.run_teleop(args)
        return servo_arms.run(args, 'so101' if args.so101 else 'omx')
    if args.car or args.mecanum:
        from py_controllers.demo import mobile_bases

        return mobile_bases.run(args, 'car' if args.car else 'mecanum')
    if args.mujoco:
        from py_controllers.demo import mujoco_arm

        return mujoco_arm.run(args)
    print(__doc__.splitlines()[0])
    with (
        ManagerProcess([CONFIG / 'demo_controllers.yaml'], CONFIG / 'demo_robot.urdf') as proc,
        RosHarness('demo_user') as ros,
    ):
        demo = Demo(ros, args.duration)
        ok = demo.spawn() and demo.trajectory()
        ok = demo.square(side_m=0.25 if args.quick else 0.5) and ok
        ok = demo.gripper() and ok
        ok = demo.sensors() and ok
        ok = demo.gpio() and ok
        stats = demo.statistics()
        demo.check_manager(proc)
        if args.dashboard:
            stay_up_with_dashboard(args.dashboard, demo.results)
    if not args.dashboard:
        print_summary(demo.results)
    ok = all(r[1] for r in demo.results)
    if not (args.no_plots or args.quick):
        from py_controllers.demo import plots

        args.output.mkdir(parents=True, exist_ok=True)
        written = []
        if demo.arm_state:
            written.append(plots.plot_joints(args.output / 'joints.png', demo.arm_state))
        if getattr(demo, 'path', None):
            written.append(
                plots.plot_path(
                    args.output / 'base_path.png',
                    demo.path,
                    demo.commanded_path,
                    commanded_label='commanded square (the twists the diff drive applied)',
                )
            )
        if 'period_histogram' in stats:
            written.append(
                plots.plot_periods(
                    args.output / 'loop_periods.png',
                    stats['period_histogram'],
                    stats['update_rate_hz'],
                )
            )
        print(f'\n  plots written to {args.output.resolve()}: {", ".join(p.name for p in written)}')
    print(f'\n{"demo succeeded" if ok else "demo FAILED"}')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
