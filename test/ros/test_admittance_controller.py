"""admittance_controller/AdmittanceController on a small arm, in-process manager, real DDS.

The arm (URDF below): a gantry (prismatic joint_x, joint_y, joint_z) with a yaw wrist
(joint_yaw) carrying a force-torque sensor ``tcp_fts`` in ``ft_link``, which is turned
90 deg about z: the sensor's y axis is the base's -x axis. Mock hardware
(mock_components/GenericSystem) mirrors position commands to states and keeps the
sensor's state interfaces at whatever the test sets. The Pinocchio kinematics
(kinematics_interface_kdl/KinematicsInterfaceKDL) read the same URDF.

With stiffness 100 N/m (10 N m/rad on rotations), 10 N along the sensor's y settles the
tool at x = -10 / 100 = -0.1 m, 1 N m about z turns the wrist by 1 / 10 = 0.1 rad.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from builtin_interfaces.msg import Duration as DurationMsg
from control_msgs.msg import AdmittanceControllerState
from geometry_msgs.msg import WrenchStamped
from rclpy.parameter import Parameter
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from py_controllers import plugins
from py_controllers.controllers.admittance.controller import AdmittanceController
from py_controllers.controllers.joint_trajectory.controller import JointTrajectoryController
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.testing import RosHarness, SteppedManager, stamp_ns

plugins.register(
    plugins.CONTROLLERS_GROUP, 'admittance_controller/AdmittanceController', AdmittanceController
)
plugins.register(
    plugins.CONTROLLERS_GROUP,
    'joint_trajectory_controller/JointTrajectoryController',
    JointTrajectoryController,
)

ADM = 'admittance_controller'
JTC = 'joint_trajectory_controller'
JOINTS = ['joint_x', 'joint_y', 'joint_z', 'joint_yaw']
FT = 'tcp_fts'
PERIOD_NS = 10_000_000  # 100 Hz


def _joint(name: str, kind: str, parent: str, child: str, axis: str, xyz: str = '0 0 0') -> str:
    return (
        f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{xyz}"/><axis xyz="{axis}"/>'
        '<limit lower="-3.0" upper="3.0" velocity="10.0" effort="100.0"/></joint>'
    )


def arm_urdf() -> str:
    links = ['base_link', 'x_carriage', 'y_carriage', 'z_carriage', 'wrist', 'ft_link', 'tool0']
    joints = (
        _joint('joint_x', 'prismatic', 'base_link', 'x_carriage', '1 0 0')
        + _joint('joint_y', 'prismatic', 'x_carriage', 'y_carriage', '0 1 0')
        + _joint('joint_z', 'prismatic', 'y_carriage', 'z_carriage', '0 0 1', '0 0 0.5')
        + _joint('joint_yaw', 'revolute', 'z_carriage', 'wrist', '0 0 1')
        + '<joint name="ft_joint" type="fixed"><parent link="wrist"/><child link="ft_link"/>'
        '<origin xyz="0 0 0.05" rpy="0 0 1.5707963267948966"/></joint>'
        '<joint name="tool_joint" type="fixed"><parent link="ft_link"/><child link="tool0"/>'
        '<origin xyz="0 0 0.1"/></joint>'
    )
    hw_joints = ''.join(
        f'<joint name="{j}"><command_interface name="position"/>'
        '<state_interface name="position"><param name="initial_value">0.0</param>'
        '</state_interface></joint>'
        for j in JOINTS
    )
    sensor = ''.join(
        f'<state_interface name="{axis}"><param name="initial_value">0.0</param></state_interface>'
        for axis in ('force.x', 'force.y', 'force.z', 'torque.x', 'torque.y', 'torque.z')
    )
    return (
        '<?xml version="1.0"?><robot name="admittance_arm">'
        + ''.join(f'<link name="{name}"/>' for name in links)
        + joints
        + '<ros2_control name="Arm" type="system">'
        '<hardware><plugin>mock_components/GenericSystem</plugin></hardware>'
        + hw_joints
        + f'<sensor name="{FT}">{sensor}</sensor></ros2_control></robot>'
    )


def admittance_params(**overrides: Any) -> dict[str, Any]:
    params: dict[str, Any] = {
        'joints': JOINTS,
        'command_interfaces': ['position'],
        'state_interfaces': ['position'],
        'chainable_command_interfaces': ['position', 'velocity'],
        'kinematics': {
            'plugin_name': 'kinematics_interface_kdl/KinematicsInterfaceKDL',
            'plugin_package': 'kinematics_interface',
            'base': 'base_link',
            'tip': 'tool0',
            'alpha': 0.0005,
        },
        'ft_sensor': {'name': FT, 'frame': {'id': 'ft_link'}, 'filter_coefficient': 0.1},
        'control': {'frame': {'id': 'tool0'}},
        'fixed_world_frame': {'frame': {'id': 'base_link'}},
        'gravity_compensation': {'frame': {'id': 'tool0'}, 'CoG': {'pos': [0.0] * 3}},
        'admittance': {
            'selected_axes': [True] * 6,
            'mass': [1.0, 1.0, 1.0, 0.1, 0.1, 0.1],
            'damping_ratio': [1.0] * 6,
            'stiffness': [100.0, 100.0, 100.0, 10.0, 10.0, 10.0],
        },
    }
    params.update(overrides)
    return params


JTC_PARAMS = {
    'joints': JOINTS,
    'command_joints': [f'{ADM}/{j}' for j in JOINTS],
    'command_interfaces': ['position'],
    'state_interfaces': ['position'],
}


class _NoAliases(yaml.SafeDumper):
    """rcl's YAML parser refuses anchors and aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


