"""The two ros2_controllers_test_nodes console scripts against a real ros2_control_node: what
they publish reaches the joints (mock hardware mirrors position commands to states), and
check_starting_point keeps the trajectory publisher quiet while the robot is outside its
starting_point_limits, as upstream."""

import subprocess

import pytest
import yaml
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory

from py_controllers.child_process import ChildProcess
from py_controllers.testing import BIN, CONFIG, ManagerProcess, RosHarness, run_tool

ARM_JOINTS = [f'joint{i}' for i in range(1, 7)]


class NodeProcess(ChildProcess):
    """One of the test node scripts with a parameter file written from `params`."""

    def __init__(self, script, node_name, params, tmp_path):
        path = tmp_path / f'{script}.yaml'
        path.write_text(yaml.safe_dump({node_name: {'ros__parameters': params}}))
        self.process = subprocess.Popen(
            [str(BIN / script), '--ros-args', '--params-file', str(path)],
            stdout=self._open_log(),
            stderr=subprocess.STDOUT,
        )


def positions(states, joints):
    """The latest /joint_states positions of `joints` (None before the first)."""
    if not states:
        return None
    last = dict(zip(states[-1].name, states[-1].position, strict=False))
    return [last[j] for j in joints]


def spawn(*controllers):
    result = run_tool('spawner', *controllers, '--controller-manager-timeout', '30')
    assert result.returncode == 0, result.stdout + result.stderr


def test_forward_position_publisher_cycles_its_goals(tmp_path):
    joints = ['joint1', 'joint2', 'joint3']
    params = {
        'publish_topic': '/forward_position_controller/commands',
        'wait_sec_between_publish': 1,
        'goal_names': ['pos1', 'pos2'],
        'pos1': [0.5, -0.25, 0.125],
        'pos2': [-0.75, 0.0, 1.0],
    }
    with (
        ManagerProcess(
            [CONFIG / 'minimal_controllers.yaml'], CONFIG / 'minimal_robot.urdf'
        ) as manager,
        RosHarness('test_nodes_forward') as ros,
    ):
        spawn('joint_state_broadcaster', 'forward_position_controller')
        states = ros.subscribe(JointState, '/joint_states')
        with NodeProcess(
            'publisher_forward_position_controller',
            'publisher_forward_position_controller',
            params,
            tmp_path,
        ) as node:
            # the goals in order, then the first again
            for goal in ([0.5, -0.25, 0.125], [-0.75, 0.0, 1.0], [0.5, -0.25, 0.125]):
                assert ros.spin_until(lambda g=goal: positions(states, joints) == g), (
                    node._logged() + manager.output()
                )


@pytest.mark.parametrize('value', ['.nan', '.inf'])
def test_forward_position_publisher_refuses_a_non_finite_goal(tmp_path, value):
    path = tmp_path / 'bad.yaml'
    path.write_text(
        'publisher_forward_position_controller:\n  ros__parameters:\n'
        f"    goal_names: ['pos1']\n    pos1: [0.0, {value}]\n"
    )
    result = subprocess.run(
        [str(BIN / 'publisher_forward_position_controller'), '--ros-args', '--params-file', path],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert 'Goal "pos1" holds' in result.stdout + result.stderr
    assert 'Traceback' not in result.stderr  # the teardown of a node never made is quiet


def _trajectory_params(**extra):
    # longer than the point's 4 s time_from_start: the arm arrives before the next publish
    return {
        'controller_name': 'joint_trajectory_controller',
        'wait_sec_between_publish': 5,
        'goal_names': ['pos1'],
        'pos1': {'positions': [0.3, -0.2, 0.1, 0.4, -0.5, 0.6]},
        'joints': ARM_JOINTS,
        **extra,
    }


@pytest.fixture
def arm():
    with (
        ManagerProcess(
            [CONFIG / 'arm_mock_controllers.yaml'], CONFIG / 'arm_robot.urdf'
        ) as manager,
        RosHarness('test_nodes_jtc') as ros,
    ):
        spawn('joint_state_broadcaster', 'joint_trajectory_controller')
        yield manager, ros


def test_trajectory_publisher_moves_the_arm_within_its_starting_limits(arm, tmp_path):
    manager, ros = arm
    states = ros.subscribe(JointState, '/joint_states')
    params = _trajectory_params(
        check_starting_point=True,
        starting_point_limits={j: [-0.1, 0.1] for j in ARM_JOINTS},
    )
    with NodeProcess(
        'publisher_joint_trajectory_controller',
        'publisher_position_trajectory_controller',
        params,
        tmp_path,
    ) as node:
        goal = [0.3, -0.2, 0.1, 0.4, -0.5, 0.6]

        def reached():
            now = positions(states, ARM_JOINTS)
            return now is not None and all(abs(a - b) < 1e-9 for a, b in zip(now, goal))

        assert ros.spin_until(reached, timeout_s=30.0), node._logged() + manager.output()


def test_trajectory_publisher_refuses_to_start_outside_the_limits(arm, tmp_path):
    _, ros = arm
    states = ros.subscribe(JointState, '/joint_states')
    sent = ros.subscribe(JointTrajectory, '/joint_trajectory_controller/joint_trajectory')
    rosout = ros.subscribe_rosout()
    # the arm starts at 0: joint2's limits exclude it
    limits = {j: [-0.1, 0.1] for j in ARM_JOINTS}
    limits['joint2'] = [0.5, 1.0]
    # a refusal per timer period: 1 s periods, as nothing is sent that needs time to arrive
    params = _trajectory_params(
        check_starting_point=True, starting_point_limits=limits, wait_sec_between_publish=1
    )
    with NodeProcess(
        'publisher_joint_trajectory_controller',
        'publisher_position_trajectory_controller',
        params,
        tmp_path,
    ):
        rosout.wait_for(ros.spin_until, 'Starting point limits exceeded for joint joint2 !')
        # two timer periods refused: nothing was sent, the arm stays at 0
        assert ros.spin_until(
            lambda: sum('not within configured limits' in m.msg for m in rosout) >= 2,
            timeout_s=30.0,
        )
        assert sent == []
        assert positions(states, ARM_JOINTS) == [0.0] * 6
