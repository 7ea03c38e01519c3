"""MuJoCo physics under real controllers, on a SteppedManager (numbers by cycle count).

- effort_controllers/JointPositionController holds the pendulum of config/mujoco/pendulum.xml
  out horizontally with the error its P gain predicts, e = m g l / p to first order;
- diff_drive_controller drives the base of config/mujoco/diffbot.xml straight at the
  commanded speed, measured on the MuJoCo body itself;
- the 6-axis arm of config/mujoco/arm6.urdf under the joint trajectory controller (effort
  through its PID) ends two runs of the same goal in bit-identical states.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from control_msgs.action import FollowJointTrajectory
from geometry_msgs.msg import TwistStamped
from rclpy.action import ActionClient
from std_msgs.msg import Float64
from trajectory_msgs.msg import JointTrajectoryPoint

from py_controllers.hardware.mujoco_system import MujocoSystem
from py_controllers.ros_conversions import set_duration
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

G = 9.81
PENDULUM = CONFIG / 'mujoco' / 'pendulum.urdf'
DIFFBOT = CONFIG / 'mujoco' / 'diffbot.urdf'
ARM6 = CONFIG / 'mujoco' / 'arm6.urdf'
PERIOD_NS = 10_000_000  # 100 Hz: 10 physics steps of 1 ms per cycle


@contextmanager
def stepped(
    folder: Path, urdf: Path, controllers: dict[str, tuple[str, dict]], *, frozen: bool = False
) -> Iterator[SteppedManager]:
    """A SteppedManager running `urdf` with `controllers` (name: (type, params)) loadable,
    in its own context; shut down on exit, so that no two managers ever serve at once.

    `frozen`: every node on ROS time with no /clock, so the controllers' clocks read 0, as
    the stepped loop's time starts (else a controller that anchors its time axis at its
    node clock, as the trajectory controller does at activation, gets a wall-clock epoch
    that differs from run to run)."""
    manager: dict[str, Any] = {'update_rate': 100}
    document: dict[str, Any] = {'controller_manager': {'ros__parameters': manager}}
    for name, (type_name, params) in controllers.items():
        manager[name] = {'type': type_name}
        document[name] = {'ros__parameters': params}
    params_file = folder / 'controllers.yaml'
    params_file.write_text(yaml.safe_dump(document))
    args = ['--ros-args', '--params-file', str(params_file)]
    harness = RosHarness('mujoco_physics', args=args + ['-p', 'use_sim_time:=true'] * frozen)
    cm = SteppedManager(harness, urdf.read_text(), period_ns=PERIOD_NS)
    try:
        yield cm
    finally:
        cm.shutdown()
        harness.close()


def mujoco_of(cm: SteppedManager) -> MujocoSystem:
    """The MujocoSystem component under the manager."""
    (managed,) = cm.manager.rm.components.values()
    return managed.component


# --- a joint holding against gravity ---------------------------------------------------------
def test_joint_position_controller_holds_the_pendulum_with_error_m_g_l_over_p(tmp_path):
    # effort = p e + d de/dt, no integral: at rest p e = m g l sin(q* - e); with the rod
    # out horizontally (q* = pi/2), e = 9.81 cos(e) / 100, about m g l / p = 0.0981 rad
    p, d, target = 100.0, 10.0, math.pi / 2
    controller = (
        'effort_controllers/JointPositionController',
        {'joint': 'swing', 'pid': {'p': p, 'i': 0.0, 'd': d}},
    )
    with stepped(tmp_path, PENDULUM, {'swing_controller': controller}) as cm:
        cm.start('swing_controller')
        cm.send_until(
            '/swing_controller/command',
            Float64,
            Float64(data=target),
            lambda: cm.state('swing/position') > 0.1,
        )
        cm.step(800)  # 8 s: damping ratio d / (2 sqrt(p I)) = 0.5, settled within 1 s
        position, velocity = cm.state('swing/position'), cm.state('swing/velocity')
        effort = cm.command('swing/effort')
    error = target - position
    assert error == pytest.approx(1.0 * G * 1.0 / p, rel=0.01)
    exact = 0.0
    for _ in range(100):  # a contraction: converges to machine precision
        exact = G * math.cos(exact) / p
    assert error == pytest.approx(exact, abs=1e-9)  # 0.09763 rad
    assert effort == pytest.approx(p * error, rel=1e-9)
    assert velocity == pytest.approx(0.0, abs=1e-9)


# --- a wheel base driving straight ------------------------------------------------------------
DIFF_DRIVE = {
    'left_wheel_names': ['left_wheel_joint'],
    'right_wheel_names': ['right_wheel_joint'],
    'wheel_separation': 0.4,
    'wheel_radius': 0.05,
    'odom_frame_id': 'odom',
    'base_frame_id': 'base_link',
    'cmd_vel_timeout': 0.0,  # the one command holds until changed
    'linear': {'x': {'max_velocity': 1.0, 'max_acceleration': 2.0}},
}


def test_diff_drive_moves_the_mujoco_base_at_the_commanded_speed(tmp_path):
    speed = 0.3
    controller = ('diff_drive_controller/DiffDriveController', DIFF_DRIVE)
    with stepped(tmp_path, DIFFBOT, {'diff_drive_controller': controller}) as cm:
        cm.start('diff_drive_controller')
        sim = mujoco_of(cm)
        base = sim.sim.data.body('base_link')  # MuJoCo's own body: the ground truth
        cm.step(50)  # settle on the wheels and the caster
        start_x = float(base.xpos[0])
        command = TwistStamped()
        command.twist.linear.x = speed
        cm.send_until(
            '/diff_drive_controller/cmd_vel',
            TwistStamped,
            command,
            lambda: cm.command('left_wheel_joint/velocity') > 0.0,
        )
        cm.step(100)  # 1 s: up to speed (0.15 s at 2 m/s^2) and steady
        x0, y0, t0_ns = float(base.xpos[0]), float(base.xpos[1]), sim.simulation_time_ns()
        cm.step(300)
        x1, y1, t1_ns = float(base.xpos[0]), float(base.xpos[1]), sim.simulation_time_ns()
        wheels = [cm.command(f'{side}_wheel_joint/velocity') for side in ('left', 'right')]
    assert x0 > start_x + 0.2
    assert t1_ns - t0_ns == 300 * PERIOD_NS
    measured = (x1 - x0) / ((t1_ns - t0_ns) * 1e-9)
    assert measured == pytest.approx(speed, rel=0.02)
    assert abs(y1 - y0) < 1e-3  # straight: less than 1 mm sideways in 0.9 m
    assert wheels == pytest.approx([speed / 0.05] * 2)  # v / r


# --- determinism of the arm under the trajectory controller -------------------------------------
ARM_TARGET = [0.6, 0.3, 1.0, -0.4, 0.9, 0.5]


def arm_run(folder: Path) -> dict[str, float]:
    """arm6 under the JTC: hold 0.5 s, a 1.5 s goal, 1 s more; every state interface."""
    params = yaml.safe_load((CONFIG / 'mujoco_arm_controllers.yaml').read_text())
    jtc = params['arm_controller']['ros__parameters']
    controller = ('joint_trajectory_controller/JointTrajectoryController', jtc)
    folder.mkdir()
    with stepped(folder, ARM6, {'arm_controller': controller}, frozen=True) as cm:
        cm.start('arm_controller')
        cm.step(50)
        client = ActionClient(
            cm.harness.node, FollowJointTrajectory, '/arm_controller/follow_joint_trajectory'
        )
        assert cm.harness.spin_until(client.server_is_ready)
        goal = FollowJointTrajectory.Goal()
        goal.trajectory.joint_names = [f'joint{i}' for i in range(1, 7)]
        point = JointTrajectoryPoint(positions=ARM_TARGET, velocities=[0.0] * 6)
        set_duration(point.time_from_start, 1.5)
        goal.trajectory.points.append(point)
        sent = client.send_goal_async(goal)
        # no cycle runs meanwhile: the goal reaches the loop at the same cycle every time
        assert cm.harness.spin_until(sent.done) and sent.result().accepted
        cm.step(250)
        return {name: h.value for name, h in cm.manager.rm.state_interfaces.items()}


def test_arm6_under_the_trajectory_controller_runs_bit_identically_twice(tmp_path):
    first = arm_run(tmp_path / 'first')
    second = arm_run(tmp_path / 'second')
    assert first == second  # exactly, not approximately
    for i, target in enumerate(ARM_TARGET):  # and the arm did go there
        assert first[f'joint{i + 1}/position'] == pytest.approx(target, abs=0.01)
