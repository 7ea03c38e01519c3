"""Upstream MuJoCo robot descriptions, unchanged, under the controller manager in this
process: the manager loads MujocoSystem by the plugin name the URDF gives and the
controllers of the upstream demos' YAML move the joints (SteppedManager, real topics).

config/mujoco/upstream_arm.urdf: ros-controls' layout, mujoco_ros2_control/MujocoSystemInterface,
its demo's position_controller (ForwardCommandController, position) on joint1 and joint2.
config/mujoco/moveit_cart.urdf: moveit's effort cart, mujoco_ros2_control/MujocoSystem,
its demo's effort_controller (JointGroupEffortController) and imu_sensor_broadcaster.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float64MultiArray

from py_controllers.hardware.mujoco_system import MujocoSystem
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, SteppedManager, run_tool

CONTROLLERS = {
    'position_controller': (
        'forward_command_controller/ForwardCommandController',
        {'joints': ['joint1', 'joint2'], 'interface_name': 'position'},
    ),
    'effort_controller': (
        'effort_controllers/JointGroupEffortController',
        {'joints': ['slider_to_cart']},
    ),
    'imu_sensor_broadcaster': (
        'imu_sensor_broadcaster/IMUSensorBroadcaster',
        {'sensor_name': 'cart_imu', 'frame_id': 'cart_imu'},
    ),
}


def stepped(tmp_path: Path, urdf: str) -> tuple[RosHarness, SteppedManager]:
    manager: dict[str, Any] = {'update_rate': 100}
    document: dict[str, Any] = {'controller_manager': {'ros__parameters': manager}}
    for name, (type_name, params) in CONTROLLERS.items():
        manager[name] = {'type': type_name}
        document[name] = {'ros__parameters': params}
    params_file = tmp_path / 'controllers.yaml'
    params_file.write_text(yaml.safe_dump(document))
    harness = RosHarness('mujoco_upstream', args=['--ros-args', '--params-file', str(params_file)])
    return harness, SteppedManager(harness, (CONFIG / 'mujoco' / urdf).read_text())


@pytest.fixture
def manager_of(tmp_path: Path) -> Any:
    made = []

    def make(urdf: str) -> SteppedManager:
        harness, cm = stepped(tmp_path, urdf)
        made.append((harness, cm))
        managed = cm.manager.rm.components['MujocoSystem']
        assert managed.state == LifecycleStateId.ACTIVE
        assert isinstance(managed.component, MujocoSystem)
        return cm

    yield make
    for harness, cm in made:
        cm.shutdown()
        harness.close()


def test_ros_controls_urdf_unchanged_moves_under_its_position_controller(manager_of):
    cm = manager_of('upstream_arm.urdf')
    assert cm.manager.rm.components['MujocoSystem'].info.plugin == (
        'mujoco_ros2_control/MujocoSystemInterface'
    )
    cm.start('position_controller')
    cm.send_until(
        '/position_controller/commands',
        Float64MultiArray,
        Float64MultiArray(data=[0.5, -0.4]),
        lambda: cm.command('joint2/position') == -0.4,
    )
    cm.step(300)
    # position actuators against gravity: effort = kp (q* - q), kp 400 and 200
    for joint, target, kp in (('joint1', 0.5, 400.0), ('joint2', -0.4, 200.0)):
        effort = cm.state(f'{joint}/effort')
        assert abs(effort) > 1.0
        assert cm.state(f'{joint}/position') == pytest.approx(target - effort / kp, abs=1e-5)


def test_moveit_urdf_moves_under_its_effort_controller_and_broadcasts_its_imu(manager_of):
    cm = manager_of('moveit_cart.urdf')
    assert cm.manager.rm.components['MujocoSystem'].info.plugin == (
        'mujoco_ros2_control/MujocoSystem'
    )
    imu = cm.harness.subscribe(Imu, '/imu_sensor_broadcaster/imu')
    cm.start('effort_controller', 'imu_sensor_broadcaster')
    cm.send_until(
        '/effort_controller/commands',
        Float64MultiArray,
        Float64MultiArray(data=[4.0]),
        lambda: cm.command('slider_to_cart/effort') == 4.0,
    )
    v0 = cm.state('slider_to_cart/velocity')
    cm.step(50)  # 0.5 s of 4 N on the 1 kg cart
    assert cm.state('slider_to_cart/velocity') - v0 == pytest.approx(2.0, rel=1e-9)
    assert cm.run_until(lambda: any(m.linear_acceleration.x > 3.9 for m in imu))
    assert imu[-1].linear_acceleration.x == pytest.approx(4.0, rel=1e-6)


def test_the_launch_files_set_up_runs_and_moves_the_arm():
    """launch/mujoco_upstream.launch.py's URDF and YAML in ros2_control_node on simulated
    time: the spawner brings up the upstream demo's controllers and a command moves joint1."""
    with (
        ManagerProcess(
            [CONFIG / 'mujoco_upstream_controllers.yaml'],
            CONFIG / 'mujoco' / 'upstream_arm.urdf',
            params={'use_sim_time': 'true'},
        ) as manager,
        RosHarness('mujoco_upstream_demo') as ros,
    ):
        states = ros.subscribe(JointState, '/joint_states')
        names = ['joint_state_broadcaster', 'position_controller', 'gripper_controller']
        result = run_tool('spawner', *names, '--controller-manager-timeout', '30')
        assert result.returncode == 0, result.stdout + result.stderr + manager.output()
        publisher = ros.node.create_publisher(
            Float64MultiArray, '/position_controller/commands', 10
        )

        def joint1() -> float:
            if not states:
                return 0.0
            return states[-1].position[list(states[-1].name).index('joint1')]

        def moved() -> bool:
            publisher.publish(Float64MultiArray(data=[0.5, 0.0]))
            return joint1() > 0.45

        assert ros.spin_until(moved), manager.output()
