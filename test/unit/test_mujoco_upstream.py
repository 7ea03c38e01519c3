"""Upstream MuJoCo robot descriptions on MujocoSystem, without ROS: plugin names, fixtures,
and every `<hardware>` parameter taking effect or refused in one line.

Fixtures: config/mujoco/upstream_arm.urdf (ros-controls' mujoco_ros2_control demo layout,
plugin mujoco_ros2_control/MujocoSystemInterface) and config/mujoco/moveit_cart.urdf
(moveit's effort cart, plugin mujoco_ros2_control/MujocoSystem).
"""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

import pytest
from rclpy.duration import Duration
from rclpy.time import Time

from py_controllers import plugins
from py_controllers.hardware import mujoco_system
from py_controllers.hardware.mujoco_system import MujocoSystem
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import CallbackReturn, LifecycleStateId, ReturnType

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM_ARM = ROOT / 'config' / 'mujoco' / 'upstream_arm.urdf'
MOVEIT_CART = ROOT / 'config' / 'mujoco' / 'moveit_cart.urdf'
NOW = Time(nanoseconds=0)
PERIOD = Duration(nanoseconds=10_000_000)  # 10 ms: 5 steps of 2 ms
S = LifecycleStateId


def info_of(urdf: Path, drop: tuple[str, ...] = (), **hardware_params: str) -> Any:
    (info,) = parse_control_resources_from_urdf(urdf.read_text())
    for name in drop:
        info.hardware_parameters.pop(name)
    info.hardware_parameters.update(hardware_params)
    return info


def start(info: Any) -> MujocoSystem:
    """Loaded by its plugin name, as the resource manager does; configured and active."""
    component = plugins.load(plugins.HARDWARE_GROUP, info.plugin, SystemInterface)()
    assert isinstance(component, MujocoSystem)
    assert component.on_init(info) == CallbackReturn.SUCCESS
    component.state_interfaces = {h.name: h for h in component.export_state_interfaces()}
    component.command_interfaces = {h.name: h for h in component.export_command_interfaces()}
    assert component.on_configure(S.UNCONFIGURED) == CallbackReturn.SUCCESS
    assert component.on_activate(S.INACTIVE) == CallbackReturn.SUCCESS
    return component


def claim(component: MujocoSystem, *names: str) -> None:
    assert component.prepare_command_mode_switch(list(names), []) == ReturnType.OK
    assert component.perform_command_mode_switch(list(names), []) == ReturnType.OK


def run(component: MujocoSystem, cycles: int, period: Any = PERIOD) -> None:
    for _ in range(cycles):
        assert component.read(NOW, period) == ReturnType.OK
        assert component.write(NOW, period) == ReturnType.OK


def state(component: MujocoSystem, name: str) -> float:
    return component.state_interfaces[name].value


def refused(info: Any, caplog: pytest.LogCaptureFixture) -> str:
    """on_init returns ERROR; the one line it logged."""
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger=mujoco_system.__name__):
        assert MujocoSystem().on_init(info) == CallbackReturn.ERROR
    (record,) = caplog.records
    assert '\n' not in record.getMessage()
    return record.getMessage()


# --- the two upstream fixtures, by their plugin names ---------------------------------------
def test_ros_controls_demo_layout_loads_as_MujocoSystemInterface_and_moves():
    arm = start(info_of(UPSTREAM_ARM))
    claim(arm, 'joint1/position', 'gripper_left_finger_joint/position')
    arm.set_command('joint1/position', 0.5)
    arm.set_command('gripper_left_finger_joint/position', 0.02)
    run(arm, 300)
    # a position actuator (kp 400) holding the arm against gravity: effort = kp (q* - q)
    effort = state(arm, 'joint1/effort')
    assert effort < -5.0  # gravity loads it
    assert state(arm, 'joint1/position') == pytest.approx(0.5 - effort / 400.0, abs=1e-6)
    assert state(arm, 'joint1/torque') == effort  # upstream's name of the same data
    # the tendon actuator named as the left finger drives it; the equality mirrors the right
    assert state(arm, 'gripper_left_finger_joint/position') == pytest.approx(0.02, abs=1e-4)
    assert state(arm, 'gripper_right_finger_joint/position') == pytest.approx(-0.02, abs=1e-4)
    assert state(arm, 'gripper_left_finger_joint/force') == state(
        arm, 'gripper_left_finger_joint/effort'
    )
    # the pose sensor (framepos + framequat of the base) and the magnetometer (field 0 -0.5 0)
    assert state(arm, 'pose/orientation.w') == 1.0
    assert state(arm, 'pose/position.x') == 0.0
    assert state(arm, 'magnetometer/magnetic_field.y') == pytest.approx(-0.5)


