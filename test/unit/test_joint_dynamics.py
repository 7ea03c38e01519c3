"""Simulated joint and wheel dynamics: worked numbers for the fixed-step integrators."""

import math

import numpy as np
import pytest

from py_controllers.hardware.diffbot_dynamics import WheelDynamics, WheelParams
from py_controllers.hardware.joint_dynamics import (
    MODE_EFFORT,
    MODE_PASSIVE,
    MODE_POSITION,
    MODE_VELOCITY,
    JointDynamics,
    JointParams,
    first_order_gain,
    steps_for_period,
)

DT = 0.001
MS = 1_000_000  # ns


def one_joint(mode: int, command: float = 0.0, **params: float) -> JointDynamics:
    """A single joint with no damping unless asked, in `mode`, commanded `command`."""
    params.setdefault('damping', 0.0)
    dyn = JointDynamics([JointParams(**params)], sim_dt_s=DT)
    dyn.set_mode(0, mode)
    dyn.command[0] = command
    return dyn


# --- helpers -------------------------------------------------------------------------
def test_first_order_gain_is_exact_discretisation():
    # 1 - exp(-dt/T); T = 0 means "no lag".
    assert first_order_gain(0.001, 0.05) == pytest.approx(1.0 - math.exp(-0.02), rel=1e-15)
    assert first_order_gain(0.001, 0.0) == 1.0


def test_steps_for_period_carries_the_remainder():
    # 0.4 ms + 0.4 ms + 0.4 ms with a 1 ms step: 0, 0, then 1 step with 0.2 ms left over.
    assert steps_for_period(0, 400_000, MS) == (0, 400_000)
    assert steps_for_period(400_000, 400_000, MS) == (0, 800_000)
    assert steps_for_period(800_000, 400_000, MS) == (1, 200_000)
    assert steps_for_period(0, -5, MS) == (0, 0)  # a negative period is no time


def test_params_validation_names_the_parameter():
    with pytest.raises(ValueError, match=r"'j1'.*'inertia'"):
        JointParams(inertia=0.0).validate('j1')
    with pytest.raises(ValueError, match="'damping'"):
        JointParams(damping=-1.0).validate('j1')
    with pytest.raises(ValueError, match='lower position limit'):
        JointParams(lower=1.0, upper=0.0).validate('j1')
    with pytest.raises(ValueError, match='sim_dt'):
        JointDynamics([JointParams()], sim_dt_s=0.0)


# --- effort mode ---------------------------------------------------------------------
def test_effort_step_on_pure_inertia_follows_semi_implicit_euler():
    # I = 2, tau = 1 -> a = 0.5. Semi-implicit Euler after N steps:
    #   v_N = N a dt, x_N = a dt^2 N (N + 1) / 2
    # N = 500: v = 0.25, x = 0.5 * 1e-6 * 125250 = 0.062625
    # (the continuous 0.5 a t^2 = 0.0625 differs by 0.5 a N dt^2 = 0.000125).
    dyn = one_joint(MODE_EFFORT, 1.0, inertia=2.0)
    assert dyn.advance_ns(500 * MS) == 500
    assert dyn.velocity[0] == pytest.approx(0.25, rel=1e-12)
    assert dyn.position[0] == pytest.approx(0.062625, rel=1e-12)
    assert dyn.acceleration[0] == pytest.approx(0.5, rel=1e-9)
    assert dyn.effort[0] == 1.0


def test_damping_reaches_tau_over_b():
    # I = 1, b = 2, tau = 1: implicit update v' = (I v + dt tau) / (I + dt b), so
    # v_k = (tau / b) (1 - r^k), r = 1 / 1.002; v_1000 = 0.5 (1 - 1.002^-1000) = 0.432197068...
    dyn = one_joint(MODE_EFFORT, 1.0, inertia=1.0, damping=2.0)
    dyn.advance_ns(1000 * MS)
    assert dyn.velocity[0] == pytest.approx(0.43219706821018866, rel=1e-12)
    for _ in range(29):  # to 30 s (at most max_substeps = 1000 steps per call): r^30000 ~ 1e-26
        dyn.advance_ns(1000 * MS)
    assert dyn.velocity[0] == pytest.approx(0.5, rel=1e-12)


def test_coulomb_friction_holds_below_breakaway_exactly():
    # Fc = 2, tau = 1.9 < Fc from rest: no creep at all.
    dyn = one_joint(MODE_EFFORT, 1.9, inertia=1.0, friction=2.0)
    dyn.advance_ns(1000 * MS)
    assert dyn.position[0] == 0.0
    assert dyn.velocity[0] == 0.0
    assert dyn.effort[0] == 1.9


