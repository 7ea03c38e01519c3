"""Hold on release, through ros2_control_node's real loop: an arm whose controller lets go
mid-pose stays where it is.

The arm controller (the joint trajectory controller, in effort through its PID) takes the
arm to a pose where gravity loads the shoulder and the elbow, then lets go (`unspawner`,
or deactivated by a switch); over the next 3 s of the loop's time (the joint states'
stamps: MuJoCo's simulated time with use_sim_time) no joint moves more than 5 mrad:

- MuJoCo arm (config/mujoco/arm6.urdf, 31 kg): each joint goes back to MujocoSystem's
  position servo, which takes over the motor's last torque (it fell 1.4 rad before);
- demo arm (config/demo_robot.urdf, SimulatedSystem): passive again, its holding brakes on.
"""

from __future__ import annotations

import subprocess

import pytest
from control_msgs.action import FollowJointTrajectory
from rclpy.action import ActionClient
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectoryPoint

from py_controllers.ros_conversions import set_duration
from py_controllers.testing import BIN, CONFIG, ManagerProcess, RosHarness, run_tool, stamp_ns

JOINTS = [f'joint{i}' for i in range(1, 7)]
POSE = [0.3, 0.6, 0.9, 0.0, 0.6, 0.3]  # arm6: 98 Nm on the shoulder, 40 Nm on the elbow
HOLD_NS = 3_000_000_000  # how long after the release the arm is watched
LIMIT_RAD = 0.005
ARMS = {
    'mujoco_arm': (
        CONFIG / 'mujoco' / 'arm6.urdf',
        CONFIG / 'mujoco_arm_controllers.yaml',
        {'use_sim_time': 'true'},
    ),
    'demo_arm': (CONFIG / 'demo_robot.urdf', CONFIG / 'demo_controllers.yaml', {}),
}


def positions(msg: JointState) -> list[float]:
    index = {name: k for k, name in enumerate(msg.name)}
    return [msg.position[index[j]] for j in JOINTS]


def move_to_pose(ros: RosHarness, manager: ManagerProcess) -> None:
    """Spawn the broadcaster and the arm controller, run a 2 s goal to POSE, wait for it."""
    result = run_tool(
        'spawner', 'joint_state_broadcaster', 'arm_controller', '--controller-manager-timeout', '30'
    )
    assert result.returncode == 0, result.stdout + result.stderr + manager.output()
    client = ActionClient(
        ros.node, FollowJointTrajectory, '/arm_controller/follow_joint_trajectory'
    )
    assert ros.spin_until(client.server_is_ready), manager.output()
    goal = FollowJointTrajectory.Goal()
    goal.trajectory.joint_names = JOINTS
    point = JointTrajectoryPoint(positions=POSE, velocities=[0.0] * 6)
    set_duration(point.time_from_start, 2.0)
    goal.trajectory.points.append(point)
    sent = client.send_goal_async(goal)
    assert ros.spin_until(sent.done) and sent.result().accepted, manager.output()
    done = sent.result().get_result_async()
    assert ros.spin_until(done.done, 60.0), manager.output()
    assert done.result().result.error_code == 0, done.result().result.error_string


def still(states: list[JointState], samples: int = 50, within_rad: float = 1e-4) -> bool:
    """Whether the last `samples` joint states lie within `within_rad` on every joint."""
    if len(states) < samples:
        return False
    recent = [positions(msg) for msg in states[-samples:]]
    return all(max(q) - min(q) <= within_rad for q in zip(*recent))


def let_go(ros: RosHarness, how: str) -> None:
    """End the arm controller's claim while `ros` keeps receiving the joint states."""
    if how == 'unspawner':
        tool = subprocess.Popen(
            [str(BIN / 'unspawner'), 'arm_controller'],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert ros.spin_until(lambda: tool.poll() is not None, 60.0)
        assert tool.returncode == 0, tool.stdout.read()
    else:
        ok, message = ros.manager().switch_controllers([], ['arm_controller'])
        assert ok, message


@pytest.mark.parametrize('how', ['unspawner', 'deactivate'])
@pytest.mark.parametrize('arm', list(ARMS))
def test_an_arm_let_go_mid_pose_holds_within_5_mrad_for_3_s(arm: str, how: str):
    urdf, params, overrides = ARMS[arm]
    with (
        ManagerProcess([params], urdf, params=overrides) as manager,
        RosHarness('hold_on_release') as ros,
    ):
        states = ros.subscribe(JointState, '/joint_states', 1000)
        move_to_pose(ros, manager)
        # the goal ends within its 0.01 rad tolerance: let the controller settle first, so
        # that what follows is the release's doing alone
        assert ros.spin_until(lambda: still(states), 60.0), manager.output()
        held = positions(states[-1])
        assert held == pytest.approx(POSE, abs=0.05)
        first = len(states)
        let_go(ros, how)
        assert ros.spin_for_messages(states, 1), manager.output()
        # the claim had ended by this sample (give or take the transport's latency: 0.1 s)
        end_ns = stamp_ns(states[-1]) + HOLD_NS + 100_000_000
        assert ros.spin_until(lambda: stamp_ns(states[-1]) >= end_ns, 60.0), manager.output()
        moved = [0.0] * len(JOINTS)
        for msg in states[first:]:
            moved = [max(m, abs(q - q0)) for m, q, q0 in zip(moved, positions(msg), held)]
    assert max(moved) < LIMIT_RAD, f'{arm}: joint motion after the release (rad): {moved}'
