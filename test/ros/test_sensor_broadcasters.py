"""The sensor broadcasters (IMU, force-torque, range, pose) and the simulated sensors.

Real rclpy and DDS: a SteppedManager per test (its own context and domain), mock hardware
whose `<sensor>` state interfaces start at `initial_value`s (or are set between cycles),
messages received by a subscriber of the test. The DiffBot's IMU and the arm's wrist
force-torque sensor run on config/sensor_robot.urdf with config/sensor_controllers.yaml.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from geometry_msgs.msg import PoseStamped, TwistStamped, WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.parameter import Parameter
from sensor_msgs.msg import Imu, Range
from std_msgs.msg import Float64MultiArray
from tf2_msgs.msg import TFMessage

from py_controllers.hardware.diffbot_system import DiffBotSystem
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.types import CallbackReturn, LifecycleStateId
from py_controllers.semantic_components import IMU_INTERFACES, POSE_INTERFACES
from py_controllers.semantic_components.range_sensor import to_float32
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

S = LifecycleStateId
PERIOD_NS = 10_000_000  # the stepped manager's 100 Hz
IMU_VALUES = dict(zip(IMU_INTERFACES, (0.0, 0.0, 0.6, 0.8, 0.1, -0.2, 0.3, 1.5, -2.5, 9.81)))
FT_VALUES = {'force.x': 1.0, 'force.y': 2.0, 'force.z': 3.0}
FT_VALUES.update({'torque.x': 4.0, 'torque.y': 5.0, 'torque.z': 6.0})
POSE_VALUES = dict(zip(POSE_INTERFACES, (1.0, 2.0, 3.0, 0.0, 0.0, 0.6, 0.8)))
CMD_VEL = '/diff_drive_controller/cmd_vel'


def mock_robot(**sensors: dict[str, float]) -> str:
    """A robot of `<sensor>`s on mock_components/GenericSystem, each interface at its value."""
    body = ''
    for name, interfaces in sensors.items():
        body += f'<sensor name="{name}">'
        for itf, value in interfaces.items():
            body += (
                f'<state_interface name="{itf}">'
                f'<param name="initial_value">{value!r}</param></state_interface>'
            )
        body += '</sensor>'
    return (
        '<?xml version="1.0"?><robot name="sensors"><link name="base"/>'
        '<ros2_control name="MockSensors" type="system">'
        f'<hardware><plugin>mock_components/GenericSystem</plugin></hardware>{body}'
        '</ros2_control></robot>'
    )


class Rig:
    """A stepped manager with the controllers of one test; closed by the fixture."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.harness: RosHarness | None = None
        self.cm: SteppedManager | None = None

    def start(
        self,
        urdf: str,
        controllers: dict[str, tuple[str, dict[str, Any]]] | None = None,
        *,
        params_files: tuple[Path, ...] = (),
    ) -> SteppedManager:
        """`controllers`: name -> (type, parameters); files are given before them."""
        args = ['--ros-args']
        for path in params_files:
            args += ['--params-file', str(path)]
        if controllers:
            manager = {'update_rate': 100}
            document: dict[str, Any] = {'controller_manager': {'ros__parameters': manager}}
            for name, (type_name, params) in controllers.items():
                manager[name] = {'type': type_name}
                document[name] = {'ros__parameters': params}
            path = self.tmp_path / 'controllers.yaml'
            path.write_text(yaml.safe_dump(document))
            args += ['--params-file', str(path)]
        self.harness = RosHarness('sensor_test', args=args)
        self.cm = SteppedManager(self.harness, urdf, period_ns=PERIOD_NS)
        return self.cm

    def subscribe(self, msg_type: Any, topic: str) -> list:
        assert self.harness is not None
        return self.harness.subscribe(msg_type, topic)

    def close(self) -> None:
        if self.cm is not None:
            self.cm.shutdown()
        if self.harness is not None:
            self.harness.close()


@pytest.fixture
def rig(tmp_path):
    r = Rig(tmp_path)
    yield r
    r.close()


def wait_for(cm: SteppedManager, received: list, predicate=lambda msg: True) -> Any:
    """Step until a message satisfying `predicate` has arrived; the newest such."""
    assert cm.run_until(lambda: any(predicate(m) for m in received)), 'no such message'
    return next(m for m in reversed(received) if predicate(m))


def stamp_ns(msg: Any) -> int:
    return msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec


