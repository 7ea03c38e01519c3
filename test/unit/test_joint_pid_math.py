"""Worked numbers for the ROS-free parts of the PID family.

Covers control_toolbox.pid_parameters (parameter group -> Gains), the joint PID cores of the
ROS 1 style controllers (limits, angle wrapping, velocity feed-forward) and pid_controller's
per-dof core (feed-forward, wrap-around, derivative from two interfaces).
"""

import math
import sys
from types import SimpleNamespace

import pytest

from py_controllers.control_toolbox.pid import Gains
from py_controllers.control_toolbox.pid_parameters import antiwindup_flag, gains_from_parameters
from py_controllers.controllers.joint_pid.joint_math import (
    JointModel,
    PositionPid,
    VelocityPid,
    clamp_position,
    position_error,
)
from py_controllers.controllers.pid_controller.dof_pid import DofPid
from py_controllers.hardware_interface.urdf import parse_urdf_joints

PI = math.pi
TOL = 1e-12


def approx(value, tol=TOL):
    return pytest.approx(value, abs=tol, rel=tol)


REVOLUTE = JointModel('r', 'revolute', -2.0, 2.0)
WIDE_REVOLUTE = JointModel('w', 'revolute', -4.0, 4.0)
CONTINUOUS = JointModel('c', 'continuous')
PRISMATIC = JointModel('p', 'prismatic', 0.0, 0.5)


# --- gains from parameters ------------------------------------------------------------


def test_defaults_give_an_unbounded_pid():
    gains = gains_from_parameters({})
    assert (gains.p, gains.i, gains.d) == (0.0, 0.0, 0.0)
    assert (gains.u_min, gains.u_max) == (-math.inf, math.inf)
    strategy = gains.antiwindup_strategy
    assert (strategy.i_min, strategy.i_max) == (-math.inf, math.inf)
    assert strategy.type == 'none'
    assert strategy.error_deadband == sys.float_info.epsilon


def test_ros1_symmetric_i_clamp():
    # i_clamp: -3 -> integral bounds (-3, 3), like ROS 1's abs().
    gains = gains_from_parameters({'p': 1.0, 'i': 0.5, 'd': 0.1, 'i_clamp': -3.0})
    assert (gains.p, gains.i, gains.d) == (1.0, 0.5, 0.1)
    assert gains.antiwindup_strategy.i_max == 3.0
    assert gains.antiwindup_strategy.i_min == -3.0


def test_finite_i_clamp_max_min_override_i_clamp():
    gains = gains_from_parameters({'i_clamp': 3.0, 'i_clamp_max': 5.0})
    assert (gains.antiwindup_strategy.i_min, gains.antiwindup_strategy.i_max) == (-3.0, 5.0)
    gains = gains_from_parameters(SimpleNamespace(i_clamp=math.nan, i_clamp_min=-1.0))
    assert (gains.antiwindup_strategy.i_min, gains.antiwindup_strategy.i_max) == (-1.0, math.inf)
    # jazzy JTC's default i_clamp is .inf: unbounded
    gains = gains_from_parameters({'i_clamp': math.inf})
    assert (gains.antiwindup_strategy.i_min, gains.antiwindup_strategy.i_max) == (
        -math.inf,
        math.inf,
    )


def test_output_clamps_strategy_and_jazzy_flag():
    group = SimpleNamespace(
        p=2.0,
        u_clamp_max=10.0,
        u_clamp_min=-5.0,
        antiwindup_strategy='back_calculation',
        tracking_time_constant=0.2,
        error_deadband=1e-6,
        antiwindup=True,
    )
    gains = gains_from_parameters(group)
    assert (gains.u_min, gains.u_max) == (-5.0, 10.0)
    strategy = gains.antiwindup_strategy
    assert strategy.type == 'back_calculation'
    assert strategy.tracking_time_constant == 0.2
    assert strategy.error_deadband == 1e-6
    assert strategy.legacy_antiwindup is True
    assert antiwindup_flag(gains) is True


def test_saturation_false_drops_output_bounds():
    gains = gains_from_parameters({'u_clamp_max': 1.0, 'u_clamp_min': -1.0, 'saturation': False})
    assert (gains.u_min, gains.u_max) == (-math.inf, math.inf)


@pytest.mark.parametrize(
    ('group', 'named'),
    [
        ({'i_clamp_min': 1.0}, 'pid.i_clamp_min'),
        ({'i_clamp_max': -1.0}, 'pid.i_clamp_max'),
        ({'u_clamp_min': 1.0, 'u_clamp_max': 1.0}, 'pid.u_clamp_min'),
        ({'p': 'x'}, 'pid.p'),
        ({'antiwindup_strategy': 'bogus'}, 'pid.*'),
        ({'p': 1.0, 'i': -1.0, 'antiwindup_strategy': 'back_calculation'}, 'pid.*'),
    ],
)
def test_invalid_groups_raise_naming_the_parameter(group, named):
    with pytest.raises(ValueError, match=named.replace('.', r'\.').replace('*', r'\*')):
        gains_from_parameters(group, prefix='pid.')


