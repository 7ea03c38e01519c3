"""MujocoSystem driven through its lifecycle like the resource manager, without ROS.

Most tests run config/mujoco/two_link_arm.urdf (joint1 on a position actuator, joint2 on
a motor with servo gains p/d, a base IMU and a wrist force-torque sensor); the effort
and joint-kind tests write small models of their own into tmp_path.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

import pytest
from rclpy.duration import Duration
from rclpy.time import Time

from py_controllers.hardware import mujoco_system
from py_controllers.hardware.mujoco_system import MujocoSystem
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.types import CallbackReturn, LifecycleStateId, ReturnType

ROOT = Path(__file__).resolve().parents[2]
ARM_URDF = ROOT / 'config' / 'mujoco' / 'two_link_arm.urdf'
NOW = Time(nanoseconds=0)
PERIOD = Duration(nanoseconds=10_000_000)  # 10 ms, 5 steps of the arm's 2 ms timestep
S = LifecycleStateId


def arm_info(**hardware_params: str) -> Any:
    """A fresh HardwareInfo of the arm, `hardware_params` added to its <hardware>."""
    (info,) = parse_control_resources_from_urdf(ARM_URDF.read_text())
    info.hardware_parameters.update(hardware_params)
    return info


def start(info: Any, *, activate: bool = True) -> MujocoSystem:
    """on_init, export handles into the component's dicts, configure (and activate)."""
    component = MujocoSystem()
    assert component.on_init(info) == CallbackReturn.SUCCESS
    component.state_interfaces = {h.name: h for h in component.export_state_interfaces()}
    component.command_interfaces = {h.name: h for h in component.export_command_interfaces()}
    assert component.on_configure(S.UNCONFIGURED) == CallbackReturn.SUCCESS
    if activate:
        assert component.on_activate(S.INACTIVE) == CallbackReturn.SUCCESS
    return component


def claim(component: MujocoSystem, *names: str) -> None:
    assert component.prepare_command_mode_switch(list(names), []) == ReturnType.OK
    assert component.perform_command_mode_switch(list(names), []) == ReturnType.OK


def run(component: MujocoSystem, cycles: int, period: Any = PERIOD) -> None:
    """The manager's order: read, (update), write."""
    for _ in range(cycles):
        assert component.read(NOW, period) == ReturnType.OK
        assert component.write(NOW, period) == ReturnType.OK


def state(component: MujocoSystem, name: str) -> float:
    return component.state_interfaces[name].value


def refused(info: Any, caplog: pytest.LogCaptureFixture) -> str:
    """on_init must return ERROR; the error it logged."""
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger=mujoco_system.__name__):
        assert MujocoSystem().on_init(info) == CallbackReturn.ERROR
    return caplog.text


# --- stepping ----------------------------------------------------------------------------
def test_two_runs_of_the_same_commands_are_bit_identical():
    def one_run() -> list[float]:
        arm = start(arm_info())
        claim(arm, 'joint1/position', 'joint2/position')
        arm.set_command('joint1/position', 0.7)
        arm.set_command('joint2/position', -0.5)
        run(arm, 150)
        return [h.value for h in arm.state_interfaces.values()]

    first, second = one_run(), one_run()
    assert first == second  # exactly, not approximately
    assert first[0] != 0.0  # and the arm did move


def test_step_with_loop_runs_round_period_over_timestep_steps_per_read():
    arm = start(arm_info())
    assert arm.model.opt.timestep == 0.002
    run(arm, 7)  # 7 reads of 10 ms: 5 steps each
    assert arm.simulation_time_ns() == 70000000
    # 3 ms periods: 1.5 steps, rounded up to 2; the half step owed is taken back next time
    run(arm, 1, Duration(nanoseconds=3_000_000))
    assert arm.simulation_time_ns() == 74000000
    run(arm, 1, Duration(nanoseconds=3_000_000))
    assert arm.simulation_time_ns() == 76000000


