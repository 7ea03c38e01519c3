"""The simulated sensors on config/sensor_robot.urdf with config/sensor_controllers.yaml:
the DiffBot's IMU against its odometry, the arm's wrist force-torque sensor, every
broadcaster on one robot (real rclpy and DDS, sensor_rig.py)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from geometry_msgs.msg import PoseStamped, TwistStamped, WrenchStamped
from nav_msgs.msg import Odometry
from sensor_msgs.msg import Imu, Range
from sensor_rig import (
    BROADCASTER_TOPICS,
    CMD_VEL,
    rig_fixture,
    stamp_ns,
    wait_for,
)
from std_msgs.msg import Float64MultiArray
from tf2_msgs.msg import TFMessage

from py_controllers.semantic_components import IMU_INTERFACES
from py_controllers.testing import CONFIG, SteppedManager

rig = pytest.fixture(rig_fixture, name='rig')


# --- the simulated sensors: config/sensor_robot.urdf ------------------------------------------
def sensor_robot(rig, tmp_path: Path) -> SteppedManager:
    no_timeout = tmp_path / 'no_timeout.yaml'  # one cmd_vel stays in force
    no_timeout.write_text('diff_drive_controller:\n  ros__parameters:\n    cmd_vel_timeout: 0.0\n')
    return rig.start(
        (CONFIG / 'sensor_robot.urdf').read_text(),
        params_files=(CONFIG / 'sensor_controllers.yaml', no_timeout),
    )


def drive(cm: SteppedManager, ctrl: Any, linear: float, angular: float) -> None:
    """Send one TwistStamped; return after the first cycle that took it in."""
    msg = TwistStamped()
    msg.twist.linear.x, msg.twist.angular.z = linear, angular

    def taken() -> bool:
        cm.step(1)
        value = ctrl.reference_interfaces[1].value  # angular, or linear when not turning
        value = value if angular else ctrl.reference_interfaces[0].value
        return value == value and value != 0.0

    cm.send(CMD_VEL, TwistStamped, msg, taken)


def imu(cm: SteppedManager, interface: str) -> float:
    return cm.state(f'imu/{interface}')


def test_diffbot_imu_turning_reads_the_odometrys_yaw_rate(rig, tmp_path):
    cm = sensor_robot(rig, tmp_path)
    imu_msgs = rig.subscribe(Imu, '/imu_sensor_broadcaster/imu')
    odom_msgs = rig.subscribe(Odometry, '/diff_drive_controller/odom')
    ctrl, _ = cm.start('diff_drive_controller', 'imu_sensor_broadcaster')
    # at rest: level, not turning, gravity's reaction up
    assert [imu(cm, i) for i in IMU_INTERFACES] == [0, 0, 0, 1, 0, 0, 0, 0, 0, 9.81]
    # 0.2 m/s and 0.5 rad/s: wheels (0.2 -+ 0.5 * 0.4 / 2) / 0.05 = 2 and 6 rad/s, so the
    # yaw rate is 0.05 * (6 - 2) / 0.4 = 0.5 rad/s and the centripetal acceleration 0.1
    drive(cm, ctrl, 0.2, 0.5)
    cm.step(300)  # 3 s: ramps (2 m/s^2, 6 rad/s^2) and motor lag (0.05 s) long settled
    assert cm.state('left_wheel_joint/velocity') == pytest.approx(2.0, abs=1e-9)
    assert cm.state('right_wheel_joint/velocity') == pytest.approx(6.0, abs=1e-9)
    assert imu(cm, 'angular_velocity.z') == pytest.approx(0.5, abs=1e-9)
    assert imu(cm, 'angular_velocity.z') == pytest.approx(ctrl.odometry.angular, abs=1e-9)
    assert imu(cm, 'linear_acceleration.x') == pytest.approx(0.0, abs=1e-9)
    assert imu(cm, 'linear_acceleration.y') == pytest.approx(0.2 * 0.5, abs=1e-9)
    assert imu(cm, 'linear_acceleration.z') == 9.81
    # the orientation is the integrated yaw, the odometry's heading (both from the wheels)
    yaw = 2.0 * math.atan2(imu(cm, 'orientation.z'), imu(cm, 'orientation.w'))
    assert 1.3 < yaw < 1.5  # 0.5 rad/s for 3 s, less the ramp
    assert yaw == pytest.approx(ctrl.odometry.heading, abs=1e-9)
    # over DDS: the IMU message and the odometry message of one cycle agree
    settled_ns = cm.now_ns

    def pair() -> tuple[Any, Any] | None:
        odoms = {stamp_ns(m): m for m in odom_msgs if stamp_ns(m) > settled_ns}
        return next(((i, odoms[stamp_ns(i)]) for i in imu_msgs if stamp_ns(i) in odoms), None)

    assert cm.run_until(lambda: pair() is not None)
    imu_msg, odom_msg = pair()
    assert imu_msg.header.frame_id == 'imu_link'
    assert imu_msg.angular_velocity.z == pytest.approx(odom_msg.twist.twist.angular.z, abs=1e-9)
    assert imu_msg.angular_velocity.z == pytest.approx(0.5, abs=1e-9)


def test_diffbot_imu_acceleration_integrates_to_the_odometrys_speed(rig, tmp_path):
    cm = sensor_robot(rig, tmp_path)
    ctrl, _ = cm.start('diff_drive_controller', 'imu_sensor_broadcaster')
    drive(cm, ctrl, 0.2, 0.0)
    accel = cm.step(200, record='imu/linear_acceleration.x')
    # the speed limiter's ramp is 2 m/s^2 and the motors lag behind it
    assert 1.0 < max(accel) <= 2.0 + 1e-9
    # the accelerations over 10 ms each add up to the speed reached
    assert sum(a * 0.01 for a in accel) == pytest.approx(0.2, abs=1e-9)
    assert ctrl.odometry.linear == pytest.approx(0.2, abs=1e-9)
    assert imu(cm, 'linear_acceleration.y') == 0.0  # straight on
    assert imu(cm, 'angular_velocity.z') == 0.0
    assert imu(cm, 'orientation.w') == 1.0


def test_wrist_force_torque_reads_the_tool_weight_and_the_wrist_effort(rig, tmp_path):
    cm = sensor_robot(rig, tmp_path)
    received = rig.subscribe(WrenchStamped, '/force_torque_sensor_broadcaster/wrench')
    cm.start('arm_controller', 'force_torque_sensor_broadcaster')
    command = Float64MultiArray(data=[0.0, 0.3])
    arrived = lambda: cm.command('wrist_joint/effort') == 0.3  # noqa: E731
    cm.send_until('/arm_controller/commands', Float64MultiArray, command, arrived)
    cm.step(2)
    assert cm.state('wrist_joint/effort') == 0.3
    msg = wait_for(cm, received, lambda m: m.wrench.torque.z == 0.3)
    assert msg.header.frame_id == 'tool0'
    f, t = msg.wrench.force, msg.wrench.torque
    assert (f.x, f.y, t.x, t.y) == (0.0, 0.0, 0.0, 0.0)
    assert f.z == pytest.approx(-0.5 * 9.81)  # tool_mass 0.5 kg


def test_the_sensor_robot_runs_every_broadcaster(rig, tmp_path):
    cm = sensor_robot(rig, tmp_path)
    topics = {
        '/imu_sensor_broadcaster/imu': Imu,
        '/force_torque_sensor_broadcaster/wrench': WrenchStamped,
        '/range_sensor_broadcaster/range': Range,
        '/pose_broadcaster/pose': PoseStamped,
        '/tf': TFMessage,
    }
    received = {topic: rig.subscribe(msg_type, topic) for topic, msg_type in topics.items()}
    cm.start(*BROADCASTER_TOPICS)
    # five new subscriptions to discover (on a loaded 2-core machine that took over 10 s)
    heard = cm.run_until(lambda: all(received.values()))
    silent = [topic for topic, msgs in received.items() if not msgs]
    graph = '\n'.join(cm.harness.graph_report(topic) for topic in silent)
    assert heard, f'nothing on {silent} while stepping:\n{cm.publisher_report()}\n{graph}'
    assert received['/range_sensor_broadcaster/range'][-1].range == 1.25
    assert received['/pose_broadcaster/pose'][-1].pose.position.x == 1.5
    assert received['/tf'][-1].transforms[0].child_frame_id == 'marker'
    assert received['/imu_sensor_broadcaster/imu'][-1].linear_acceleration.z == 9.81
    assert received['/force_torque_sensor_broadcaster/wrench'][-1].wrench.force.z == pytest.approx(
        -4.905
    )