def test_antiwindup_flag_per_strategy():
    assert antiwindup_flag(gains_from_parameters({})) is False
    assert antiwindup_flag(gains_from_parameters({'antiwindup_strategy': 'legacy'})) is False
    legacy_on = {'antiwindup_strategy': 'legacy', 'antiwindup': True}
    assert antiwindup_flag(gains_from_parameters(legacy_on)) is True
    conditional = {'antiwindup_strategy': 'conditional_integration'}
    assert antiwindup_flag(gains_from_parameters(conditional)) is True


# --- joint model, limits and errors ---------------------------------------------------


def test_joint_model_from_urdf_joint():
    limited = SimpleNamespace(type='revolute', limits=SimpleNamespace(lower=-1.0, upper=1.5))
    assert JointModel.from_urdf_joint('a', limited) == JointModel('a', 'revolute', -1.0, 1.5)
    flat = SimpleNamespace(type='prismatic', lower=0.0, upper=0.3)
    assert JointModel.from_urdf_joint('b', flat) == JointModel('b', 'prismatic', 0.0, 0.3)
    # a continuous joint has no position limits even if the URDF gives some
    wheel = SimpleNamespace(type='continuous', limits=SimpleNamespace(lower=-1.0, upper=1.0))
    model = JointModel.from_urdf_joint('c', wheel)
    assert (model.lower, model.upper, model.has_position_limits) == (-math.inf, math.inf, False)
    assert JointModel.from_urdf_joint('d', SimpleNamespace(type='revolute', limits=None)).upper == (
        math.inf
    )


def test_joint_model_from_parsed_urdf():
    urdf = """<robot name="r"><link name="a"/><link name="b"/><link name="c"/><link name="d"/>
      <joint name="arm" type="revolute"><parent link="a"/><child link="b"/>
        <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
      <joint name="wheel" type="continuous"><parent link="b"/><child link="c"/></joint>
      <joint name="slider" type="prismatic"><parent link="c"/><child link="d"/>
        <limit lower="0" upper="0.5" effort="1" velocity="1"/></joint></robot>"""
    joints = parse_urdf_joints(urdf)
    models = {n: JointModel.from_urdf_joint(n, j) for n, j in joints.items()}
    assert models['arm'] == JointModel('arm', 'revolute', -2.0, 2.0)
    assert models['wheel'] == JointModel('wheel', 'continuous')
    assert models['slider'] == JointModel('slider', 'prismatic', 0.0, 0.5)


def test_clamp_position_to_limits():
    assert clamp_position(REVOLUTE, 2.5) == 2.0
    assert clamp_position(REVOLUTE, -7.0) == -2.0
    assert clamp_position(REVOLUTE, 0.3) == 0.3
    assert clamp_position(PRISMATIC, 0.7) == 0.5
    assert clamp_position(PRISMATIC, -0.1) == 0.0
    assert clamp_position(CONTINUOUS, 10.0) == 10.0


def test_revolute_error_stays_inside_limits():
    # 1.5 -> -1.5 inside [-2, 2]: the way through pi (+3.283) would leave the limits.
    assert position_error(REVOLUTE, 1.5, -1.5) == approx(-3.0)
    # limits [-4, 4]: 3.0 -> -3.0 may go through pi, 2*pi - 6 = 0.2832 rad and still inside.
    assert position_error(WIDE_REVOLUTE, 3.0, -3.0) == approx(2 * PI - 6.0)
    # a multiple of 2*pi away lands on an equivalent angle: 3.5 -> 3.5 - 2*pi = -2.7832.
    assert position_error(WIDE_REVOLUTE, 3.5, 3.5 - 2 * PI) == approx(0.0)


def test_continuous_error_takes_the_short_way():
    assert position_error(CONTINUOUS, 3.0, -3.0) == approx(2 * PI - 6.0)  # +0.2832
    assert position_error(CONTINUOUS, -3.0, 3.0) == approx(6.0 - 2 * PI)  # -0.2832
    assert position_error(CONTINUOUS, 0.0, 7.0) == approx(7.0 - 2 * PI)  # +0.7168


def test_prismatic_error_is_the_difference():
    assert position_error(PRISMATIC, 0.1, 0.4) == approx(0.3)


# --- PositionPid / VelocityPid ----------------------------------------------------------


def test_position_pid_start_holds_clamped_current_position():
    core = PositionPid(REVOLUTE, Gains(p=2.0))
    assert core.start(2.4) == 2.0
    assert core.set_point == 2.0


def test_position_pid_backward_difference_without_velocity_command():
    core = PositionPid(PRISMATIC, Gains(p=1.0, d=0.5))
    core.start(0.0)
    # error 0.3; derivative (0.3 - 0) / 0.01 = 30 -> 0.3 + 0.5 * 30 = 15.3
    assert core.step(0.4, math.nan, 0.1, 0.0, 0.01) == approx(15.3)
    # same error again: derivative 0 -> 0.3
    assert core.step(0.4, math.nan, 0.1, 0.0, 0.01) == approx(0.3)
    assert core.error == approx(0.3)