def test_realtime_mode_follows_the_wall_clock_times_the_factor(monkeypatch):
    clock = {'ns': 1_000_000_000}
    monkeypatch.setattr(mujoco_system.time, 'monotonic_ns', lambda: clock['ns'])
    arm = start(arm_info(sim_mode='realtime', realtime_factor='2.0'))
    run(arm, 1, PERIOD)  # the first read only starts the wall clock
    for _ in range(4):
        clock['ns'] += 10_000_000  # 10 ms of wall time: 20 ms simulated
        run(arm, 1, Duration(nanoseconds=0))  # the period passed does not matter here
    assert arm.simulation_time_ns() == 80000000


# --- joints ------------------------------------------------------------------------------
def test_position_actuator_settles_on_its_command():
    arm = start(arm_info())
    claim(arm, 'joint1/position')
    arm.set_command('joint1/position', 0.8)
    run(arm, 300)  # 3 s: kp 20, critically damped
    assert state(arm, 'joint1/position') == pytest.approx(0.8, abs=1e-4)
    assert state(arm, 'joint1/velocity') == pytest.approx(0.0, abs=1e-3)
    act = arm.model.actuator('joint1_position')
    assert arm.model.actuator_biasprm[act.id][1] == -20.0  # really the MJCF position actuator
    assert arm.sim.data.ctrl[act.id] == 0.8


def test_position_command_on_a_motor_runs_the_joints_servo_gains():
    arm = start(arm_info())
    claim(arm, 'joint2/position')
    arm.set_command('joint2/position', -0.5)
    run(arm, 300)
    assert state(arm, 'joint2/position') == pytest.approx(-0.5, abs=1e-3)
    assert state(arm, 'joint1/position') == pytest.approx(0.0, abs=1e-3)  # joint1 held


EFFORT_MJCF = """
<mujoco>
  <option timestep="0.002" gravity="0 0 0"/>
  <worldbody>
    <body name="a"><joint name="bare" type="hinge" axis="0 0 1"/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.3 0.3 0.5"/></body>
    <body name="b" pos="1 0 0"><joint name="geared" type="hinge" axis="0 0 1"/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.3 0.3 0.25"/></body>
    <body name="c" pos="2 0 0"><freejoint name="floating"/>
      <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body>
  </worldbody>
  <actuator><motor name="geared_motor" joint="geared" gear="2"/></actuator>
</mujoco>
"""


def small_robot(tmp_path: Path, joints: dict[str, str], hardware: str = '') -> Any:
    """HardwareInfo for EFFORT_MJCF: joint name -> its <ros2_control> body."""
    model = tmp_path / 'small.xml'
    model.write_text(EFFORT_MJCF)
    links = ''.join(f'<link name="l_{n}"/>' for n in joints)
    urdf_joints = ''.join(
        f'<joint name="{n}" type="continuous"><parent link="w"/><child link="l_{n}"/></joint>'
        for n in joints
    )
    tags = ''.join(f'<joint name="{n}">{body}</joint>' for n, body in joints.items())
    urdf = (
        f'<robot name="small"><link name="w"/>{links}{urdf_joints}'
        '<ros2_control name="Small" type="system"><hardware>'
        '<plugin>py_controllers/MujocoSystem</plugin>'
        f'<param name="mujoco_model">{model}</param>{hardware}</hardware>{tags}'
        '</ros2_control></robot>'
    )
    (info,) = parse_control_resources_from_urdf(urdf)
    return info


EFFORT_JOINT = (
    '<command_interface name="effort"/><state_interface name="position"/>'
    '<state_interface name="velocity"/><state_interface name="effort"/>'
    '<state_interface name="acceleration"/>'
)


