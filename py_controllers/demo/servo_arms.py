"""`make demo ARGS=--so101` / `--omx`: a serial bus servo arm on the simulated bus.

Serves the arm's servos on a pseudo-terminal (`servo_bus.bus_sim`: the real protocol bytes
at 1 Mbaud, Feetech STS3215 for the SO-101, Dynamixel XM430 for the OpenManipulator-X), starts
`ros2_control_node` with the arm's URDF aimed at that port (hardware `py_controllers/
FeetechSystem` / `DynamixelSystem`, the same code that drives a real arm on /dev/ttyACM0),
spawns the joint state broadcaster, the joint trajectory controller and the gripper action
controller, sends a FollowJointTrajectory goal and a GripperCommand goal, prints the result
and the final error per joint, a summary table, and writes a plot of desired vs actual.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from control_msgs.action import FollowJointTrajectory, GripperCommand
from rclpy.action import ActionClient
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectoryPoint

from py_controllers.demo.arm_state import record_arm_state
from py_controllers.demo.dashboard_stay import stay_up_with_dashboard
from py_controllers.demo.summary import Steps, print_summary
from py_controllers.hardware.servo_bus.arm_files import ARMS, ServoArm, urdf_on_port
from py_controllers.hardware.servo_bus.bus_sim import PtyServoBus
from py_controllers.hardware.servo_bus.sim_arms import make_servos
from py_controllers.ros_conversions import set_duration
from py_controllers.testing import ManagerProcess, RosHarness, run_tool

CONTROLLERS = ['joint_state_broadcaster', 'arm_controller', 'gripper_controller']


class ServoArmDemo(Steps):
    """One run; every step records whether it succeeded."""

    def __init__(self, ros: RosHarness, arm: ServoArm, scale: float) -> None:
        self.ros, self.arm, self.scale = ros, arm, scale
        super().__init__()
        self.states = ros.subscribe(JointState, '/joint_states', 100)
        self.arm_state = record_arm_state(ros)

    def positions(self) -> dict[str, float]:
        if not self.states:
            return {}
        msg = self.states[-1]
        return dict(zip(msg.name, msg.position))

    def spawn(self) -> bool:
        result = run_tool('spawner', *CONTROLLERS, '--controller-manager-timeout', '30')
        return self.record('spawner', result.returncode == 0, ', '.join(CONTROLLERS))

    def _goal(self, client: ActionClient, goal, timeout_s: float):
        if not self.ros.spin_until(client.server_is_ready, 20.0):
            return None
        sent = client.send_goal_async(goal)
        if not self.ros.spin_until(sent.done, 10.0) or not sent.result().accepted:
            return None
        done = sent.result().get_result_async()
        return done.result().result if self.ros.spin_until(done.done, timeout_s) else None

    def trajectory(self) -> bool:
        arm = self.arm
        client = ActionClient(
            self.ros.node, FollowJointTrajectory, '/arm_controller/follow_joint_trajectory'
        )
        goal = FollowJointTrajectory.Goal()
        goal.trajectory.joint_names = list(arm.arm_joints)
        half = [0.5 * q for q in arm.pose]
        for t, q in (
            (1.5, half),
            (3.0, list(arm.pose)),
            (4.5, [0.0] * len(arm.pose)),
            (6.0, list(arm.pose)),
        ):
            point = JointTrajectoryPoint(positions=q)
            set_duration(point.time_from_start, t * self.scale)
            goal.trajectory.points.append(point)
        result = self._goal(client, goal, 60.0)
        if result is None:
            return self.record('trajectory goal', False, 'no result')
        self.ros.spin_until(lambda: False, 0.5)  # let the last joint states arrive
        now = self.positions()
        errors = {j: now.get(j, float('nan')) - q for j, q in zip(arm.arm_joints, arm.pose)}
        text = ', '.join(f'{j} {1000 * e:+.1f}' for j, e in errors.items())
        self.record('trajectory goal', result.error_code == 0, f'error_code {result.error_code}')
        worst = max(abs(e) for e in errors.values())
        return self.record('final errors mrad', worst < 0.03, text)

    def gripper(self) -> bool:
        client = ActionClient(self.ros.node, GripperCommand, '/gripper_controller/gripper_cmd')
        goal = GripperCommand.Goal()
        goal.command.position, goal.command.max_effort = self.arm.gripper_goal, 1.0
        result = self._goal(client, goal, 30.0)
        if result is None:
            return self.record('gripper goal', False, 'no result')
        return self.record(
            'gripper goal',
            bool(result.reached_goal),
            f'goal {self.arm.gripper_goal}, reached {result.position:.4f}, '
            f'stalled {result.stalled}',
        )


def run(args: argparse.Namespace, name: str) -> int:
    """The demo for arm `name` ('so101' or 'omx'); 0 if every step succeeded."""
    arm = ARMS[name]
    print(__doc__.splitlines()[0])
    with tempfile.TemporaryDirectory() as tmp:
        link = Path(tmp) / f'tty{name}'
        urdf = Path(tmp) / f'{name}.urdf'
        urdf.write_text(urdf_on_port(arm, str(link)))
        with (
            PtyServoBus(make_servos(arm.sim), link=link) as bus,
            ManagerProcess([arm.controllers], urdf) as proc,
            RosHarness(f'{name}_demo_user') as ros,
        ):
            print(
                f'  simulated bus: {len(bus.servos)} servos on {bus.device} (link {link}), 1 Mbaud'
            )
            demo = ServoArmDemo(ros, arm, args.duration)
            started = time.monotonic()
            ok = demo.spawn() and demo.trajectory()
            ok = demo.gripper() and ok
            demo.record(
                'bus',
                True,
                f'{sum(bus.instructions.values())} instructions in '
                f'{time.monotonic() - started:.1f} s, {bus.dropped} dropped',
            )
            demo.check_manager(proc)
            if args.dashboard:  # jog the arm and its gripper on the trajectory page
                stay_up_with_dashboard(args.dashboard, demo.results)
    if not args.dashboard:
        print_summary(demo.results)
    ok = ok and all(r[1] for r in demo.results)
    if not (args.no_plots or args.quick) and demo.arm_state:
        from py_controllers.demo import plots

        args.output.mkdir(parents=True, exist_ok=True)
        path = plots.plot_joints(args.output / f'{name}_joints.png', demo.arm_state)
        print(f'\n  plot written to {path.resolve()}')
    print(f'\n{"demo succeeded" if ok else "demo FAILED"}')
    return 0 if ok else 1


def run_teleop(args: argparse.Namespace, seconds: float = 10.0) -> int:
    """The SO-101 follower driven by an SO-101 leader (read_only, moved by a simulated hand),
    each on its own simulated bus and manager (the leader's in /leader), through
    servo_teleop; reports how closely the follower tracks the leader."""
    from py_controllers.hardware.servo_bus.arm_files import leader_description

    arm = ARMS['so101']
    print('make demo ARGS="--so101 --leader": an SO-101 leader arm teleoperating the follower')
    leader_yaml = arm.controllers.parent / 'so101_leader_controllers.yaml'
    with tempfile.TemporaryDirectory() as tmp:
        follower_link, leader_link = Path(tmp) / 'ttyfollower', Path(tmp) / 'ttyleader'
        follower_urdf, leader_urdf = Path(tmp) / 'follower.urdf', Path(tmp) / 'leader.urdf'
        follower_urdf.write_text(urdf_on_port(arm, str(follower_link)))
        leader_urdf.write_text(leader_description(str(leader_link)))
        with (
            PtyServoBus(make_servos('so101'), link=follower_link),
            PtyServoBus(make_servos('so101_leader'), link=leader_link),
            ManagerProcess([arm.controllers], follower_urdf) as follower,
            ManagerProcess([leader_yaml], leader_urdf, ros_args=['-r', '__ns:=/leader']) as leader,
            RosHarness('so101_teleop_user') as ros,
        ):
            demo = ServoArmDemo(ros, arm, args.duration)
            leader_states = ros.subscribe(JointState, '/leader/joint_states', 100)
            ok = demo.spawn()
            spawned = run_tool(
                'spawner',
                'joint_state_broadcaster',
                '-c',
                '/leader/controller_manager',
                '--controller-manager-timeout',
                '30',
            )
            ok = (
                demo.record(
                    'leader spawner', spawned.returncode == 0, 'joint_state_broadcaster in /leader'
                )
                and ok
            )
            teleop = subprocess.Popen(
                [sys.executable, '-m', 'py_controllers.hardware.servo_bus.teleop'],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
            )
            samples: list[tuple[float, list[float], list[float]]] = []
            try:
                end = time.monotonic() + seconds
                while ok and time.monotonic() < end:
                    ros.spin_until(lambda: False, 0.05)
                    if demo.states and leader_states:
                        f = dict(zip(demo.states[-1].name, demo.states[-1].position))
                        lead = dict(zip(leader_states[-1].name, leader_states[-1].position))
                        joints = arm.arm_joints
                        samples.append(
                            (time.monotonic(), [lead[j] for j in joints], [f[j] for j in joints])
                        )
            finally:
                teleop.terminate()
                teleop.wait(10)
            settled = samples[len(samples) // 3 :]
            if settled:
                error = max(abs(a - b) for _, lead, fol in settled for a, b in zip(lead, fol))
                travel = max(max(s[2][1] for s in settled) - min(s[2][1] for s in settled), 0.0)
                ok = (
                    demo.record(
                        'follower tracks leader',
                        error < 0.2 and travel > 0.3,
                        f'max |leader - follower| {1000 * error:.0f} mrad '
                        '(a 0.1 s lead at up to 0.6 rad/s), '
                        f'shoulder_lift travelled {travel:.2f} rad',
                    )
                    and ok
                )
            else:
                ok = demo.record('follower tracks leader', False, 'no joint states') and ok
            for name, proc in (('follower', follower), ('leader', leader)):
                ok = demo.check_manager(proc, name) and ok
    print_summary(demo.results)
    if samples and not (args.no_plots or args.quick):
        from py_controllers.demo import plots

        args.output.mkdir(parents=True, exist_ok=True)
        rows = [(t, list(arm.arm_joints), lead, fol) for t, lead, fol in samples]
        path = plots.plot_joints(args.output / 'so101_teleop.png', rows)
        print(f'\n  plot written to {path.resolve()} (desired: the leader, actual: the follower)')
    print(f'\n{"demo succeeded" if ok else "demo FAILED"}')
    return 0 if ok else 1