def test_moveit_effort_cart_loads_as_MujocoSystem_and_moves():
    cart = start(info_of(MOVEIT_CART))
    assert state(cart, 'slider_to_cart/position') == 1.0  # its initial_value
    claim(cart, 'slider_to_cart/effort')
    cart.set_command('slider_to_cart/effort', 2.0)
    cart.write(NOW, PERIOD)
    run(cart, 50)  # 0.5 s of 2 N on 1 kg
    assert state(cart, 'slider_to_cart/velocity') == pytest.approx(1.0, rel=1e-9)
    assert state(cart, 'slider_to_cart/position') == pytest.approx(1.0 + 0.25, abs=2e-3)
    # moveit's sensor naming: cart_imu reads cart_quat, cart_gyro, cart_accel
    assert state(cart, 'cart_imu/linear_acceleration.x') == pytest.approx(2.0, rel=1e-6)
    assert state(cart, 'cart_imu/linear_acceleration.z') == pytest.approx(9.81, rel=1e-6)


def test_moveits_sensor_naming_belongs_to_moveits_plugin_name(caplog):
    info = info_of(MOVEIT_CART)
    info.plugin = 'mujoco_ros2_control/MujocoSystemInterface'
    text = refused(info, caplog)
    assert "no sensor 'cart_imu_quat'" in text


def test_a_force_command_is_an_effort(tmp_path):
    info = info_of(MOVEIT_CART)
    (joint,) = info.joints
    joint.command_interfaces[0].name = 'force'
    cart = start(info)
    claim(cart, 'slider_to_cart/force')
    cart.set_command('slider_to_cart/force', -3.0)
    cart.write(NOW, PERIOD)
    run(cart, 10)
    assert state(cart, 'slider_to_cart/velocity') == pytest.approx(-3.0 * 0.1, rel=1e-9)


# --- the model path ---------------------------------------------------------------------------
def test_the_model_path_is_required_and_the_line_says_how_to_give_moveits(caplog):
    text = refused(info_of(MOVEIT_CART, drop=('mujoco_model_path',)), caplog)
    assert "'mujoco_model' (the MJCF file) is required" in text
    assert "<param name='mujoco_model_path'> in <hardware>" in text


def test_two_different_model_paths_are_refused(caplog):
    info = info_of(MOVEIT_CART, mujoco_model=str(ROOT / 'config/mujoco/two_link_arm.xml'))
    assert 'name different files' in refused(info, caplog)


# --- speed ------------------------------------------------------------------------------------
def test_sim_speed_factor_other_than_1_is_refused_in_step_with_loop(caplog):
    text = refused(info_of(UPSTREAM_ARM, sim_speed_factor='5.0'), caplog)
    assert "'sim_speed_factor' 5 needs sim_mode realtime" in text
    text = refused(info_of(UPSTREAM_ARM, drop=('sim_speed_factor',), realtime_factor='2'), caplog)
    assert "'realtime_factor' 2 needs sim_mode realtime" in text


def test_sim_speed_factor_sets_the_realtime_pace(monkeypatch):
    clock = {'ns': 1_000_000_000}
    monkeypatch.setattr(mujoco_system.time, 'monotonic_ns', lambda: clock['ns'])
    arm = start(info_of(UPSTREAM_ARM, sim_mode='realtime', sim_speed_factor='3.0'))
    run(arm, 1)  # starts the wall clock
    for _ in range(5):
        clock['ns'] += 10_000_000
        run(arm, 1)
    assert arm.simulation_time_ns() == 150_000_000  # 50 ms of wall time, 3x


def test_a_negative_sim_speed_factor_is_upstreams_unset(monkeypatch):
    clock = {'ns': 1_000_000_000}
    monkeypatch.setattr(mujoco_system.time, 'monotonic_ns', lambda: clock['ns'])
    arm = start(info_of(UPSTREAM_ARM, sim_mode='realtime', sim_speed_factor='-1'))
    run(arm, 1)
    clock['ns'] += 40_000_000
    run(arm, 1)
    assert arm.simulation_time_ns() == 40_000_000