def test_effort_command_accelerates_the_joint_by_tau_over_inertia(tmp_path):
    # bare: no actuator, the effort goes into qfrc_applied; geared: a motor of gear 2,
    # so ctrl = tau / 2. No gravity, damping or armature: a = tau / I, constant.
    sim = start(small_robot(tmp_path, {'bare': EFFORT_JOINT, 'geared': EFFORT_JOINT}))
    claim(sim, 'bare/effort', 'geared/effort')
    tau = 1.5
    sim.set_command('bare/effort', tau)
    sim.set_command('geared/effort', tau)
    sim.write(NOW, PERIOD)
    run(sim, 10)  # 0.1 s
    model = sim.model
    for name in ('bare', 'geared'):
        joint = model.joint(name)
        inertia = model.body_inertia[joint.bodyid[0]][2] + model.dof_armature[joint.dofadr[0]]
        accel = tau / inertia  # bare: 1.5 / 0.5 = 3; geared: 1.5 / 0.25 = 6
        assert state(sim, f'{name}/acceleration') == pytest.approx(accel, rel=1e-12)
        assert state(sim, f'{name}/velocity') == pytest.approx(accel * 0.1, rel=1e-9)
        assert state(sim, f'{name}/effort') == pytest.approx(tau, rel=1e-12)
    assert sim.sim.data.ctrl[model.actuator('geared_motor').id] == tau / 2


def test_velocity_command_without_an_actuator_runs_a_servo_on_qfrc_applied(tmp_path):
    # bare: I = 0.5, velocity.p = 5 (over the generic p = 1000): time constant 0.1 s
    joint = (
        '<param name="p">1000</param><param name="velocity.p">5</param>'
        '<command_interface name="velocity"/><state_interface name="velocity"/>'
        '<state_interface name="effort"/>'
    )
    sim = start(small_robot(tmp_path, {'bare': joint}))
    claim(sim, 'bare/velocity')
    sim.set_command('bare/velocity', 1.0)
    sim.write(NOW, PERIOD)
    run(sim, 10)  # 0.1 s, one time constant: v = 1 - e^-1 (up to the Euler steps)
    assert state(sim, 'bare/velocity') == pytest.approx(1.0 - math.exp(-1.0), rel=0.01)
    run(sim, 190)
    assert state(sim, 'bare/velocity') == pytest.approx(1.0, abs=1e-6)
    assert sim.sim.data.qfrc_applied[sim.model.joint('bare').dofadr[0]] == pytest.approx(
        0.0, abs=1e-5
    )


# --- sensors -----------------------------------------------------------------------------
def test_imu_at_rest_reads_gravity_and_the_identity_quaternion():
    arm = start(arm_info())
    run(arm, 20)
    imu = {k.split('/')[1]: h.value for k, h in arm.state_interfaces.items() if k[:4] == 'imu/'}
    assert (imu['orientation.x'], imu['orientation.y'], imu['orientation.z']) == (0.0, 0.0, 0.0)
    assert imu['orientation.w'] == 1.0
    assert imu['linear_acceleration.z'] == pytest.approx(9.81, rel=1e-9)
    for axis in 'xyz':
        assert imu[f'angular_velocity.{axis}'] == pytest.approx(0.0, abs=1e-9)
    for axis in 'xy':
        assert imu[f'linear_acceleration.{axis}'] == pytest.approx(0.0, abs=1e-9)


def test_force_torque_sensor_reads_the_tools_weight_with_upstreams_sign():
    # The tool (0.25 kg) hangs under the wrist site: the sensor reports the load it
    # carries, force.z = -m g, like upstream mujoco_ros2_control (MuJoCo gives +m g).
    arm = start(arm_info())
    run(arm, 20)
    assert state(arm, 'wrist_ft/force.z') == pytest.approx(-0.25 * 9.81, rel=1e-6)
    assert state(arm, 'wrist_ft/torque.z') == pytest.approx(0.0, abs=1e-6)


PUSH_GPIO = """
    <gpio name="push">
      <param name="body">tool</param>
      <command_interface name="force.z"/>
      <state_interface name="force.z"/>
    </gpio>
  </ros2_control>"""