def test_coulomb_friction_above_breakaway_accelerates_with_the_excess():
    # tau = 2.5, Fc = 2, I = 1: a = 0.5, v after 1 s = 0.5.
    dyn = one_joint(MODE_EFFORT, 2.5, inertia=1.0, friction=2.0)
    dyn.advance_ns(1000 * MS)
    assert dyn.velocity[0] == pytest.approx(0.5, rel=1e-9)


def test_coulomb_friction_stops_a_coasting_joint_without_chatter():
    # v0 = 1, Fc = 2, I = 1: v_k = 1 - 0.002 k reaches 0 at k = 500 and stays 0.
    # Distance = dt * sum_{k=1}^{499} (1 - 0.002 k) = 0.001 * (499 - 249.5) = 0.2495.
    dyn = one_joint(MODE_PASSIVE, inertia=1.0, friction=2.0)
    dyn.reset([0.0], [1.0])
    dyn.advance_ns(250 * MS)
    assert dyn.velocity[0] == pytest.approx(0.5, rel=1e-9)
    dyn.advance_ns(350 * MS)
    assert dyn.velocity[0] == 0.0
    assert dyn.position[0] == pytest.approx(0.2495, rel=1e-9)
    held = dyn.position[0]
    dyn.advance_ns(100 * MS)
    assert dyn.position[0] == held


def test_gravity_load_is_minus_gravity_cos_q():
    # gravity = 3, I = 1, passive at q = 0: load -3, one step: v = -0.003, q = -3e-6.
    dyn = one_joint(MODE_PASSIVE, inertia=1.0, gravity=3.0)
    dyn.advance_ns(MS)
    assert dyn.velocity[0] == pytest.approx(-0.003, rel=1e-12)
    assert dyn.position[0] == pytest.approx(-3e-6, rel=1e-12)
    assert dyn.effort[0] == 0.0  # the motor does nothing
    # At q = pi the load pushes the other way: +3.
    dyn.reset([math.pi])
    dyn.advance_ns(MS)
    assert dyn.velocity[0] == pytest.approx(0.003, rel=1e-12)


def test_effort_and_velocity_limits_saturate():
    # max_effort 0.5: tau 2 -> 0.5, a = 0.5 / I = 0.25; after 1 s v = 0.25.
    dyn = one_joint(MODE_EFFORT, 2.0, inertia=2.0, max_effort=0.5)
    dyn.advance_ns(1000 * MS)
    assert dyn.effort[0] == 0.5
    assert dyn.velocity[0] == pytest.approx(0.25, rel=1e-9)
    # max_velocity 0.1: the same push tops out at 0.1 rad/s.
    dyn = one_joint(MODE_EFFORT, 2.0, inertia=2.0, max_velocity=0.1)
    dyn.advance_ns(1000 * MS)
    assert dyn.velocity[0] == 0.1


def test_hard_stops_clamp_position_and_kill_velocity_into_the_limit():
    dyn = one_joint(MODE_EFFORT, 1.0, inertia=1.0, lower=-0.2, upper=0.1)
    dyn.advance_ns(2000 * MS)  # x = t^2 / 2 reaches 0.1 at t ~ 0.45 s
    assert dyn.position[0] == 0.1
    assert dyn.velocity[0] == 0.0
    # Pulling back leaves the stop at once: one step of a = -1 -> v = -0.001, q = 0.1 - 1e-6.
    dyn.command[0] = -1.0
    dyn.advance_ns(MS)
    assert dyn.velocity[0] == pytest.approx(-0.001, rel=1e-12)
    assert dyn.position[0] == pytest.approx(0.1 - 1e-6, rel=1e-12)
    dyn.advance_ns(3000 * MS)
    assert dyn.position[0] == -0.2
    assert dyn.velocity[0] == 0.0


def test_reset_clips_into_the_limits():
    dyn = JointDynamics([JointParams(lower=-1.0, upper=1.0)], sim_dt_s=DT)
    dyn.reset([3.0])
    assert dyn.position[0] == 1.0


# --- servo modes ---------------------------------------------------------------------
def test_velocity_servo_is_a_first_order_lag():
    # T = 0.05, command 2: v_k = 2 (1 - exp(-k dt / T)); k = 50 -> 2 (1 - e^-1) = 1.26424...
    # x_k = dt * 2 * (k - r (1 - r^k) / (1 - r)), r = exp(-dt / T) -> 0.0374179576...
    # The effort reported is the inverse dynamics: I (v_k - v_{k-1}) / dt (no damping).
    dyn = one_joint(MODE_VELOCITY, 2.0, inertia=0.5, velocity_time_constant_s=0.05)
    dyn.advance_ns(49 * MS)
    v_before = dyn.velocity[0]
    dyn.advance_ns(MS)
    assert dyn.velocity[0] == pytest.approx(1.2642411176571153, rel=1e-12)
    assert dyn.position[0] == pytest.approx(0.03741795762149043, rel=1e-11)
    assert dyn.effort[0] == pytest.approx(0.5 * (dyn.velocity[0] - v_before) / DT, rel=1e-9)
    dyn.advance_ns(1000 * MS)  # 20 time constants
    assert dyn.velocity[0] == pytest.approx(2.0, rel=1e-8)