def assert_stamped_by_a_cycle(cm: SteppedManager, msg: Any) -> None:
    """The stamp is the manager's time of one of the cycles run."""
    stamp = stamp_ns(msg)
    assert 0 < stamp <= cm.now_ns and stamp % PERIOD_NS == 0


def refused_configure(cm: SteppedManager, name: str) -> None:
    ok, msg = cm.manager.load_controller(name)
    assert ok, msg
    ok, _ = cm.manager.configure_controller(name)
    assert not ok
    assert cm.manager.state_of(name) == S.UNCONFIGURED


def refused_activation(cm: SteppedManager, name: str, missing: str) -> None:
    (ctrl,) = cm.load(name)
    ok, msg = cm.manager.switch_controller([name], [], 2)
    assert not ok
    assert f"'{missing}'" in msg
    assert cm.manager.state_of(name) == S.INACTIVE
    assert ctrl.get_node().count_publishers(f'/{name}/{_TOPICS[name]}') == 1  # configured


_TOPICS = {
    'imu_sensor_broadcaster': 'imu',
    'force_torque_sensor_broadcaster': 'wrench',
    'range_sensor_broadcaster': 'range',
    'pose_broadcaster': 'pose',
}


# --- imu_sensor_broadcaster -------------------------------------------------------------------
IMU = 'imu_sensor_broadcaster/IMUSensorBroadcaster'
IMU_COVARIANCES = {
    'static_covariance_orientation': [0.01, 0.0, 0.0, 0.0, 0.02, 0.0, 0.0, 0.0, 0.03],
    'static_covariance_angular_velocity': [0.04, 0.001, 0.0, 0.001, 0.05, 0.0, 0.0, 0.0, 0.06],
    'static_covariance_linear_acceleration': [0.7, 0.0, 0.0, 0.0, 0.8, 0.0, 0.0, 0.0, 0.9],
}


def test_imu_readings_frame_and_covariances_reach_the_message(rig):
    params = {'sensor_name': 'imu', 'frame_id': 'imu_link', **IMU_COVARIANCES}
    cm = rig.start(mock_robot(imu=IMU_VALUES), {'imu_sensor_broadcaster': (IMU, params)})
    received = rig.subscribe(Imu, '/imu_sensor_broadcaster/imu')
    cm.start('imu_sensor_broadcaster')
    msg = wait_for(cm, received)
    assert msg.header.frame_id == 'imu_link'
    assert_stamped_by_a_cycle(cm, msg)
    o, w, a = msg.orientation, msg.angular_velocity, msg.linear_acceleration
    assert (o.x, o.y, o.z, o.w) == (0.0, 0.0, 0.6, 0.8)
    assert (w.x, w.y, w.z) == (0.1, -0.2, 0.3)
    assert (a.x, a.y, a.z) == (1.5, -2.5, 9.81)
    assert list(msg.orientation_covariance) == IMU_COVARIANCES['static_covariance_orientation']
    assert (
        list(msg.angular_velocity_covariance)
        == IMU_COVARIANCES['static_covariance_angular_velocity']
    )
    assert (
        list(msg.linear_acceleration_covariance)
        == IMU_COVARIANCES['static_covariance_linear_acceleration']
    )
    # the hardware's reading changes: the next messages and the exported state follow
    cm.manager.rm.state_interfaces['imu/angular_velocity.z'].value = 0.7
    msg = wait_for(cm, received, lambda m: m.angular_velocity.z == 0.7)
    assert msg.linear_acceleration.z == 9.81
    exported = cm.manager.rm.state_interfaces
    assert exported['imu_sensor_broadcaster/imu/angular_velocity.z'].value == 0.7
    assert exported['imu_sensor_broadcaster/imu/orientation.w'].value == 0.8


