"""The two servo arms end to end on the simulated bus: the real ros2_control_node, spawner,
a FollowJointTrajectory client, a GripperCommand client, and the hold on release.

OpenManipulator-X (DynamixelSystem, 4 XM430 + gripper) and SO-101 (FeetechSystem, 6 STS3215),
each on a pty answering the real protocol bytes at 1 Mbaud. The servos move on stepped time
(10 ms per bus round) and the manager runs on it (`use_sim_time`): the controllers and the
servos keep in step however late a busy machine lets the bus rounds come, so the trajectory's
path tolerances judge the controllers, not the machine's load. The arm goes to a pose that
loads its shoulder and elbow, the gripper to a goal; then `unspawner` takes the arm
controller away and over the next 3 s of joint states no joint moves more than 5 mrad: each
servo keeps holding in position mode (DynamixelSystem/FeetechSystem's own hold)."""

from __future__ import annotations

import subprocess

import pytest
from control_msgs.action import FollowJointTrajectory, GripperCommand
from rclpy.action import ActionClient
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectoryPoint

from py_controllers.hardware.servo_bus.arm_files import ARMS, urdf_on_port
from py_controllers.hardware.servo_bus.bus_sim import LOCKSTEP_MANAGER_PARAMS, PtyServoBus
from py_controllers.hardware.servo_bus.sim_arms import make_servos
from py_controllers.ros_conversions import set_duration
from py_controllers.testing import BIN, ManagerProcess, RosHarness, run_tool, stamp_ns

HOLD_NS = 3_000_000_000
STEP_S = 0.01  # the manager's period: one bus round, one step of the servos
LIMIT_RAD = 0.005


def positions(msg: JointState, joints) -> list[float]:
    index = {name: k for k, name in enumerate(msg.name)}
    return [msg.position[index[j]] for j in joints]


def state_after(ros: RosHarness, states: list[JointState], bus: PtyServoBus, manager):
    """The first joint state stamped at or after the bus's time now: a state published
    before a result can arrive after it (CI, jazzy: the JTC smoke test read one)."""
    now_ns = bus.time_ns
    assert ros.spin_until(lambda: stamp_ns(states[-1]) >= now_ns, 60.0), manager.output()
    return next(m for m in states if stamp_ns(m) >= now_ns)


def run_goal(ros: RosHarness, client: ActionClient, goal, manager, timeout_s: float = 60.0):
    assert ros.spin_until(client.server_is_ready), manager.output()
    sent = client.send_goal_async(goal)
    assert ros.spin_until(sent.done) and sent.result().accepted, manager.output()
    done = sent.result().get_result_async()
    assert ros.spin_until(done.done, timeout_s), manager.output()
    return done.result().result


@pytest.mark.parametrize('name', list(ARMS))
def test_an_arm_follows_a_trajectory_grips_and_holds_after_unspawner(name, tmp_path):
    arm = ARMS[name]
    link = tmp_path / f'tty{name}'
    urdf = tmp_path / f'{name}.urdf'
    urdf.write_text(urdf_on_port(arm, str(link)))
    with (
        PtyServoBus(make_servos(arm.sim), link=link, step_s=STEP_S) as bus,
        ManagerProcess([arm.controllers], urdf, params=LOCKSTEP_MANAGER_PARAMS) as manager,
        RosHarness('servo_arms') as ros,
    ):
        states = ros.subscribe(JointState, '/joint_states', 1000)
        result = run_tool(
            'spawner',
            'joint_state_broadcaster',
            'arm_controller',
            'gripper_controller',
            '--controller-manager-timeout',
            '30',
        )
        assert result.returncode == 0, result.stdout + result.stderr + manager.output()

        trajectory = ActionClient(
            ros.node, FollowJointTrajectory, '/arm_controller/follow_joint_trajectory'
        )
        goal = FollowJointTrajectory.Goal()
        goal.trajectory.joint_names = list(arm.arm_joints)
        point = JointTrajectoryPoint(positions=list(arm.pose), velocities=[0.0] * len(arm.pose))
        set_duration(point.time_from_start, 2.0)
        goal.trajectory.points.append(point)
        outcome = run_goal(ros, trajectory, goal, manager)
        assert outcome.error_code == 0, outcome.error_string + manager.output()
        # the states carry the servos' time: the manager runs on the bus's steps
        assert 0 <= bus.time_ns - stamp_ns(states[-1]) < 60_000_000_000  # not the wall clock
        reached = positions(state_after(ros, states, bus, manager), arm.arm_joints)
        assert reached == pytest.approx(list(arm.pose), abs=0.03)

        gripper = ActionClient(ros.node, GripperCommand, '/gripper_controller/gripper_cmd')
        grip = GripperCommand.Goal()
        grip.command.position = arm.gripper_goal
        grip.command.max_effort = 1.0
        gripped = run_goal(ros, gripper, grip, manager)
        assert gripped.reached_goal, (gripped.position, manager.output())

        # settled, then the arm controller goes away
        held = positions(state_after(ros, states, bus, manager), arm.arm_joints)
        first = len(states)
        tool = subprocess.Popen(
            [str(BIN / 'unspawner'), 'arm_controller'],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert ros.spin_until(lambda: tool.poll() is not None, 60.0)
        assert tool.returncode == 0, tool.stdout.read()
        assert ros.spin_for_messages(states, 1), manager.output()
        end_ns = stamp_ns(states[-1]) + HOLD_NS + 100_000_000
        assert ros.spin_until(lambda: stamp_ns(states[-1]) >= end_ns, 60.0), manager.output()
        moved = [0.0] * len(arm.arm_joints)
        for msg in states[first:]:
            q = positions(msg, arm.arm_joints)
            moved = [max(m, abs(a - b)) for m, a, b in zip(moved, q, held)]
        # every servo still holds with its torque on, in position mode
        for servo in bus.servos.values():
            assert servo.torque_on and servo.mode == servo.model.modes['position']
    assert max(moved) < LIMIT_RAD, f'{name}: joint motion after unspawner (rad): {moved}'