def test_velocity_servo_compensates_gravity_damping_and_friction_in_its_effort():
    # At steady state v = 1: effort = b v + Fc - gravity load = 0.5 * 1 + 0.2 + 3 cos(q).
    dyn = one_joint(
        MODE_VELOCITY,
        1.0,
        inertia=1.0,
        damping=0.5,
        friction=0.2,
        gravity=3.0,
        velocity_time_constant_s=0.0,
    )
    dyn.advance_ns(10 * MS)
    assert dyn.velocity[0] == 1.0
    expected = 0.5 + 0.2 + 3.0 * math.cos(dyn.position[0] - 0.001)  # load at step start
    assert dyn.effort[0] == pytest.approx(expected, rel=1e-6)


def test_effort_limited_velocity_servo_accelerates_at_the_limit():
    # Immediate servo wants 1 rad/s in one step (1000 N m); max_effort 1, I = 1 -> a = 1:
    # after 0.5 s, v = 0.5 and the reported effort is the limit.
    dyn = one_joint(MODE_VELOCITY, 1.0, inertia=1.0, max_effort=1.0, velocity_time_constant_s=0)
    dyn.advance_ns(500 * MS)
    assert dyn.velocity[0] == pytest.approx(0.5, rel=1e-9)
    assert dyn.effort[0] == 1.0
    dyn.advance_ns(600 * MS)
    assert dyn.velocity[0] == 1.0


def test_velocity_command_is_clamped_to_the_velocity_limit():
    dyn = one_joint(MODE_VELOCITY, 5.0, max_velocity=3.0, velocity_time_constant_s=0.0)
    dyn.advance_ns(MS)
    assert dyn.velocity[0] == 3.0


def test_position_servo_without_lag_sets_the_position():
    dyn = one_joint(MODE_POSITION, 0.3)
    dyn.advance_ns(MS)
    assert dyn.position[0] == pytest.approx(0.3, rel=1e-12)
    assert dyn.velocity[0] == pytest.approx(300.0, rel=1e-12)  # 0.3 rad in 1 ms


def test_position_servo_with_lag_is_first_order():
    # T = 0.1: q(0.1 s) = 0.3 (1 - e^-1) = 0.189636...
    dyn = one_joint(MODE_POSITION, 0.3, position_time_constant_s=0.1)
    dyn.advance_ns(100 * MS)
    assert dyn.position[0] == pytest.approx(0.1896361676485673, rel=1e-12)


def test_position_servo_clamps_the_target_into_the_limits():
    dyn = one_joint(MODE_POSITION, 5.0, lower=-1.0, upper=1.0)
    dyn.advance_ns(MS)
    assert dyn.position[0] == 1.0


def test_effort_limited_position_servo_brakes_onto_the_target():
    # I = 1, max_effort = 10: bang-bang from 0 to 1 takes 2 sqrt(1 / 10) = 0.632 s.
    dyn = one_joint(MODE_POSITION, 1.0, inertia=1.0, max_effort=10.0)
    peak = 0.0
    for _ in range(1000):
        dyn.advance_ns(MS)
        peak = max(peak, dyn.position[0])
    assert dyn.position[0] == pytest.approx(1.0, abs=1e-12)
    assert dyn.velocity[0] == pytest.approx(0.0, abs=1e-9)
    assert peak < 1.0 + 1e-5  # braking curve: no real overshoot


def test_passive_joint_ignores_its_command():
    dyn = one_joint(MODE_PASSIVE, 5.0)
    dyn.advance_ns(100 * MS)
    assert dyn.position[0] == 0.0
    assert dyn.effort[0] == 0.0


def test_unknown_mode_is_refused():
    dyn = one_joint(MODE_PASSIVE)
    with pytest.raises(ValueError):
        dyn.set_mode(0, 7)


# --- time stepping -------------------------------------------------------------------
def three_joints() -> JointDynamics:
    params = [
        JointParams(inertia=0.3, damping=0.1, friction=0.05, gravity=2.0),
        JointParams(inertia=0.2, velocity_time_constant_s=0.02, max_effort=3.0),
        JointParams(inertia=0.1, position_time_constant_s=0.05, lower=-1.0, upper=0.4),
    ]
    dyn = JointDynamics(params, sim_dt_s=DT)
    for i, (mode, command) in enumerate(
        ((MODE_EFFORT, 0.7), (MODE_VELOCITY, -1.5), (MODE_POSITION, 0.5))
    ):
        dyn.set_mode(i, mode)
        dyn.command[i] = command
    return dyn