def test_imu_rotation_offset_rotates_readings_and_covariances_once(rig):
    params = {
        'sensor_name': 'imu',
        'frame_id': 'base_link',
        'rotation_offset': {'yaw': math.pi / 2},  # x -> y, y -> -x
        'static_covariance_orientation': [4.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0, 6.0],
        'static_covariance_angular_velocity': [1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0],
    }
    values = dict(IMU_VALUES)
    values.update({'orientation.z': 0.0, 'orientation.w': 1.0})
    cm = rig.start(mock_robot(imu=values), {'imu_sensor_broadcaster': (IMU, params)})
    received = rig.subscribe(Imu, '/imu_sensor_broadcaster/imu')
    cm.start('imu_sensor_broadcaster')
    # messages of several cycles: every one is rotated once (upstream rotates the previous
    # message's covariance again each cycle, so a 90 degree yaw alternates them)
    wait_for(cm, received, lambda m: stamp_ns(m) >= 5 * PERIOD_NS)
    assert len({stamp_ns(m) for m in received}) >= 2
    s = math.sqrt(0.5)
    for msg in received:
        w, a, o = msg.angular_velocity, msg.linear_acceleration, msg.orientation
        assert (w.x, w.y, w.z) == pytest.approx((0.2, 0.1, 0.3))  # (-(-0.2), 0.1, 0.3)
        assert (a.x, a.y, a.z) == pytest.approx((2.5, 1.5, 9.81))
        assert (o.x, o.y, o.z, o.w) == pytest.approx((0.0, 0.0, -s, s))  # q r^-1, q = 1
        assert list(msg.angular_velocity_covariance) == pytest.approx(
            [2.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 3.0], abs=1e-15
        )
        assert list(msg.orientation_covariance) == [4.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0, 6.0]


def test_imu_without_sensor_name_does_not_configure(rig):
    cm = rig.start(mock_robot(imu=IMU_VALUES), {'imu_sensor_broadcaster': (IMU, {'frame_id': 'f'})})
    refused_configure(cm, 'imu_sensor_broadcaster')


def test_imu_with_a_missing_interface_is_not_activated(rig):
    values = {k: v for k, v in IMU_VALUES.items() if k != 'linear_acceleration.z'}
    params = {'sensor_name': 'imu', 'frame_id': 'imu_link'}
    cm = rig.start(mock_robot(imu=values), {'imu_sensor_broadcaster': (IMU, params)})
    refused_activation(cm, 'imu_sensor_broadcaster', 'imu/linear_acceleration.z')


# --- force_torque_sensor_broadcaster ----------------------------------------------------------
FT = 'force_torque_sensor_broadcaster/ForceTorqueSensorBroadcaster'
FTB = 'force_torque_sensor_broadcaster'


def test_ft_offsets_then_multipliers_and_a_change_at_run_time(rig):
    params = {
        'sensor_name': 'wrist_ft',
        'frame_id': 'tool0',
        'offset': {'force': {'x': 10.0}, 'torque': {'z': -1.0}},
        'multiplier': {'force': {'x': 2.0, 'z': -1.0}, 'torque': {'z': 0.5}},
    }
    cm = rig.start(mock_robot(wrist_ft=FT_VALUES), {FTB: (FT, params)})
    received = rig.subscribe(WrenchStamped, f'/{FTB}/wrench')
    (ctrl,) = cm.start(FTB)
    msg = wait_for(cm, received)
    assert msg.header.frame_id == 'tool0'
    assert_stamped_by_a_cycle(cm, msg)
    f, t = msg.wrench.force, msg.wrench.torque
    # (reading + offset) * multiplier: (1 + 10) * 2 = 22 (not 1 * 2 + 10 = 12); (6 - 1) * 0.5
    assert (f.x, f.y, f.z) == (22.0, 2.0, -3.0)
    assert (t.x, t.y, t.z) == (4.0, 5.0, 2.5)
    exported = cm.manager.rm.state_interfaces
    assert exported[f'{FTB}/wrist_ft/force.x'].value == 22.0
    assert exported[f'{FTB}/wrist_ft/torque.z'].value == 2.5
    # ros2 param set: applied from the next cycle on
    results = ctrl.get_node().set_parameters([Parameter('offset.force.y', value=100.0)])
    assert results[0].successful
    msg = wait_for(cm, received, lambda m: m.wrench.force.y != 2.0)
    assert msg.wrench.force.y == 102.0
    assert msg.wrench.force.x == 22.0
    assert exported[f'{FTB}/wrist_ft/force.y'].value == 102.0