class Rig:
    """The arm on a stepped manager with an admittance controller (and a JTC)."""

    def __init__(self, tmp_path: Path, **overrides: Any) -> None:
        manager = {
            'update_rate': 100,
            ADM: {'type': 'admittance_controller/AdmittanceController'},
            JTC: {'type': 'joint_trajectory_controller/JointTrajectoryController'},
        }
        document = {
            'controller_manager': {'ros__parameters': manager},
            ADM: {'ros__parameters': admittance_params(**overrides)},
            JTC: {'ros__parameters': JTC_PARAMS},
        }
        path = tmp_path / 'admittance.yaml'
        path.write_text(yaml.dump(document, Dumper=_NoAliases))
        self.harness = RosHarness(
            'admittance_test', args=['--ros-args', '--params-file', str(path)]
        )
        start_ns = self.harness.node.get_clock().now().nanoseconds
        self.cm = SteppedManager(self.harness, arm_urdf(), period_ns=PERIOD_NS, start_ns=start_ns)
        self.rosout = self.harness.subscribe_rosout()

    def commands(self) -> list[float]:
        return [self.cm.command(f'{j}/position') for j in JOINTS]

    def references(self, interface: str = 'position') -> list[float]:
        return [self.cm.command(f'{ADM}/{j}/{interface}') for j in JOINTS]

    def set_wrench(self, **axes: float) -> None:
        for axis, value in axes.items():
            name = axis.replace('_', '.')
            self.cm.manager.rm.state_interfaces[f'{FT}/{name}'].value = value

    def logged(self, *texts: str) -> bool:
        return self.rosout.has(*texts)

    def wait_logged(self, *texts: str) -> None:
        self.rosout.wait_for(self.cm.run_until, *texts)

    def close(self) -> None:
        self.cm.shutdown()
        self.harness.close()


@pytest.fixture
def rig(tmp_path):
    r = Rig(tmp_path)
    yield r
    r.close()


