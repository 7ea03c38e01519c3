"""Physics through MujocoSystem that can be checked by hand, without ROS.

A pendulum (config/mujoco/pendulum.xml: 1 kg at l = 1 m, frictionless) swings with the
period of the textbook and holds against gravity under MujocoSystem's own position servo
with the error its gains predict; the 6-axis arm (config/mujoco/arm6.xml) matches its URDF
and its wrist sensor weighs the gripper. The component is driven as the resource manager
does (on_init, export, configure, activate, read/write); the same physics under real
controllers are in test/ros/test_mujoco_physics_controlled.py.
"""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import mujoco
import pytest
from rclpy.duration import Duration
from rclpy.time import Time

from py_controllers.hardware.mujoco_system import MujocoSystem
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.types import CallbackReturn, LifecycleStateId, ReturnType

MUJOCO = Path(__file__).resolve().parents[2] / 'config' / 'mujoco'
G = 9.81  # m/s^2, the models' gravity
MASS, LENGTH = 1.0, 1.0  # the pendulum's bob, kg, and rod, m
NOW = Time(nanoseconds=0)
S = LifecycleStateId


def pendulum_urdf(joint_body: str) -> str:
    """config/mujoco/pendulum.xml under MujocoSystem; `joint_body`: the `<joint>`'s content."""
    return (
        '<robot name="pendulum"><link name="world"/><link name="pendulum"/>'
        '<joint name="swing" type="revolute"><parent link="world"/><child link="pendulum"/>'
        '<origin xyz="0 0 1.5"/><axis xyz="0 1 0"/>'
        '<limit lower="-3.1" upper="3.1" velocity="10" effort="50"/></joint>'
        '<ros2_control name="Pendulum" type="system"><hardware>'
        '<plugin>py_controllers/MujocoSystem</plugin>'
        f'<param name="mujoco_model">{MUJOCO / "pendulum.xml"}</param></hardware>'
        f'<joint name="swing">{joint_body}</joint></ros2_control></robot>'
    )


def start(urdf: str) -> MujocoSystem:
    """The component of `urdf`, initialized, exported, configured and active."""
    (info,) = parse_control_resources_from_urdf(urdf)
    component = MujocoSystem()
    assert component.on_init(info) == CallbackReturn.SUCCESS
    component.state_interfaces = {h.name: h for h in component.export_state_interfaces()}
    component.command_interfaces = {h.name: h for h in component.export_command_interfaces()}
    assert component.on_configure(S.UNCONFIGURED) == CallbackReturn.SUCCESS
    assert component.on_activate(S.INACTIVE) == CallbackReturn.SUCCESS
    return component


def run(component: MujocoSystem, seconds: float, period_ns: int, record: str = '') -> list:
    """read/write for `seconds` of simulated time; with `record`, (sim time s, value) pairs."""
    period = Duration(nanoseconds=period_ns)
    trace = []
    for _ in range(round(seconds * 1e9 / period_ns)):
        assert component.read(NOW, period) == ReturnType.OK
        if record:
            value = component.state_interfaces[record].value
            trace.append((component.simulation_time_ns() * 1e-9, value))
        assert component.write(NOW, period) == ReturnType.OK
    return trace


def upward_zero_crossings(trace: list[tuple[float, float]]) -> list[float]:
    """Times at which the value crosses 0 going up, interpolated linearly between samples."""
    times = []
    for (t0, q0), (t1, q1) in itertools.pairwise(trace):
        if q0 < 0.0 <= q1:
            times.append(t0 + (t1 - t0) * (-q0) / (q1 - q0))
    return times


def test_pendulum_small_oscillation_period_is_two_pi_root_l_over_g():
    # released at rest from 0.05 rad; nothing commands the joint (its effort holds at 0)
    pendulum = start(
        pendulum_urdf(
            '<command_interface name="effort"/>'
            '<state_interface name="position"><param name="initial_value">0.05</param>'
            '</state_interface><state_interface name="velocity"/>'
        )
    )
    trace = run(pendulum, 10.0, 1_000_000, record='swing/position')  # 1 step per read
    crossings = upward_zero_crossings(trace)
    assert len(crossings) == 5  # the first a quarter period in, then one per period
    measured = (crossings[-1] - crossings[0]) / (len(crossings) - 1)
    expected = 2.0 * math.pi * math.sqrt(LENGTH / G)  # 2.00606 s
    # worked: 0.05 rad adds theta0^2 / 16 = 1.6e-4 to the period; the bob's own inertia 1e-6
    assert measured == pytest.approx(expected, rel=0.01)
    assert measured == pytest.approx(expected * (1.0 + 0.05**2 / 16.0), rel=1e-4)
    assert max(q for _, q in trace) == pytest.approx(0.05, rel=1e-3)  # no energy lost