def test_ft_interface_names_leave_missing_axes_nan(rig):
    params = {
        'frame_id': 'load_cell',
        'interface_names': {
            'force': {'x': 'wrist_ft/force.x'},
            'torque': {'z': 'wrist_ft/torque.z'},
        },
    }
    cm = rig.start(mock_robot(wrist_ft=FT_VALUES), {FTB: (FT, params)})
    received = rig.subscribe(WrenchStamped, f'/{FTB}/wrench')
    (ctrl,) = cm.start(FTB)
    assert ctrl.state_interface_configuration().names == ['wrist_ft/force.x', 'wrist_ft/torque.z']
    msg = wait_for(cm, received)
    f, t = msg.wrench.force, msg.wrench.torque
    assert f.x == 1.0 and t.z == 6.0
    assert all(math.isnan(v) for v in (f.y, f.z, t.x, t.y))
    exported = sorted(n for n in cm.manager.rm.state_interfaces if n.startswith(f'{FTB}/'))
    assert exported == [f'{FTB}/wrist_ft/force.x', f'{FTB}/wrist_ft/torque.z']


@pytest.mark.parametrize(
    'params',
    [
        {'frame_id': 'tool0'},  # neither
        {
            'frame_id': 'tool0',
            'sensor_name': 'wrist_ft',
            'interface_names': {'force': {'x': 'wrist_ft/force.x'}},
        },  # both
        {'sensor_name': 'wrist_ft'},  # no frame_id
    ],
    ids=['no_sensor', 'sensor_name_and_interface_names', 'no_frame_id'],
)
def test_ft_configure_refuses(rig, params):
    cm = rig.start(mock_robot(wrist_ft=FT_VALUES), {FTB: (FT, params)})
    refused_configure(cm, FTB)


def test_ft_filter_chain_is_refused_clearly(rig, capfd):
    params = {
        'sensor_name': 'wrist_ft',
        'frame_id': 'tool0',
        'sensor_filter_chain': {'filter1': {'name': 'low_pass', 'type': 'filters/LowPassFilter'}},
    }
    cm = rig.start(mock_robot(wrist_ft=FT_VALUES), {FTB: (FT, params)})
    capfd.readouterr()
    refused_configure(cm, FTB)
    _, err = capfd.readouterr()
    assert 'sensor_filter_chain.filter1.type' in err
    assert "'filters' package" in err


def test_ft_with_a_missing_interface_is_not_activated(rig):
    values = {k: v for k, v in FT_VALUES.items() if k != 'torque.y'}
    params = {'sensor_name': 'wrist_ft', 'frame_id': 'tool0'}
    cm = rig.start(mock_robot(wrist_ft=values), {FTB: (FT, params)})
    refused_activation(cm, FTB, 'wrist_ft/torque.y')


# --- range_sensor_broadcaster -----------------------------------------------------------------
RANGE = 'range_sensor_broadcaster/RangeSensorBroadcaster'
RSB = 'range_sensor_broadcaster'
RANGE_PARAMS = {
    'sensor_name': 'sonar',
    'frame_id': 'sonar_link',
    'radiation_type': 1,
    'field_of_view': 0.1,
    'min_range': 0.1,
    'max_range': 7.0,
    'variance': 1.0,
}


def test_range_reading_and_configured_fields(rig):
    cm = rig.start(mock_robot(sonar={'range': 1.25}), {RSB: (RANGE, RANGE_PARAMS)})
    received = rig.subscribe(Range, f'/{RSB}/range')
    cm.start(RSB)
    msg = wait_for(cm, received)
    assert msg.header.frame_id == 'sonar_link'
    assert_stamped_by_a_cycle(cm, msg)
    assert msg.range == 1.25
    assert msg.radiation_type == Range.INFRARED
    assert msg.field_of_view == to_float32(0.1)
    assert (msg.min_range, msg.max_range, msg.variance) == (to_float32(0.1), 7.0, 1.0)
    # outside [min_range, max_range] it is published as read, as upstream
    cm.manager.rm.state_interfaces['sonar/range'].value = 9.5
    assert wait_for(cm, received, lambda m: m.range != 1.25).range == 9.5


@pytest.mark.parametrize(
    'change',
    [{'sensor_name': ''}, {'frame_id': ''}, {'radiation_type': 2}],
    ids=['no_sensor_name', 'no_frame_id', 'radiation_type_2'],
)
def test_range_configure_refuses(rig, change):
    cm = rig.start(mock_robot(sonar={'range': 1.25}), {RSB: (RANGE, {**RANGE_PARAMS, **change})})
    refused_configure(cm, RSB)


def test_range_with_a_missing_interface_is_not_activated(rig):
    cm = rig.start(mock_robot(sonar={'distance': 1.0}), {RSB: (RANGE, RANGE_PARAMS)})
    refused_activation(cm, RSB, 'sonar/range')