def test_position_pid_velocity_command_is_the_derivative_error():
    core = PositionPid(PRISMATIC, Gains(p=1.0, d=0.5))
    core.start(0.0)
    # error 0.3; error_dot = 0.2 - 0.1 = 0.1 -> 0.3 + 0.05 = 0.35 (no derivative kick)
    assert core.step(0.4, 0.2, 0.1, 0.1, 0.01) == approx(0.35)


def test_position_pid_clamps_the_command_before_the_error():
    core = PositionPid(PRISMATIC, Gains(p=2.0))
    core.start(0.0)
    # command 0.9 is clamped to 0.5; error 0.5 - 0.2 = 0.3 -> 0.6
    assert core.step(0.9, math.nan, 0.2, 0.0, 0.01) == approx(0.6)
    assert core.set_point == 0.5


def test_position_pid_nan_measurement_leaves_the_pid_alone():
    core = PositionPid(PRISMATIC, Gains(p=1.0, i=1.0))
    core.start(0.0)
    assert math.isnan(core.step(0.4, math.nan, math.nan, 0.0, 0.01))
    assert core.pid.get_current_pid_errors() == (0.0, 0.0, 0.0)


def test_velocity_pid_error_and_integral():
    core = VelocityPid(Gains(p=3.0, i=1.0))
    assert core.start() == 0.0
    # error 0.8 -> 3 * 0.8 = 2.4 (the integral joins one step later: i_term = 0.08)
    assert core.step(1.0, 0.2, 0.1) == approx(2.4)
    # error 0.5 -> 1.5 + 0.08 = 1.58
    assert core.step(1.0, 0.5, 0.1) == approx(1.58)
    assert core.error == approx(0.5)


def _simulate_effort(core, joint_target, q0, steps, dt=0.01, inertia=0.1, damping=0.05):
    """Semi-implicit Euler of inertia * qdd = u - damping * qd; returns the positions."""
    q, qd = q0, 0.0
    core.start(q)
    trace = []
    for _ in range(steps):
        u = core.step(joint_target, math.nan, q, qd, dt)
        qd += dt * (u - damping * qd) / inertia
        q += dt * qd
        trace.append(q)
    return trace


def test_position_pid_on_effort_converges():
    core = PositionPid(REVOLUTE, Gains(p=20.0, d=2.0))
    trace = _simulate_effort(core, 1.0, 0.0, 400)
    assert trace[-1] == approx(1.0, 1e-3)


def test_continuous_joint_wraps_the_short_way_in_closed_loop():
    core = PositionPid(CONTINUOUS, Gains(p=20.0, d=2.0))
    trace = _simulate_effort(core, -3.0, 3.0, 400)
    # it moves up through pi (never below its start) and settles at -3.0 + 2*pi
    assert min(trace) >= 3.0 - 1e-9
    assert trace[-1] == approx(2 * PI - 3.0, 1e-3)


# --- pid_controller's per-dof core ----------------------------------------------------


def test_dof_pid_feedforward_on_the_reference_with_one_interface():
    dof = DofPid(Gains(p=1.0), feedforward_gain=0.5)
    # error 1 -> 1; ff 0.5 * 2 = 1 -> 2
    assert dof.step(2.0, math.nan, 1.0, math.nan, 0.01) == approx(2.0)
    assert dof.step(2.0, math.nan, 1.0, math.nan, 0.01, feedforward=False) == approx(1.0)


def test_dof_pid_two_interfaces_derivative_and_feedforward():
    dof = DofPid(Gains(p=1.0, d=2.0), feedforward_gain=0.5, two_interfaces=True)
    # error 1, error_dot 0.4 - 0.1 = 0.3 -> 1 + 0.6; ff 0.5 * 0.4 = 0.2 -> 1.8
    assert dof.step(2.0, 0.4, 1.0, 0.1, 0.01) == approx(1.8)


def test_dof_pid_two_interfaces_without_reference_derivative():
    dof = DofPid(Gains(p=1.0, d=0.01), feedforward_gain=0.5, two_interfaces=True)
    # no ff; backward difference (1 - 0) / 0.01 = 100 -> 1 + 0.01 * 100 = 2
    assert dof.step(2.0, math.nan, 1.0, 0.1, 0.01) == approx(2.0)


def test_dof_pid_angle_wraparound_and_missing_values():
    dof = DofPid(Gains(p=1.0), angle_wraparound=True)
    assert dof.error(-3.0, 3.0) == approx(2 * PI - 6.0)
    assert dof.step(-3.0, math.nan, 3.0, math.nan, 0.01) == approx(2 * PI - 6.0)
    assert math.isnan(dof.step(math.nan, math.nan, 3.0, math.nan, 0.01))
    assert math.isnan(dof.step(1.0, math.nan, math.inf, math.nan, 0.01))