def test_without_wrench_the_commands_are_the_references(rig):
    (adm,) = rig.cm.start(ADM)
    assert not adm.is_in_chained_mode()
    assert adm.state_interface_configuration().names == [f'{j}/position' for j in JOINTS] + [
        f'{FT}/{a}' for a in ('force.x', 'force.y', 'force.z', 'torque.x', 'torque.y', 'torque.z')
    ]
    rig.cm.step(20)
    # the first reference is where the arm stands; nothing moves
    assert rig.commands() == [0.0] * 4
    assert rig.references() == [0.0] * 4

    target = [0.1, -0.05, 0.02, 0.3]
    rig.cm.send(
        f'/{ADM}/joint_references',
        JointTrajectoryPoint,
        JointTrajectoryPoint(positions=target),
        lambda: adm.reference_box.get() is not None,
    )
    rig.cm.step(1)
    assert rig.references() == target
    rig.cm.step(500)
    assert rig.commands() == pytest.approx(target, abs=1e-6)

    status: list[AdmittanceControllerState] = rig.harness.subscribe(
        AdmittanceControllerState, f'/{ADM}/status'
    )

    def at_reference(m: AdmittanceControllerState) -> bool:
        return m.ref_trans_base_ft.transform.translation.x > 0.0  # filled after the reference

    assert rig.cm.run_until(lambda: any(at_reference(m) for m in status))
    msg = next(m for m in status if at_reference(m))
    assert list(msg.joint_state.name) == JOINTS
    assert list(msg.stiffness.data) == [100.0, 100.0, 100.0, 10.0, 10.0, 10.0]
    # D = 1.0 * 2 * sqrt(m K): 20 for translations, 2 for rotations
    assert list(msg.damping.data) == pytest.approx([20.0] * 3 + [2.0] * 3)
    assert list(msg.selected_axes.data) == [1] * 6
    assert msg.wrench_base.header.frame_id == 'base_link'
    assert msg.ft_sensor_frame.data == 'ft_link'
    assert msg.ref_trans_base_ft.child_frame_id == 'ft_link'
    # the sensor at the reference: x, y, 0.5 + z + 0.05 m, turned 90 deg + yaw about z
    t = msg.ref_trans_base_ft.transform
    assert (t.translation.x, t.translation.y, t.translation.z) == pytest.approx((0.1, -0.05, 0.57))
    assert t.rotation.z == pytest.approx(math.sin((math.pi / 2 + 0.3) / 2))


def test_constant_wrench_settles_at_force_over_stiffness(rig):
    rig.cm.start(ADM)
    rig.cm.step(5)
    # 10 N along the sensor's y = base -x; 1 N m about z (sensor z = base z)
    rig.set_wrench(force_y=10.0, torque_z=1.0)
    trace = rig.cm.step(20, record='joint_x/position')
    # the state lags the command by one cycle (mock hardware mirrors it in read())
    assert trace[0] == 0.0
    assert trace[-1] < trace[1] < 0.0  # moving along the force from the first update on
    rig.cm.step(500)
    x, y, z, yaw = rig.commands()
    assert yaw == pytest.approx(0.1, rel=0.01)
    # the sensor turns with the wrist: its 10 N point along -(cos yaw, sin yaw) in the base
    assert math.hypot(x, y) == pytest.approx(0.1, rel=0.01)
    assert (x, y) == pytest.approx((-0.1 * math.cos(yaw), -0.1 * math.sin(yaw)), abs=1e-4)
    assert z == 0.0
    assert rig.references() == [0.0] * 4  # the reference stays; the admittance adds

    # status messages go out when the publisher is free: wait for one of the settled arm
    # (stamped from now on: an earlier one may still be on its way, from the settling)
    settled_ns = rig.cm.now_ns

    def settled(m):
        return stamp_ns(m.joint_state) >= (settled_ns)

    status = rig.harness.subscribe(AdmittanceControllerState, f'/{ADM}/status')
    assert rig.cm.run_until(lambda: any(settled(m) for m in status))
    msg = next(m for m in status if settled(m))
    force = msg.wrench_base.wrench.force
    yaw_then = msg.joint_state.position[3]
    expected = (-10.0 * math.cos(yaw_then), -10.0 * math.sin(yaw_then))
    assert (force.x, force.y) == pytest.approx(expected, abs=1e-3)
    assert msg.wrench_base.wrench.torque.z == pytest.approx(1.0, abs=1e-6)
    # joint_state holds the admittance offsets (the whole command, as the reference is 0)
    assert msg.joint_state.position[:2] == pytest.approx([x, y], abs=1e-3)
    twist = msg.admittance_velocity.twist
    assert (twist.linear.x, twist.angular.z) == pytest.approx((0.0, 0.0), abs=1e-3)

    # parameters apply live (enable_parameter_update_without_reactivation): K = 200 -> -0.05
    adm = rig.cm.manager.controllers[ADM].controller
    stiffer = [200.0, 200.0, 200.0, 10.0, 10.0, 10.0]
    result = adm.get_node().set_parameters([Parameter('admittance.stiffness', value=stiffer)])
    assert result[0].successful, result[0].reason
    rig.cm.step(500)
    assert rig.commands()[0] == pytest.approx(-0.05, rel=0.01)