# --- pose_broadcaster -------------------------------------------------------------------------
POSE = 'pose_broadcaster/PoseBroadcaster'


def transforms(received: list) -> list:
    return [t for msg in received for t in msg.transforms]


def test_pose_and_its_transform_with_the_default_and_a_given_child_frame(rig):
    controllers = {
        'pose_broadcaster': (POSE, {'pose_name': 'marker', 'frame_id': 'base_link'}),
        'tag_broadcaster': (
            POSE,
            {'pose_name': 'marker', 'frame_id': 'camera', 'tf': {'child_frame_id': 'tag_36'}},
        ),
        'quiet_broadcaster': (
            POSE,
            {'pose_name': 'other', 'frame_id': 'map', 'tf': {'enable': False}},
        ),
    }
    other = dict(POSE_VALUES, **{'position.x': -1.0})
    cm = rig.start(mock_robot(marker=POSE_VALUES, other=other), controllers)
    poses = rig.subscribe(PoseStamped, '/pose_broadcaster/pose')
    quiet = rig.subscribe(PoseStamped, '/quiet_broadcaster/pose')
    tf = rig.subscribe(TFMessage, '/tf')
    cm.start(*controllers)
    msg = wait_for(cm, poses)
    assert msg.header.frame_id == 'base_link'
    assert_stamped_by_a_cycle(cm, msg)
    p, o = msg.pose.position, msg.pose.orientation
    assert (p.x, p.y, p.z, o.x, o.y, o.z, o.w) == (1.0, 2.0, 3.0, 0.0, 0.0, 0.6, 0.8)
    assert wait_for(cm, quiet).pose.position.x == -1.0  # ~/pose without tf
    children = lambda: {t.child_frame_id for t in transforms(tf)}  # noqa: E731
    assert cm.run_until(lambda: {'marker', 'tag_36'} <= children())
    wait_for(cm, quiet, lambda m: stamp_ns(m) > stamp_ns(quiet[0]))
    assert cm.run_until(lambda: len(transforms(tf)) >= 10)
    assert children() == {'marker', 'tag_36'}  # nothing from the quiet one
    marker = next(t for t in transforms(tf) if t.child_frame_id == 'marker')
    tag = next(t for t in transforms(tf) if t.child_frame_id == 'tag_36')
    assert (marker.header.frame_id, tag.header.frame_id) == ('base_link', 'camera')
    t, r = marker.transform.translation, marker.transform.rotation
    assert (t.x, t.y, t.z, r.x, r.y, r.z, r.w) == (1.0, 2.0, 3.0, 0.0, 0.0, 0.6, 0.8)


def test_an_invalid_pose_is_published_but_not_sent_to_tf(rig, capfd):
    params = {'pose_name': 'marker', 'frame_id': 'base_link'}
    cm = rig.start(mock_robot(marker=POSE_VALUES), {'pose_broadcaster': (POSE, params)})
    poses = rig.subscribe(PoseStamped, '/pose_broadcaster/pose')
    tf = rig.subscribe(TFMessage, '/tf')
    cm.start('pose_broadcaster')
    assert cm.run_until(lambda: bool(tf))
    w = cm.manager.rm.state_interfaces['marker/orientation.w']
    w.value = 0.5  # |q|^2 = 0.61
    invalid_from_ns = cm.now_ns + PERIOD_NS
    wait_for(cm, poses, lambda m: m.pose.orientation.w == 0.5)
    cm.step(5)
    w.value = 0.8
    valid_from_ns = cm.now_ns + PERIOD_NS
    wait_for(cm, tf, lambda m: stamp_ns(m.transforms[0]) >= valid_from_ns)
    stamps = [stamp_ns(t) for t in transforms(tf)]
    assert not [s for s in stamps if invalid_from_ns <= s < valid_from_ns]
    assert all(t.transform.rotation.w == 0.8 for t in transforms(tf))
    # logged by the executor, once for the six invalid cycles (at most once a second)
    line = 'Invalid pose [1.0, 2.0, 3.0], [0.0, 0.0, 0.6, 0.5]'
    err = []

    def logged() -> bool:
        err.append(capfd.readouterr().err)
        return line in ''.join(err)

    assert rig.harness.spin_until(logged)
    cm.run_for(0.1)
    assert (''.join(err) + capfd.readouterr().err).count(line) == 1