def pushed_arm_info(gpio: str = PUSH_GPIO) -> Any:
    text = ARM_URDF.read_text().replace('</ros2_control>', gpio, 1)
    (info,) = parse_control_resources_from_urdf(text)
    return info


def test_a_push_gpio_applies_its_force_to_the_body_while_active():
    # 10 N down on the tool: the wrist sensor carries weight and push, -(m g + 10) N;
    # after deactivation the push is gone again
    arm = start(pushed_arm_info())
    arm.set_command('push/force.z', -10.0)
    run(arm, 20)
    assert state(arm, 'push/force.z') == -10.0
    assert state(arm, 'wrist_ft/force.z') == pytest.approx(-(0.25 * 9.81 + 10.0), rel=1e-6)
    assert arm.on_deactivate(S.ACTIVE) == CallbackReturn.SUCCESS
    run(arm, 20)
    assert state(arm, 'wrist_ft/force.z') == pytest.approx(-0.25 * 9.81, rel=1e-6)


def test_a_push_gpio_on_an_unknown_body_or_axis_fails_on_init(caplog):
    text = refused(pushed_arm_info(PUSH_GPIO.replace('>tool<', '>hand<')), caplog)
    assert "no body 'hand'" in text and 'tool' in text
    text = refused(pushed_arm_info(PUSH_GPIO.replace('force.z', 'speed')), caplog)
    assert "['speed']" in text and 'not a wrench' in text


# --- command modes and holding --------------------------------------------------------------
def test_deactivation_puts_every_joint_back_on_its_hold():
    """joint1 (position actuator) holds where it is; joint2, pushed in effort, goes back to
    its position servo (its hold before any claim), aimed at where it was released."""
    arm = start(arm_info())
    claim(arm, 'joint1/position', 'joint2/effort')
    arm.set_command('joint1/position', 1.0)
    arm.set_command('joint2/effort', 0.05)
    run(arm, 12)  # joint1 on its way to 1.0, joint2 pushed
    assert 0.1 < state(arm, 'joint1/position') < 0.9
    assert state(arm, 'joint2/effort') == pytest.approx(0.05)
    assert arm.on_deactivate(S.ACTIVE) == CallbackReturn.SUCCESS
    held = state(arm, 'joint1/position')
    released = state(arm, 'joint2/position')  # swinging at about -7 rad/s
    run(arm, 5)  # write() of an inactive component takes no command
    run(arm, 300)
    assert state(arm, 'joint1/position') == pytest.approx(held, abs=0.02)
    assert state(arm, 'joint2/position') == pytest.approx(released, abs=1e-6)
    assert state(arm, 'joint2/effort') == pytest.approx(0.0, abs=1e-6)  # no load in the plane


def test_nan_command_holds_and_infinite_command_is_an_error():
    arm = start(arm_info())
    claim(arm, 'joint1/position')
    assert math.isnan(arm.get_command('joint1/position'))
    run(arm, 50)
    assert state(arm, 'joint1/position') == pytest.approx(0.0, abs=1e-9)
    arm.set_command('joint1/position', math.inf)
    assert arm.write(NOW, PERIOD) == ReturnType.ERROR


def test_two_command_kinds_on_one_joint_are_refused():
    arm = start(arm_info())
    assert arm.prepare_command_mode_switch(['joint2/effort', 'joint2/position'], []) == (
        ReturnType.ERROR
    )
    claim(arm, 'joint2/effort')
    assert arm.prepare_command_mode_switch(['joint2/position'], []) == ReturnType.ERROR
    assert arm.prepare_command_mode_switch(['joint2/position'], ['joint2/effort']) == (
        ReturnType.OK
    )


# --- descriptions that do not fit the model -----------------------------------------------
def test_unknown_joint_fails_on_init_naming_it(caplog):
    info = arm_info()
    info.joints[0].name = 'elbow'
    text = refused(info, caplog)
    assert "joint 'elbow' is not in the MuJoCo model" in text
    assert 'joint1, joint2' in text  # what the model has