def test_zero_or_two_different_speed_factors_are_refused(caplog):
    assert 'must be > 0' in refused(info_of(UPSTREAM_ARM, sim_speed_factor='0'), caplog)
    info = info_of(UPSTREAM_ARM, sim_mode='realtime', sim_speed_factor='2', realtime_factor='3')
    assert "'sim_speed_factor' and 'realtime_factor' differ" in refused(info, caplog)


def test_max_substeps_caps_the_steps_of_a_read():
    arm = start(info_of(UPSTREAM_ARM, max_substeps='3'))
    run(arm, 4)  # 10 ms periods want 5 steps of 2 ms: 3 taken
    assert arm.simulation_time_ns() == 4 * 6_000_000


# --- headless / viewer ------------------------------------------------------------------------
def test_headless_false_asks_for_the_viewer(monkeypatch, caplog):
    monkeypatch.delenv('DISPLAY', raising=False)
    monkeypatch.delenv('WAYLAND_DISPLAY', raising=False)
    with caplog.at_level(logging.WARNING, logger=mujoco_system.__name__):
        arm = start(info_of(UPSTREAM_ARM, headless='false'))
    assert arm.viewer_requested
    assert 'viewer requested but it cannot open (there is no display' in caplog.text
    assert not start(info_of(UPSTREAM_ARM)).viewer_requested  # the fixture's headless true


def test_viewer_and_headless_that_contradict_are_refused(caplog):
    text = refused(info_of(UPSTREAM_ARM, viewer='true'), caplog)  # with headless true
    assert "'viewer' and 'headless' contradict" in text


# --- the start state --------------------------------------------------------------------------
def drop_initial_values(info: Any) -> Any:
    for joint in info.joints:
        for itf in joint.state_interfaces:
            itf.initial_value = ''
    return info


def test_initial_keyframe_sets_the_start():
    arm = start(drop_initial_values(info_of(UPSTREAM_ARM, initial_keyframe='start_90')))
    assert state(arm, 'joint1/position') == pytest.approx(1.5708)


def test_an_initial_value_that_contradicts_the_keyframe_is_refused(caplog):
    text = refused(info_of(UPSTREAM_ARM, initial_keyframe='start_90'), caplog)
    assert "joint 'joint1': its initial_value 0 and initial_keyframe (1.5708)" in text
    text = refused(info_of(UPSTREAM_ARM, initial_keyframe='nope'), caplog)
    assert "no keyframe 'nope'" in text


START_KEY = '<key time="3.5" qpos="-0.25 0.75 0.01 -0.01" qvel="0.5 0 0 0" ctrl="-0.25 0.75 0.01"/>'


def test_override_start_position_file_sets_positions_and_velocities(tmp_path):
    (tmp_path / 'start.xml').write_text(START_KEY)
    info = drop_initial_values(
        info_of(UPSTREAM_ARM, override_start_position_file=str(tmp_path / 'start.xml'))
    )
    arm = start(info)
    assert state(arm, 'joint1/position') == -0.25
    assert state(arm, 'joint2/position') == 0.75
    assert state(arm, 'joint1/velocity') == 0.5
    assert state(arm, 'gripper_right_finger_joint/position') == -0.01


def test_override_start_position_file_is_checked(tmp_path, caplog):
    (tmp_path / 'short.xml').write_text(START_KEY.replace('0.5 0 0 0', '0.5 0'))
    info = drop_initial_values(
        info_of(UPSTREAM_ARM, override_start_position_file=str(tmp_path / 'short.xml'))
    )
    assert 'does not fit the model: qvel 2 (model: 4)' in refused(info, caplog)
    (tmp_path / 'start.xml').write_text(START_KEY)
    info = info_of(
        UPSTREAM_ARM,
        override_start_position_file=str(tmp_path / 'start.xml'),
        initial_keyframe='start_90',
    )
    assert 'both set the start state; give one' in refused(info, caplog)
    info = info_of(UPSTREAM_ARM, override_start_position_file=str(tmp_path / 'start.xml'))
    assert 'initial_value 0 and override_start_position_file (-0.25)' in refused(info, caplog)


# --- pids_config_file ---------------------------------------------------------------------------
PIDS = """
/**:
  ros__parameters:
    pid_gains:
      position:
        slider_to_cart:
          p: 100.0
          i: 0.0
          d: 20.0
          u_clamp_max: {u}
          u_clamp_min: -{u}
"""