def test_pose_without_frame_id_does_not_configure(rig):
    params = {'pose_name': 'marker'}
    cm = rig.start(mock_robot(marker=POSE_VALUES), {'pose_broadcaster': (POSE, params)})
    refused_configure(cm, 'pose_broadcaster')


def test_pose_with_a_missing_interface_is_not_activated(rig):
    values = {k: v for k, v in POSE_VALUES.items() if k != 'orientation.w'}
    params = {'pose_name': 'marker', 'frame_id': 'base_link'}
    cm = rig.start(mock_robot(marker=values), {'pose_broadcaster': (POSE, params)})
    refused_activation(cm, 'pose_broadcaster', 'marker/orientation.w')


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
    cm.start(*_TOPICS)
    # five new subscriptions to discover: on a loaded 2-core machine that took over 10 s
    assert cm.run_until(lambda: all(received.values()), timeout_s=60.0)
    assert received['/range_sensor_broadcaster/range'][-1].range == 1.25
    assert received['/pose_broadcaster/pose'][-1].pose.position.x == 1.5
    assert received['/tf'][-1].transforms[0].child_frame_id == 'marker'
    assert received['/imu_sensor_broadcaster/imu'][-1].linear_acceleration.z == 9.81
    assert received['/force_torque_sensor_broadcaster/wrench'][-1].wrench.force.z == pytest.approx(
        -4.905
    )


# --- the simulated sensors: descriptions they refuse (no ROS) ---------------------------------
def component(urdf: str, name: str) -> Any:
    return next(i for i in parse_control_resources_from_urdf(urdf) if i.name == name)


@pytest.mark.parametrize(
    ('old', 'new', 'reason'),
    [
        ('<param name="wheel_radius">0.05</param>', '', "'wheel_radius' must be a number > 0"),
        (
            '<param name="wheel_separation">0.4</param>',
            '<param name="wheel_separation">0</param>',
            "'wheel_separation'",
        ),
        (
            '<param name="left_wheel_name">left_wheel_joint</param>',
            '<param name="left_wheel_name">caster</param>',
            "'left_wheel_name'",
        ),
        (
            '<state_interface name="linear_acceleration.z"/>',
            '<state_interface name="temperature"/>',
            "'temperature' is not simulated",
        ),
    ],
    ids=['no_radius', 'zero_separation', 'unknown_wheel', 'not_an_imu'],
)
def test_diffbot_refuses_an_imu_it_cannot_simulate(caplog, old, new, reason):
    urdf = (CONFIG / 'sensor_robot.urdf').read_text()
    assert urdf.count(old) == 1
    assert DiffBotSystem().on_init(component(urdf, 'Base')) == CallbackReturn.SUCCESS
    assert (
        DiffBotSystem().on_init(component(urdf.replace(old, new), 'Base')) == CallbackReturn.ERROR
    )
    assert reason in caplog.text


def test_diffbot_wheels_default_to_the_first_and_second_joint():
    urdf = (CONFIG / 'sensor_robot.urdf').read_text()
    for side in ('left', 'right'):
        urdf = urdf.replace(f'<param name="{side}_wheel_name">{side}_wheel_joint</param>', '')
    hw = DiffBotSystem()
    assert hw.on_init(component(urdf, 'Base')) == CallbackReturn.SUCCESS
    assert (hw.imu_model.left, hw.imu_model.right) == (0, 1)


@pytest.mark.parametrize(
    ('old', 'new', 'reason'),
    [
        (
            '<param name="joint">wrist_joint</param>',
            '<param name="joint">elbow</param>',
            "'joint' must name",
        ),
        (
            '<param name="tool_mass">0.5</param>',
            '<param name="tool_mass">-1</param>',
            "'tool_mass'",
        ),
        (
            '<state_interface name="torque.z"/>',
            '<state_interface name="temperature"/>',
            "'temperature' is not simulated",
        ),
    ],
    ids=['unknown_joint', 'negative_mass', 'not_force_torque'],
)
def test_simulated_system_refuses_a_sensor_it_cannot_simulate(caplog, old, new, reason):
    urdf = (CONFIG / 'sensor_robot.urdf').read_text()
    assert urdf.count(old) == 1
    assert SimulatedSystem().on_init(component(urdf, 'Arm')) == CallbackReturn.SUCCESS
    assert (
        SimulatedSystem().on_init(component(urdf.replace(old, new), 'Arm')) == CallbackReturn.ERROR
    )
    assert reason in caplog.text
