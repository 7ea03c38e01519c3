"""What the release rows drive and measure: the parts of a robot whose claims end (an arm
held at a gravity-loaded pose, a base rolling at 0.5 m/s), and the joint states around
a release, over 3 s of the robot's own time (its joint states' stamps: MuJoCo's
simulated time with use_sim_time)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from control_msgs.action import FollowJointTrajectory
from rclpy.action import ActionClient
from sensor_msgs.msg import JointState
from std_msgs.msg import UInt8

from faults.common import Robot
from faults.messages import ARM, point, twist
from faults.recording import RecordingProcess, recorded_urdf
from py_controllers.testing import RosHarness, run_tool

POSE_RAD = 0.6  # every arm joint: the shoulder and the elbow carry gravity there
WHEELS = ['left_wheel_joint', 'right_wheel_joint']
WHEEL_SPEED = 10.0  # rad/s: 0.5 m/s on 5 cm wheels
AFTER_NS = 3_000_000_000
LATENCY_NS = 100_000_000  # the release may reach the loop this much after its sample
LIMIT_MRAD = 5.0
AT_REST = 0.01  # rad/s


def stamp_ns(msg: JointState) -> int:
    return msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec


def values(msg: JointState, joints: list[str], field: str = 'position') -> list[float]:
    index = {name: k for k, name in enumerate(msg.name)}
    data = getattr(msg, field)
    return [data[index[j]] for j in joints]


@dataclass
class Motion:
    """The joint states from the last one before a release to 3 s after it."""

    held: JointState
    after: list[JointState]

    def moved(self, joints: list[str]) -> dict[str, float]:
        """The largest distance of each joint from where it was held (rad)."""
        q0 = values(self.held, joints)
        moved = dict.fromkeys(joints, 0.0)
        for msg in self.after:
            for j, q, q_held in zip(joints, values(msg, joints), q0):
                moved[j] = max(moved[j], abs(q - q_held))
        return moved

    def final_speed(self, joints: list[str]) -> float:
        return max(abs(v) for v in values(self.after[-1], joints, 'velocity'))

    def braking(self, joints: list[str], full_speed: float) -> tuple[float, float | None]:
        """From the last sample at `full_speed` (1 %) on (the claim ended after it: a tool
        like `unspawner` takes a while): how far the wheels rolled (rad, the most of any)
        and the seconds until every one stayed below AT_REST (None: never)."""
        msgs = [self.held, *self.after]
        start = 0
        for k, msg in enumerate(msgs):
            if min(abs(v) for v in values(msg, joints, 'velocity')) >= 0.99 * full_speed:
                start = k
        rest = None
        for msg in msgs[start:]:
            if max(abs(v) for v in values(msg, joints, 'velocity')) >= AT_REST:
                rest = None
            elif rest is None:
                rest = msg
        q0, q1 = values(msgs[start], joints), values(msgs[-1], joints)
        rolled = max(abs(b - a) for a, b in zip(q0, q1))
        if rest is None:
            return rolled, None
        return rolled, (stamp_ns(rest) - stamp_ns(msgs[start])) * 1e-9


class ReleaseRobot:
    """A recording ros2_control_node (faults.recording) seen over ROS: joint states kept,
    an arm goal client, a cmd_vel stream, fault topics of the FaultInjectionControllers."""

    def __init__(self, robot: Robot, records: Path, base: bool) -> None:
        self.robot = robot
        self.records = records
        node = robot.node
        self.states: list[JointState] = []
        node.create_subscription(JointState, '/joint_states', self.states.append, 100)
        self.goals = ActionClient(
            node, FollowJointTrajectory, '/arm_controller/follow_joint_trajectory'
        )
        self.faults: dict[str, object] = {}
        self.driving = False
        if base:
            self.cmd_vel = node.create_publisher(
                type(twist(0, 0, None)), '/diff_drive_controller/cmd_vel', 10
            )
            node.create_timer(0.05, self._drive)

    def _drive(self) -> None:
        if self.driving:
            now = self.robot.node.get_clock().now().nanoseconds
            self.cmd_vel.publish(twist(WHEEL_SPEED * 0.05, 0.0, now))

    # --- getting there --------------------------------------------------------------
    def to_pose(self) -> bool:
        """The arm controller's goal to POSE in 2 s, then the arm settled there."""
        if not self.goals.wait_for_server(timeout_sec=10.0):
            return False
        goal = FollowJointTrajectory.Goal()
        goal.trajectory.joint_names = ARM
        goal.trajectory.points.append(point(2.0, [POSE_RAD] * 6, [0.0] * 6))
        sent = self.goals.send_goal_async(goal)
        if not self.robot.wait(sent.done, 10.0) or not sent.result().accepted:
            return False
        done = sent.result().get_result_async()
        return self.robot.wait(done.done, 30.0) and self.settled(ARM)

    def settled(self, joints: list[str], samples: int = 50, within: float = 1e-4) -> bool:
        """The last `samples` joint states lie within `within` rad on every joint."""

        def still() -> bool:
            recent = [values(m, joints) for m in self.states[-samples:]]
            return len(recent) == samples and all(max(q) - min(q) <= within for q in zip(*recent))

        return self.robot.wait(still, 60.0)

    def rolling(self) -> bool:
        """Both wheels at WHEEL_SPEED (1 %)."""

        def there() -> bool:
            return bool(self.states) and all(
                abs(v - WHEEL_SPEED) < 0.01 * WHEEL_SPEED
                for v in values(self.states[-1], WHEELS, 'velocity')
            )

        return self.robot.wait(there, 10.0)

    # --- the releases ---------------------------------------------------------------
    def release(self, let_go: Callable[[], bool]) -> Motion | None:
        """Run `let_go` and keep the joint states until 3 s past it (None: it failed)."""
        self.states[:-1] = []
        held = self.states[-1]
        if not let_go():
            return None
        first = len(self.states)
        if not self.robot.wait(lambda: len(self.states) > first, 10.0):
            return None
        end = stamp_ns(self.states[first]) + AFTER_NS + LATENCY_NS
        if not self.robot.wait(lambda: stamp_ns(self.states[-1]) >= end, 60.0):
            return None
        return Motion(held, self.states[1:])

    def tool(self, name: str, *controllers: str) -> bool:
        """Run `spawner`/`unspawner` on `controllers` while the joint states keep coming."""
        from py_controllers.testing import BIN

        proc = subprocess.Popen(
            [str(BIN / name), *controllers, '--controller-manager-timeout', '30'],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if not self.robot.wait(lambda: proc.poll() is not None, 60.0):
            proc.kill()
            proc.wait()
            return False
        return proc.returncode == 0

    def fail(self, controllers: list[str], code: int = 2) -> bool:
        """Make each FaultInjectionController fail (2: update() returns ERROR) until none
        of them is active."""
        for name in controllers:
            if name not in self.faults:
                self.faults[name] = self.robot.node.create_publisher(UInt8, f'/{name}/fault', 10)

        def gone() -> bool:
            for name in controllers:
                self.faults[name].publish(UInt8(data=code))
            states = self.robot.controller_states() or {}
            return all(states.get(n) == 'inactive' for n in controllers)

        return self.robot.poll(gone, 10.0, 0.02)


@contextmanager
def release_robot(
    folder: Path,
    urdf: Path,
    params_files: list[Path],
    plugins: list[str],
    controllers: list[str],
    inactive: list[str],
    params: dict[str, str] | None = None,
    base: bool = False,
) -> Iterator[ReleaseRobot]:
    """The recording node on `urdf` (its `plugins` recorded), `controllers` spawned active
    and `inactive` configured."""
    robot_file = folder / 'robot.urdf'
    robot_file.write_text(recorded_urdf(urdf.read_text(), plugins))
    with (
        RecordingProcess(folder, plugins, params_files, robot_file, params=params) as proc,
        RosHarness('faults_release') as ros,
    ):
        for names, extra in ((controllers, ()), (inactive, ('--inactive',))):
            result = run_tool(
                'spawner', *names, *extra, '--controller-manager-timeout', '60', timeout_s=300
            )
            if result.returncode != 0:
                raise RuntimeError(
                    f'spawner exited with {result.returncode}:\n{result.stdout}\n'
                    f'{result.stderr}\n{proc.output()[-3000:]}'
                )
        yield ReleaseRobot(Robot(proc, ros), folder, base)