def cart_with_pids(tmp_path: Path, text: str) -> Any:
    (tmp_path / 'pids.yaml').write_text(text)
    info = info_of(MOVEIT_CART, pids_config_file=str(tmp_path / 'pids.yaml'))
    info.joints[0].command_interfaces[0].name = 'position'
    return info


def test_pids_config_file_gains_servo_a_joint_without_actuator(tmp_path):
    cart = start(cart_with_pids(tmp_path, PIDS.format(u=1000.0)))
    claim(cart, 'slider_to_cart/position')
    cart.set_command('slider_to_cart/position', 1.5)
    run(cart, 300)  # p 100, d 20 on 1 kg: critically damped, settled in 3 s
    assert state(cart, 'slider_to_cart/position') == pytest.approx(1.5, abs=1e-3)


def test_pids_config_file_u_clamp_bounds_the_servo_output(tmp_path):
    cart = start(cart_with_pids(tmp_path, PIDS.format(u=5.0)))
    claim(cart, 'slider_to_cart/position')
    cart.set_command('slider_to_cart/position', 3.0)
    run(cart, 2)  # the command is taken by the first write
    assert state(cart, 'slider_to_cart/effort') == 5.0  # p * 2 m = 200 N, clamped


def test_pids_config_file_entries_that_cannot_take_effect_are_refused(tmp_path, caplog):
    text = PIDS.format(u=5.0).replace('slider_to_cart:', 'actuator1:')
    assert 'pid_gains.position.actuator1 names no joint' in refused(
        cart_with_pids(tmp_path, text), caplog
    )
    text = PIDS.format(u=5.0).replace('-5.0', '-4.0')
    assert 'u_clamp_min must be -u_clamp_max' in refused(cart_with_pids(tmp_path, text), caplog)
    text = PIDS.format(u=5.0).replace('d: 20.0', 'antiwindup: true')
    assert "['antiwindup'] not simulated" in refused(cart_with_pids(tmp_path, text), caplog)
    # control_toolbox bounds the integral term: i_clamp_max 2 at i 4 is an integral of 0.5
    text = PIDS.format(u=5.0).replace('i: 0.0', 'i: 4.0\n          i_clamp_max: 2.0')
    text = text.replace('u_clamp_max', 'i_clamp_min: -2.0\n          u_clamp_max')
    (tmp_path / 'pids.yaml').write_text(text)
    from py_controllers.hardware.mujoco_params import read_pid_gains

    gains = read_pid_gains(str(tmp_path / 'pids.yaml'), ['slider_to_cart'], 'hw')
    assert gains['slider_to_cart']['position.i_clamp'] == '0.5'


# --- refused upstream parameters ----------------------------------------------------------------
@pytest.mark.parametrize(
    ('name', 'why'),
    [
        ('mujoco_model_topic', 'reading the MJCF from a topic is not supported'),
        ('odom_free_joint_name', "publishing a free joint's odometry"),
        ('odom_topic', "publishing a free joint's odometry"),
        ('camera_publish_rate', 'is not a MujocoSystem parameter'),
    ],
)
def test_parameters_that_cannot_take_effect_are_refused(name, why, caplog):
    text = refused(info_of(UPSTREAM_ARM, **{name: 'x'}), caplog)
    assert f"parameter '{name}'" in text
    assert why in text


def test_the_model_path_may_be_an_xacro_find():
    arm = start(info_of(UPSTREAM_ARM))
    assert arm.model.nu == 3  # $(find py_controllers)/config/mujoco/upstream_arm.xml
    assert math.isclose(arm.model.opt.timestep, 0.002)


@pytest.mark.parametrize(
    ('interface', 'why'),
    [
        ('position_pid', "command interface 'position_pid' is not simulated"),
        ('position', "a 'position' command needs a position actuator in the model, or servo"),
    ],
)
def test_moveits_pid_interfaces_and_teleporting_commands_are_refused(interface, why, caplog):
    info = info_of(MOVEIT_CART)
    info.joints[0].command_interfaces[0].name = interface
    text = refused(info, caplog)
    assert text.startswith("joint 'slider_to_cart'")
    assert why in text


def test_a_sensor_without_type_or_interfaces_a_camera_is_refused(caplog):
    info = info_of(UPSTREAM_ARM)
    info.sensors[0].parameters.pop('mujoco_type')
    info.sensors[0].state_interfaces.clear()
    assert 'cameras and lidars are not simulated' in refused(info, caplog)