def holding_error(p: float, target: float) -> float:
    """The error e at which p e = m g l sin(target - e): a P servo's steady state."""
    e = 0.0
    for _ in range(100):  # a contraction for m g l / p < 1: converges to machine precision
        e = MASS * G * LENGTH * math.sin(target - e) / p
    return e


def test_position_servo_holds_against_gravity_with_the_error_its_p_gain_predicts():
    # MujocoSystem's servo on the motor, P and D (no I): out = p (q* - q) - d dq/dt. At
    # rest p e = m g l sin(q* - e); with the rod horizontal, e ~ m g l / p = 9.81 / 100
    p, d, target = 100.0, 10.0, math.pi / 2
    pendulum = start(
        pendulum_urdf(
            f'<param name="p">{p}</param><param name="d">{d}</param>'
            '<command_interface name="position"/>'
            '<state_interface name="position"/><state_interface name="velocity"/>'
            '<state_interface name="effort"/>'
        )
    )
    assert pendulum.prepare_command_mode_switch(['swing/position'], []) == ReturnType.OK
    assert pendulum.perform_command_mode_switch(['swing/position'], []) == ReturnType.OK
    pendulum.set_command('swing/position', target)
    run(pendulum, 8.0, 10_000_000)  # zeta = d / (2 sqrt(p I)) = 0.5: settled long before
    error = target - pendulum.state_interfaces['swing/position'].value
    assert error == pytest.approx(MASS * G * LENGTH / p, rel=0.01)  # 0.0981 rad, first order
    assert error == pytest.approx(holding_error(p, target), abs=1e-9)  # 0.09763 rad, exactly
    # the motor carries the bob's weight at its (slightly lowered) angle
    weight_torque = MASS * G * LENGTH * math.sin(target - error)
    assert pendulum.state_interfaces['swing/effort'].value == pytest.approx(weight_torque, rel=1e-6)


# --- hold on release: the servo takes over bumplessly ----------------------------------------
HANDOVER_Q = 0.5  # rad out from hanging: the motor carries m g l sin(0.5) = 4.703 Nm


def pendulum_in_effort(i_clamp: float) -> MujocoSystem:
    """The pendulum at 0.5 rad, its effort claimed and set to the exact holding torque;
    its hold (before any claim and after) is the position servo p 100, i 200, d 10."""
    pendulum = start(
        pendulum_urdf(
            '<param name="p">100</param><param name="i">200</param><param name="d">10</param>'
            f'<param name="i_clamp">{i_clamp}</param>'
            '<command_interface name="effort"/><command_interface name="position"/>'
            f'<state_interface name="position"><param name="initial_value">{HANDOVER_Q}'
            '</param></state_interface><state_interface name="velocity"/>'
            '<state_interface name="effort"/>'
        )
    )
    assert pendulum.perform_command_mode_switch(['swing/effort'], []) == ReturnType.OK
    pendulum.set_command('swing/effort', MASS * G * LENGTH * math.sin(HANDOVER_Q))
    assert pendulum.write(NOW, Duration(nanoseconds=1_000_000)) == ReturnType.OK  # as update
    run(pendulum, 0.5, 1_000_000)
    assert pendulum.state_interfaces['swing/position'].value == pytest.approx(HANDOVER_Q, abs=1e-9)
    return pendulum


def release(pendulum: MujocoSystem, how: str) -> None:
    if how == 'switch':  # the controller's claim ends (deactivate, unspawn, error, ...)
        assert pendulum.perform_command_mode_switch([], ['swing/effort']) == ReturnType.OK
    else:  # the component itself is deactivated
        assert pendulum.on_deactivate(S.ACTIVE) == CallbackReturn.SUCCESS


@pytest.mark.parametrize('how', ['switch', 'deactivate'])
def test_released_joint_goes_back_to_its_servo_without_a_jump(how):
    # at the hand-over e = 0 and v = 0, so the servo's first output is i * integral: the
    # integral starts at 4.703 / 200 = 0.0235 rad s (inside i_clamp 0.1), its output at
    # the 4.703 Nm the motor was applying; a fresh integral would drop it to 0 and the bob
    # would fall until p e + i integral caught up
    torque = MASS * G * LENGTH * math.sin(HANDOVER_Q)
    pendulum = pendulum_in_effort(i_clamp=0.1)
    release(pendulum, how)
    run(pendulum, 0.001, 1_000_000)  # one physics step under the servo
    assert pendulum.sim.data.ctrl[0] == pytest.approx(torque, abs=1e-9)  # 4.7031 Nm
    assert pendulum.state_interfaces['swing/effort'].value == pytest.approx(torque, abs=1e-9)
    run(pendulum, 3.0, 10_000_000)
    assert pendulum.state_interfaces['swing/position'].value == pytest.approx(HANDOVER_Q, abs=1e-9)