def state(dyn: JointDynamics) -> np.ndarray:
    return np.concatenate([dyn.position, dyn.velocity, dyn.acceleration, dyn.effort])


@pytest.mark.parametrize(
    'periods_ns',
    [
        [250 * MS] * 4,  # multiples of sim_dt
        [10 * MS] * 100,
        [400_000, 1_300_000, 7 * MS, 291_300_000, 700 * MS],  # not multiples: carried
    ],
)
def test_same_total_time_gives_bit_identical_results(periods_ns):
    assert sum(periods_ns) == 1000 * MS
    reference = three_joints()
    for _ in range(1000):
        reference.advance_ns(MS)
    dyn = three_joints()
    assert sum(dyn.advance_ns(p) for p in periods_ns) == 1000
    assert np.array_equal(state(dyn), state(reference))


def test_max_substeps_drops_a_long_stall():
    dyn = JointDynamics([JointParams()], sim_dt_s=DT, max_substeps=100)
    assert dyn.advance_ns(10_000 * MS) == 100
    assert dyn.advance_ns(MS) == 1  # the lost time is not owed


# --- wheels --------------------------------------------------------------------------
def one_wheel(command: float, **params: float) -> WheelDynamics:
    wheels = WheelDynamics([WheelParams(**params)], sim_dt_s=DT)
    wheels.command[0] = command
    return wheels


def test_wheel_velocity_is_a_first_order_response():
    # T = 0.1, command 4: v(0.1 s) = 4 (1 - e^-1) = 2.52848...
    wheels = one_wheel(4.0, time_constant_s=0.1)
    assert wheels.advance_ns(100 * MS) == 100
    assert wheels.velocity[0] == pytest.approx(2.5284822353142307, rel=1e-12)


def test_wheel_acceleration_and_velocity_limits():
    # max_acceleration 2, no lag: v_k = 0.002 k -> 0.5 after 250 steps, 1 (the command) at 500.
    wheels = one_wheel(1.0, time_constant_s=0.0, max_acceleration=2.0)
    wheels.advance_ns(250 * MS)
    assert wheels.velocity[0] == pytest.approx(0.5, rel=1e-12)
    # position = dt * sum 0.002 k (k = 1..250) = 0.001 * 0.002 * 31375 = 0.06275
    assert wheels.position[0] == pytest.approx(0.06275, rel=1e-12)
    wheels.advance_ns(300 * MS)
    assert wheels.velocity[0] == pytest.approx(1.0, rel=1e-12)
    wheels = one_wheel(5.0, time_constant_s=0.0, max_velocity=3.0)
    wheels.advance_ns(MS)
    assert wheels.velocity[0] == 3.0


def test_encoder_reports_whole_ticks_rounded_down():
    # 100 ticks/rev: 0.1 rad = 1.59 ticks -> 1 tick = 0.0628318...; -0.1 rad -> -2 ticks.
    wheels = WheelDynamics([WheelParams(ticks_per_revolution=100), WheelParams()], sim_dt_s=DT)
    wheels.reset([0.1, 0.1])
    position, _ = wheels.measure()
    assert position[0] == pytest.approx(0.06283185307179587, rel=1e-15)
    assert position[1] == 0.1  # no encoder model on the second wheel
    wheels.reset([-0.1, 0.0])
    position, _ = wheels.measure()
    assert position[0] == pytest.approx(-0.12566370614359174, rel=1e-15)


def test_velocity_noise_is_reproducible_from_the_seed():
    def readings(seed: int) -> np.ndarray:
        wheels = WheelDynamics([WheelParams(velocity_noise_stddev=0.1)] * 2, seed=seed)
        wheels.command[:] = [1.0, 1.0]
        out = np.zeros((2000, 2))
        for k in range(2000):
            wheels.advance_ns(MS)
            out[k] = wheels.measure()[1]
        return out - np.array(wheels.velocity)  # noise only (the wheels are at 1 rad/s by then)

    first, again, other = readings(7), readings(7), readings(8)
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)
    tail = first[1000:]  # settled part: pure noise around the true velocity
    assert abs(tail.mean()) < 0.01
    assert tail.std() == pytest.approx(0.1, rel=0.05)


def test_no_noise_reports_the_true_velocity():
    wheels = one_wheel(1.0)
    wheels.advance_ns(20 * MS)
    position, velocity = wheels.measure()
    assert velocity[0] == wheels.velocity[0]
    assert position[0] == wheels.position[0]


def test_wheel_params_validation():
    with pytest.raises(ValueError, match='encoder_ticks_per_revolution'):
        WheelParams(ticks_per_revolution=-1).validate('left')
    with pytest.raises(ValueError, match='velocity_noise_stddev'):
        WheelParams(velocity_noise_stddev=-0.1).validate('left')