def test_without_live_updates_parameters_apply_at_the_next_activation(tmp_path):
    rig = Rig(tmp_path, enable_parameter_update_without_reactivation=False)
    try:
        (adm,) = rig.cm.start(ADM)
        rig.set_wrench(force_y=10.0)
        rig.cm.step(500)
        assert rig.commands()[0] == pytest.approx(-0.1, rel=0.01)
        stiffer = [200.0, 200.0, 200.0, 10.0, 10.0, 10.0]
        result = adm.get_node().set_parameters([Parameter('admittance.stiffness', value=stiffer)])
        assert result[0].successful, result[0].reason
        rig.cm.step(500)
        assert rig.commands()[0] == pytest.approx(-0.1, rel=0.01)  # still K = 100
        ok, msg = rig.cm.manager.switch_controller([], [ADM], 2)
        assert ok, msg
        ok, msg = rig.cm.manager.switch_controller([ADM], [], 2)
        assert ok, msg
        rig.cm.step(500)
        # reactivated where the arm stood (-0.1 is the new reference): K = 200 adds -0.05
        assert rig.references()[0] == pytest.approx(-0.1, rel=0.01)
        assert rig.commands()[0] == pytest.approx(rig.references()[0] - 0.05, abs=1e-3)
    finally:
        rig.close()


def test_nan_wrench_holds_the_command_and_is_logged(rig):
    rig.cm.start(ADM)
    rig.set_wrench(force_y=10.0)
    rig.cm.step(30)
    held = rig.commands()
    assert held[0] < -0.01  # on its way
    rig.set_wrench(force_x=math.nan)
    trace = [rig.commands() for _ in range(30) if rig.cm.step(1) is not None]
    assert trace == [held] * 30
    rig.wait_logged('holding the last command', 'wrench', 'not finite')
    assert rig.commands() == held
    assert rig.cm.manager.state_of(ADM) == LifecycleStateId.ACTIVE
    # a finite wrench again: it moves on from where it held
    rig.set_wrench(force_x=0.0)
    rig.cm.step(1)
    assert rig.commands()[0] != held[0] and abs(rig.commands()[0] - held[0]) < 0.01
    rig.cm.step(600)
    assert rig.commands()[0] == pytest.approx(-0.1, rel=0.01)


def test_a_held_command_is_logged_off_the_loop(rig):
    rig.cm.start(ADM)
    rig.set_wrench(force_x=math.nan)
    in_update: list[str] = []

    def watch(frame: Any, event: str, arg: Any) -> None:
        # every rcl log call (rclpy's RcutilsLogger) made inside a controller's update
        if event == 'call' and frame.f_code.co_filename.endswith('rcutils_logger.py'):
            caller = frame.f_back
            while caller is not None and caller.f_code.co_name != 'update_and_write_commands':
                caller = caller.f_back
            if caller is not None:
                in_update.append(frame.f_code.co_name)

    sys.setprofile(watch)
    try:
        rig.cm.step(200)  # two seconds: the problem is reported twice
    finally:
        sys.setprofile(None)
    assert in_update == []
    rig.wait_logged('holding the last command', 'wrench', 'not finite')