def test_the_carried_output_stops_at_the_servos_integral_limit():
    # i_clamp 0.01 rad s: the integral carries at most i * i_clamp = 2 Nm of the 4.703
    pendulum = pendulum_in_effort(i_clamp=0.01)
    release(pendulum, 'switch')
    run(pendulum, 0.001, 1_000_000)
    assert pendulum.sim.data.ctrl[0] == pytest.approx(200 * 0.01, abs=1e-9)


# --- arm6: the model and its URDF ------------------------------------------------------------
ARM_XML, ARM_URDF = MUJOCO / 'arm6.xml', MUJOCO / 'arm6.urdf'
ARM_JOINTS = [f'joint{i}' for i in range(1, 7)]


def test_arm6_urdf_matches_its_mujoco_model():
    model = mujoco.MjModel.from_xml_path(str(ARM_XML))
    robot = ET.parse(ARM_URDF).getroot()
    joints = {j.get('name'): j for j in robot.findall('joint')}
    links = {link.get('name'): link for link in robot.findall('link')}
    for name in ARM_JOINTS:
        urdf_joint, mj_joint = joints[name], model.joint(name)
        limit = urdf_joint.find('limit')
        lower, upper = model.jnt_range[mj_joint.id]
        assert (float(limit.get('lower')), float(limit.get('upper'))) == (lower, upper), name
        motor = model.actuator(f'{name}_motor')
        assert float(limit.get('effort')) == model.actuator_forcerange[motor.id][1], name
        assert float(limit.get('effort')) == model.actuator_ctrlrange[motor.id][1], name
        damping = float(urdf_joint.find('dynamics').get('damping'))
        assert damping == model.dof_damping[mj_joint.dofadr[0]], name
        axis = [float(x) for x in urdf_joint.find('axis').get('xyz').split()]
        assert axis == list(model.jnt_axis[mj_joint.id]), name
        # the joint's origin is where MuJoCo puts its child body
        body = model.body(urdf_joint.find('child').get('link'))
        origin = [float(x) for x in urdf_joint.find('origin').get('xyz').split()]
        assert origin == pytest.approx(list(model.body_pos[body.id]), abs=1e-12), name
        mass = float(links[body.name].find('inertial/mass').get('value'))
        assert mass == pytest.approx(model.body_mass[body.id]), name
    assert float(links['tool0'].find('inertial/mass').get('value')) == model.body('tool').mass[0]
    total = sum(model.body_mass[model.body(n).id] for n in ('link1', 'link2', 'link3'))
    assert 20.0 < total + model.body('link4').mass[0] < 40.0  # an arm of the 10 kg class


def arm_held_at_home() -> MujocoSystem:
    """arm6 on MujocoSystem with nothing claimed: its position servo holds the home pose."""
    arm = start(ARM_URDF.read_text())
    run(arm, 2.0, 10_000_000)
    return arm


def test_arm6_servo_holds_home_against_gravity_and_the_wrist_weighs_the_gripper():
    arm = arm_held_at_home()
    home = {'joint2': -0.3, 'joint3': 1.4, 'joint5': 0.5}
    for name in ARM_JOINTS:
        position = arm.state_interfaces[f'{name}/position'].value
        assert position == pytest.approx(home.get(name, 0.0), abs=1e-5), name
    # the motors carry gravity: the effort state equals MuJoCo's gravity torque at the pose
    data = arm.sim.data
    for name in ('joint2', 'joint3', 'joint5'):
        dof = arm.model.joint(name).dofadr[0]
        gravity = data.qfrc_bias[dof]
        assert abs(gravity) > 1.0, name  # loaded: 11, 38 and 2.8 Nm
        assert arm.state_interfaces[f'{name}/effort'].value == pytest.approx(gravity, rel=1e-4)
    force = [arm.state_interfaces[f'wrist_ft/force.{a}'].value for a in 'xyz']
    assert math.hypot(*force) == pytest.approx(1.0 * G, rel=1e-4)  # the 1 kg gripper


def test_claiming_the_servos_position_command_keeps_the_arm_where_its_hold_had_it():
    # the other direction of the hand-over: a position controller claims the joints the
    # servo holds; the servo's integral carries the gravity load on (a fresh one let the
    # shoulder and elbow sag by about 10 mrad before it had grown again)
    arm = arm_held_at_home()
    names = [f'{name}/position' for name in ARM_JOINTS]
    before = [arm.state_interfaces[n].value for n in names]
    assert arm.perform_command_mode_switch(names, []) == ReturnType.OK  # NaN: hold
    moved = [0.0] * len(names)
    for _ in range(300):  # 3 s, the largest excursion of each joint
        run(arm, 0.01, 10_000_000)
        now = [arm.state_interfaces[n].value for n in names]
        moved = [max(m, abs(q - q0)) for m, q, q0 in zip(moved, now, before)]
    assert max(moved) < 1e-6, moved  # 10.8 mrad at the elbow with a fresh integral