def test_position_command_on_a_motor_without_gains_fails_on_init(caplog):
    info = arm_info()
    info.joints[1].parameters = {}  # joint2: motor only, no p/d
    text = refused(info, caplog)
    assert "joint 'joint2'" in text
    assert "'position' command needs a position actuator" in text
    assert 'motor' in text


def test_velocity_command_on_a_position_actuator_fails_on_init(caplog):
    info = arm_info()
    info.joints[0].command_interfaces[0].name = 'velocity'
    info.joints[0].parameters = {'p': '5.0'}  # gains do not help: no servo output for it
    text = refused(info, caplog)
    assert "joint 'joint1'" in text
    assert 'its position actuator' in text


def test_free_joint_fails_on_init(tmp_path, caplog):
    info = small_robot(tmp_path, {'floating': EFFORT_JOINT})
    text = refused(info, caplog)
    assert "joint 'floating' is a free joint" in text


def test_missing_mjcf_sensor_fails_on_init_naming_it(caplog):
    info = arm_info()
    info.sensors[1].parameters['mujoco_sensor_name'] = 'ankle_ft'
    text = refused(info, caplog)
    assert "sensor 'wrist_ft'" in text
    assert "no sensor 'ankle_ft_force'" in text


def test_missing_model_file_fails_on_init(caplog):
    text = refused(arm_info(mujoco_model='no/such/model.xml'), caplog)
    assert 'no/such/model.xml' in text


# --- viewer ------------------------------------------------------------------------------
def test_viewer_without_a_display_warns_and_runs_headless(monkeypatch, caplog):
    monkeypatch.delenv('DISPLAY', raising=False)
    monkeypatch.delenv('WAYLAND_DISPLAY', raising=False)
    with caplog.at_level(logging.WARNING, logger=mujoco_system.__name__):
        arm = start(arm_info(viewer='true'))
    assert 'no display' in caplog.text
    assert arm.viewer is None
    run(arm, 1)


def test_viewer_with_an_unusable_display_warns_and_runs_headless(monkeypatch, caplog):
    # MuJoCo's viewer would end the process here: GLFW is tried first
    monkeypatch.setenv('DISPLAY', ':54321')  # no such X server
    with caplog.at_level(logging.WARNING, logger=mujoco_system.__name__):
        arm = start(arm_info(viewer='true'))
    assert "GLFW cannot open display ':54321'" in caplog.text
    assert arm.viewer is None
    run(arm, 1)


def test_a_urdf_mujoco_compiles_serves_as_the_model(tmp_path, monkeypatch):
    inertia = '<inertia ixx="0.1" iyy="0.1" izz="0.2" ixy="0" ixz="0" iyz="0"/>'
    urdf = (
        f'<robot name="u"><link name="base"><inertial><mass value="1"/>{inertia}</inertial></link>'
        f'<link name="arm"><inertial><mass value="1"/>{inertia}</inertial></link>'
        '<joint name="j" type="continuous"><parent link="base"/><child link="arm"/>'
        '<axis xyz="0 0 1"/></joint>'
        '<ros2_control name="U" type="system"><hardware>'
        '<plugin>py_controllers/MujocoSystem</plugin>'
        '<param name="mujoco_model">robot.urdf</param></hardware>'
        '<joint name="j"><command_interface name="effort"/><state_interface name="velocity"/>'
        '</joint></ros2_control></robot>'
    )
    (tmp_path / 'robot.urdf').write_text(urdf)
    monkeypatch.chdir(tmp_path)  # mujoco_model is relative to the current directory
    (info,) = parse_control_resources_from_urdf(urdf)
    sim = start(info)
    claim(sim, 'j/effort')
    sim.set_command('j/effort', 0.4)
    sim.write(NOW, PERIOD)
    run(sim, 10)
    # about the vertical axis gravity does not load the joint: a = 0.4 / 0.2 = 2
    assert state(sim, 'j/velocity') == pytest.approx(2.0 * 0.1, rel=1e-9)