def test_nan_reference_is_rejected_and_the_command_holds(rig):
    (adm,) = rig.cm.start(ADM)
    target = [0.1, 0.0, 0.0, 0.0]
    topic = f'/{ADM}/joint_references'
    rig.cm.send(
        topic,
        JointTrajectoryPoint,
        JointTrajectoryPoint(positions=target),
        lambda: adm.reference_box.get() is not None,
    )
    rig.cm.step(500)
    kept = adm.reference_box.get()
    held = rig.commands()
    bad = JointTrajectoryPoint(positions=[math.nan, 0.0, 0.0, 0.0])

    def rejected() -> bool:
        rig.cm.publish(topic, JointTrajectoryPoint, bad)
        rig.cm.step(1)
        return rig.logged('joint reference rejected: non-finite positions')

    assert rig.harness.spin_until(rejected)
    # by value: `send` may have published the target more than once, and a late copy
    # arriving meanwhile replaces the box's tuple with an equal one
    assert adm.reference_box.get() == kept
    assert rig.references() == target
    assert rig.commands() == pytest.approx(held, abs=1e-9)
    # a reference of the wrong size is refused too
    short = JointTrajectoryPoint(positions=[0.3])
    rig.cm.publish(topic, JointTrajectoryPoint, short)
    rig.wait_logged('joint reference rejected: 1 positions, expected 4')
    assert adm.reference_box.get() == kept


def test_wrench_reference_adds_to_the_measured_wrench(rig):
    (adm,) = rig.cm.start(ADM)
    topic = f'/{ADM}/wrench_reference'
    wrong = WrenchStamped()
    wrong.header.frame_id = 'tool0'
    wrong.wrench.force.y = 10.0
    rig.cm.publish(topic, WrenchStamped, wrong)
    rig.wait_logged('Ignoring wrench reference as it is on the wrong frame: tool0')
    assert adm.wrench_reference_box.get() is None
    good = WrenchStamped()
    good.header.frame_id = 'ft_link'
    good.wrench.force.y = 10.0
    rig.cm.send(topic, WrenchStamped, good, lambda: adm.wrench_reference_box.get() is not None)
    rig.cm.step(600)
    assert rig.commands()[0] == pytest.approx(-0.1, rel=0.01)


def test_chained_behind_a_joint_trajectory_controller(rig):
    adm, jtc = rig.cm.load(ADM, JTC)
    assert jtc.command_interface_configuration().names == [f'{ADM}/{j}/position' for j in JOINTS]
    ok, msg = rig.cm.manager.switch_controller([JTC], [], 2)
    assert not ok, 'a JTC commanding an inactive admittance controller must be refused'
    ok, msg = rig.cm.manager.switch_controller([ADM, JTC], [], 2)
    assert ok, msg
    assert adm.is_in_chained_mode()
    rig.cm.step(10)
    assert rig.commands() == pytest.approx([0.0] * 4, abs=1e-12)

    target = [0.1, 0.05, -0.05, 0.2]
    point = JointTrajectoryPoint(positions=target, time_from_start=DurationMsg(sec=1))
    trajectory = JointTrajectory(joint_names=JOINTS, points=[point])
    rig.cm.send_until(
        f'/{JTC}/joint_trajectory',
        JointTrajectory,
        trajectory,
        lambda: rig.references()[0] > 0.0,
    )
    rig.cm.step(400)
    assert rig.references() == pytest.approx(target, abs=1e-9)
    assert rig.commands() == pytest.approx(target, abs=1e-6)

    # a push along base -x moves the arm off the trajectory by F / K; the JTC's
    # reference stays where it was
    rig.set_wrench(force_y=10.0)
    rig.cm.step(500)
    assert rig.references() == pytest.approx(target, abs=1e-9)
    x, y, z, yaw = rig.commands()
    # the wrist is at 0.2 rad: the sensor's y axis is -(cos 0.2, sin 0.2) in the base
    assert (x, y) == pytest.approx(
        (0.1 - 0.1 * math.cos(0.2), 0.05 - 0.1 * math.sin(0.2)), abs=1e-4
    )
    assert (z, yaw) == pytest.approx(target[2:], abs=1e-9)

    # the admittance controller cannot stop while the JTC commands it
    ok, _ = rig.cm.manager.switch_controller([], [ADM], 2)
    assert not ok
    ok, msg = rig.cm.manager.switch_controller([], [JTC, ADM], 2)
    assert ok, msg
    assert not adm.is_in_chained_mode()


