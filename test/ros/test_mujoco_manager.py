"""MujocoSystem under the controller manager in this process, with real topics.

config/mujoco/two_link_arm.urdf on a SteppedManager (its own context and domain): a
forward position controller moves the MuJoCo joint, the IMU and force-torque broadcasters
publish the model's sensors, and simulated time follows the manager's cycles.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml
from geometry_msgs.msg import WrenchStamped
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float64MultiArray

from py_controllers.hardware.mujoco_system import MujocoSystem
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.ros_conversions import stamp_to_ns
from py_controllers.testing import (
    CONFIG,
    ManagerProcess,
    RosHarness,
    SteppedManager,
    run_tool,
    stamp_ns,
)

PERIOD_NS = 10_000_000  # 100 Hz: 5 physics steps of the arm's 2 ms per cycle
URDF = CONFIG / 'mujoco' / 'two_link_arm.urdf'
CONTROLLERS = {
    'forward_position_controller': (
        'forward_command_controller/ForwardCommandController',
        {'joints': ['joint1'], 'interface_name': 'position'},
    ),
    'imu_sensor_broadcaster': (
        'imu_sensor_broadcaster/IMUSensorBroadcaster',
        {'sensor_name': 'imu', 'frame_id': 'imu_link'},
    ),
    'force_torque_sensor_broadcaster': (
        'force_torque_sensor_broadcaster/ForceTorqueSensorBroadcaster',
        {'sensor_name': 'wrist_ft', 'frame_id': 'tool0'},
    ),
}


@pytest.fixture
def arm(tmp_path: Path) -> Any:
    """A stepped manager running the MuJoCo arm with CONTROLLERS loadable."""
    manager: dict[str, Any] = {'update_rate': 100}
    document: dict[str, Any] = {'controller_manager': {'ros__parameters': manager}}
    for name, (type_name, params) in CONTROLLERS.items():
        manager[name] = {'type': type_name}
        document[name] = {'ros__parameters': params}
    params_file = tmp_path / 'controllers.yaml'
    params_file.write_text(yaml.safe_dump(document))
    harness = RosHarness('mujoco_test', args=['--ros-args', '--params-file', str(params_file)])
    cm = SteppedManager(harness, URDF.read_text(), period_ns=PERIOD_NS)
    yield cm
    cm.shutdown()
    harness.close()


def component(cm: SteppedManager) -> MujocoSystem:
    managed = cm.manager.rm.components['MujocoArm']
    assert managed.state == LifecycleStateId.ACTIVE
    return managed.component


def test_forward_position_controller_moves_the_mujoco_joint(arm):
    sim = component(arm)
    arm.start('forward_position_controller')
    start_time = sim.simulation_time_ns() * 1e-9
    arm.send_until(
        '/forward_position_controller/commands',
        Float64MultiArray,
        Float64MultiArray(data=[0.6]),
        lambda: arm.command('joint1/position') == 0.6,
    )
    cycles_before = round(sim.simulation_time_ns() * 1e-9 / 0.01)
    arm.step(300)  # 3 s of simulated time
    assert arm.state('joint1/position') == pytest.approx(0.6, abs=1e-3)
    assert arm.state('joint2/position') == pytest.approx(0.0, abs=1e-2)  # held by its servo
    # one cycle of the manager = one 10 ms period = 5 physics steps
    assert sim.simulation_time_ns() == (cycles_before + 300) * 10_000_000
    assert sim.simulation_time_ns() * 1e-9 > start_time


def test_sensor_broadcasters_publish_the_mujoco_sensors(arm):
    imu = arm.harness.subscribe(Imu, '/imu_sensor_broadcaster/imu')
    wrench = arm.harness.subscribe(WrenchStamped, '/force_torque_sensor_broadcaster/wrench')
    arm.start('imu_sensor_broadcaster', 'force_torque_sensor_broadcaster')
    assert arm.run_until(lambda: imu and wrench)
    msg = imu[-1]
    assert msg.header.frame_id == 'imu_link'
    assert msg.orientation.w == 1.0
    assert msg.linear_acceleration.z == pytest.approx(9.81, rel=1e-9)
    assert wrench[-1].wrench.force.z == pytest.approx(-0.25 * 9.81, rel=1e-6)


# --- simulated time through the real loop ----------------------------------------------
def test_with_use_sim_time_the_loop_runs_on_mujoco_time_and_publishes_clock(tmp_path):
    """ros2_control_node with use_sim_time: /clock carries the simulation's time, one
    nominal period (5 physics steps) per cycle, and controllers stamp with it."""
    params_file = tmp_path / 'controllers.yaml'
    params_file.write_text(
        yaml.safe_dump(
            {
                'controller_manager': {
                    'ros__parameters': {
                        'update_rate': 100,
                        'joint_state_broadcaster': {
                            'type': 'joint_state_broadcaster/JointStateBroadcaster'
                        },
                    }
                }
            }
        )
    )
    with (
        ManagerProcess([params_file], URDF, params={'use_sim_time': 'true'}) as manager,
        RosHarness('mujoco_sim_time') as ros,
    ):
        clock = ros.subscribe(Clock, '/clock')
        states = ros.subscribe(JointState, '/joint_states')
        result = run_tool(
            'spawner', 'joint_state_broadcaster', '--controller-manager-timeout', '30'
        )
        assert result.returncode == 0, result.stdout + result.stderr + manager.output()
        assert ros.spin_until(lambda: len(clock) >= 20 and len(states) >= 5)
        ticks = [stamp_to_ns(c.clock) for c in clock]
        # simulation time, not the wall clock's epoch; whole periods of 10 ms
        assert ticks[-1] < 3600 * 10**9
        assert all(t % PERIOD_NS == 0 for t in ticks), ticks[:10]
        # time only moves forward, by whole periods (a busy publisher may skip a sample)
        assert all(b > a for a, b in itertools.pairwise(ticks)), ticks[:10]
        stamps = [stamp_ns(s) for s in states]
        assert all(0 < t < 3600 * 10**9 and t % PERIOD_NS == 0 for t in stamps), stamps[:10]