@pytest.mark.parametrize(
    ('overrides', 'missing'),
    [
        ({'ft_sensor': {'name': FT, 'frame': {'id': 'no_such_link'}}}, 'no_such_link'),
        ({'control': {'frame': {'id': 'flange'}}}, 'flange'),
        (
            {
                'kinematics': {
                    'plugin_name': 'kinematics_interface_kdl/KinematicsInterfaceKDL',
                    'plugin_package': 'kinematics_interface',
                    'base': 'base_link',
                    'tip': 'gripper_tip',
                }
            },
            'gripper_tip',
        ),
    ],
)
def test_configure_fails_naming_the_missing_link(tmp_path, overrides, missing):
    rig = Rig(tmp_path, **overrides)
    try:
        ok, msg = rig.cm.manager.load_controller(ADM)
        assert ok, msg
        ok, msg = rig.cm.manager.configure_controller(ADM)
        assert not ok
        assert rig.cm.manager.state_of(ADM) == LifecycleStateId.UNCONFIGURED
        rig.wait_logged(f"'{missing}'")
    finally:
        rig.close()


@pytest.mark.parametrize(
    ('overrides', 'logged'),
    [
        ({'command_interfaces': ['effort']}, "Command interface type 'effort' not allowed!"),
        ({'state_interfaces': ['velocity']}, 'Position state interface is required.'),
        ({'chainable_command_interfaces': ['effort']}, 'chainable interface type effort'),
        ({'command_joints': ['a', 'b']}, "'command_joints' parameter has to have the same size"),
        ({'joints': ['joint_x', 'joint_y']}, 'in chain order'),
        (
            {
                'kinematics': {
                    'plugin_name': 'kinematics_interface_kdl/KinematicsInterfaceKDL',
                    'plugin_package': 'my_kinematics',
                    'base': 'base_link',
                    'tip': 'tool0',
                }
            },
            "kinematics.plugin_package 'my_kinematics' is not supported",
        ),
    ],
)
def test_unsupported_configurations_are_refused_at_configure(tmp_path, overrides, logged):
    rig = Rig(tmp_path, **overrides)
    try:
        ok, _ = rig.cm.manager.load_controller(ADM)
        assert ok
        ok, _ = rig.cm.manager.configure_controller(ADM)
        assert not ok
        assert rig.cm.manager.state_of(ADM) == LifecycleStateId.UNCONFIGURED
        rig.wait_logged(logged)
    finally:
        rig.close()


def test_unsupported_parameter_values_are_refused_at_run_time(tmp_path):
    rig = Rig(tmp_path)
    try:
        (adm,) = rig.cm.load(ADM)
        node = adm.get_node()
        for name, value, reason in (
            ('control.frame.id', 'flange', "'control.frame.id' is 'flange', not a link"),
            ('ft_sensor.filter_coefficient', 1.5, 'filter_coefficient'),
            ('admittance.damping_ratio', [-1.0] * 6, 'damping_ratio'),
        ):
            before = node.get_parameter(name).value
            result = node.set_parameters([Parameter(name, value=value)])
            assert not result[0].successful
            assert reason in result[0].reason
            assert node.get_parameter(name).value == before
    finally:
        rig.close()
