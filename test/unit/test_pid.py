"""Worked examples for py_controllers.control_toolbox.pid (control_toolbox master semantics).

Reminder of the update order: cmd_unsat = p*e + i_term(previous) + d*ed; cmd = clamp(cmd_unsat);
then integrate (unless |e| <= deadband); then clamp i_term to [i_min, i_max].
"""

import math
import sys

import pytest

from py_controllers.control_toolbox.pid import (
    ANTIWINDUP_STRATEGY_TYPES,
    AntiWindupStrategy,
    Gains,
    Pid,
)

EPS = sys.float_info.epsilon
TOL = 1e-12


def approx(value):
    return pytest.approx(value, abs=TOL, rel=TOL)


def run(pid, errors, dt_s=1.0):
    return [pid.compute_command(e, dt_s) for e in errors]


def i_term(pid):
    return pid.get_current_pid_errors()[1]


# --- defaults -------------------------------------------------------------------------


def test_defaults_match_upstream():
    strategy = AntiWindupStrategy()
    assert strategy.type == 'none'
    assert strategy.i_max == math.inf
    assert strategy.i_min == -math.inf
    assert strategy.tracking_time_constant == 0.0
    assert strategy.error_deadband == EPS  # std::numeric_limits<double>::epsilon()
    gains = Pid().get_gains()
    assert (gains.p, gains.i, gains.d) == (0.0, 0.0, 0.0)
    assert (gains.u_max, gains.u_min) == (math.inf, -math.inf)
    assert set(ANTIWINDUP_STRATEGY_TYPES) == {
        'none',
        'back_calculation',
        'conditional_integration',
        'legacy',
    }


# --- P, I, D sequences ----------------------------------------------------------------


def test_proportional_only():
    pid = Pid(p=2.0)
    # cmd = 2 * e, independent of dt and history.
    assert run(pid, [0.5, -1.5, 0.0, 3.25]) == [1.0, -3.0, 0.0, 6.5]
    assert pid.compute_command(1.0, 0.001) == 2.0


def test_integral_only_uses_previous_integral():
    pid = Pid(p=0.0, i=1.0, d=0.0, u_max=5.0, u_min=-5.0)
    # e=-0.5: cmd = i_term(0) = 0, then i_term = -0.5
    # e=-0.5: cmd = -0.5,          then i_term = -1.0
    # e=0:    cmd = -1.0, in the deadband -> no integration
    # e=0:    cmd = -1.0
    # e=1:    cmd = -1.0,          then i_term = 0.0
    # e=0:    cmd = 0.0
    assert run(pid, [-0.5, -0.5, 0.0, 0.0, 1.0, 0.0]) == [0.0, -0.5, -1.0, -1.0, -1.0, 0.0]


def test_integral_with_fractional_dt():
    pid = Pid(i=2.0)
    # i_term += dt * i * e = 0.1 * 2 * e
    assert pid.compute_command(1.0, 0.1) == 0.0
    assert i_term(pid) == approx(0.2)
    assert pid.compute_command(1.0, 0.1) == approx(0.2)
    assert i_term(pid) == approx(0.4)
    assert pid.compute_command(-3.0, 0.1) == approx(0.4)
    assert i_term(pid) == approx(0.4 - 0.6)


def test_derivative_only_backward_difference():
    pid = Pid(d=1.0, u_max=10.0, u_min=-10.0)
    # d_error = (e - e_prev) / dt with e_prev = 0 after construction: first call kicks.
    assert pid.compute_command(-0.5, 1.0) == -0.5
    assert pid.compute_command(-0.5, 1.0) == 0.0
    assert pid.compute_command(-0.5, 0.1) == 0.0
    assert pid.compute_command(-1.0, 1.0) == -0.5
    assert pid.compute_command(-0.5, 1.0) == 0.5
    assert pid.compute_command(-0.3, 0.5) == approx(0.4)  # 0.2 / 0.5
    assert pid.get_current_pid_errors()[2] == approx(0.4)


def test_given_error_dot_is_used_and_does_not_touch_error_history():
    pid = Pid(d=2.0)
    assert pid.compute_command(1.0, 0.1, error_dot=3.0) == 6.0
    assert pid.get_current_pid_errors() == (1.0, 0.0, 3.0)
    # As upstream, only the backward-difference form remembers the error: the previous
    # error is still 0 here, so d_error = (1.0 - 0.0) / 0.1 = 10 -> cmd = 20.
    assert pid.compute_command(1.0, 0.1) == approx(20.0)


def test_error_dot_is_keyword_only():
    pid = Pid(p=1.0)
    with pytest.raises(TypeError):
        pid.compute_command(1.0, 0.5, 0.01)  # upstream order (e, e_dot, dt) must not pass


def test_complete_pid_unit_steps():
    strategy = AntiWindupStrategy(i_max=10.0, i_min=-10.0)
    pid = Pid(1.0, 1.0, 1.0, 5.0, -5.0, strategy)
    # e=-0.5: p=-0.5, i=0,    d=-0.5 -> -1.0; i_term -0.5
    # e=-0.5: p=-0.5, i=-0.5, d=0    -> -1.0; i_term -1.0
    # e=0:    p=0,    i=-1.0, d=0.5  -> -0.5
    assert run(pid, [-0.5, -0.5, 0.0]) == [-1.0, -1.0, -0.5]


def test_complete_pid_small_dt():
    pid = Pid(p=2.0, i=0.5, d=0.1)
    dt = 0.01
    # e=1.0: p=2.0, i=0,     d=0.1*(1.0-0)/0.01=10  -> 12.0;   i_term = 0.01*0.5*1.0 = 0.005
    assert pid.compute_command(1.0, dt) == approx(12.0)
    assert i_term(pid) == approx(0.005)
    # e=0.8: p=1.6, i=0.005, d=0.1*(-0.2)/0.01=-2.0 -> -0.395; i_term = 0.005 + 0.004 = 0.009
    assert pid.compute_command(0.8, dt) == approx(-0.395)
    assert i_term(pid) == approx(0.009)
    # e=0.5: p=1.0, i=0.009, d=0.1*(-0.3)/0.01=-3.0 -> -1.991; i_term = 0.009 + 0.0025 = 0.0115
    assert pid.compute_command(0.5, dt) == approx(-1.991)
    assert pid.get_current_pid_errors() == (0.5, approx(0.0115), approx(-30.0))


# --- output clamp, integral clamp -----------------------------------------------------


def test_output_clamp_both_sides():
    pid = Pid(1.0, 0.0, 0.0, 1.0, -1.0)
    assert run(pid, [0.5, 1.0, 2.0, 100.0, -0.5, -1.0, -2.0, -100.0]) == [
        0.5,
        1.0,
        1.0,
        1.0,
        -0.5,
        -1.0,
        -1.0,
        -1.0,
    ]


def test_output_clamp_one_sided():
    pid = Pid(p=1.0, u_max=1.0)  # u_min stays -inf
    assert run(pid, [5.0, -100.0]) == [1.0, -100.0]


def test_integral_clamp():
    pid = Pid(i=1.0, antiwindup_strategy=AntiWindupStrategy(i_max=0.5, i_min=-0.5))
    # e=1:  cmd 0,   i_term 1.0 -> clamped 0.5
    # e=1:  cmd 0.5, i_term 1.5 -> 0.5
    # e=-2: cmd 0.5, i_term -1.5 -> -0.5
    # e=0:  cmd -0.5
    assert run(pid, [1.0, 1.0, -2.0, 0.0]) == [0.0, 0.5, 0.5, -0.5]
    assert i_term(pid) == -0.5


def test_i_clamp_helper():
    gains = Gains.from_i_clamp(1.0, 2.0, 3.0, -0.7)
    assert (gains.p, gains.i, gains.d) == (1.0, 2.0, 3.0)
    assert gains.antiwindup_strategy.i_max == 0.7
    assert gains.antiwindup_strategy.i_min == -0.7
    assert gains.antiwindup_strategy.type == 'none'
    assert (gains.u_max, gains.u_min) == (math.inf, -math.inf)

    pid = Pid.from_gains(Gains.from_i_clamp(0.0, 1.0, 0.0, 0.25))
    assert run(pid, [1.0, 1.0]) == [0.0, 0.25]

    # i_clamp = 0 (the old default) keeps the integral at zero.
    pid = Pid.from_gains(Gains.from_i_clamp(0.0, 1.0, 0.0, 0.0))
    assert run(pid, [1.0, 1.0, 1.0]) == [0.0, 0.0, 0.0]


# --- anti-windup ----------------------------------------------------------------------


def test_back_calculation_unit_tracking_constant():
    strategy = AntiWindupStrategy(
        type='back_calculation', i_max=10.0, i_min=-10.0, tracking_time_constant=1.0
    )
    pid = Pid(0.0, 1.0, 0.0, 5.0, -5.0, strategy)
    # i_term += dt * (i*e + (cmd - cmd_unsat) / Tt)
    expected = [
        # (e, cmd, i_term after)
        (1.0, 0.0, 1.0),  # unsaturated
        (2.0, 1.0, 3.0),
        (3.0, 3.0, 6.0),
        (1.0, 5.0, 6.0),  # cmd_unsat 6 -> 5: 6 + (1 + (5 - 6)) = 6
        (2.0, 5.0, 7.0),  # 6 + (2 - 1) = 7
        (-1.0, 5.0, 4.0),  # cmd_unsat 7: 7 + (-1 + (5 - 7)) = 4
        (1.0, 4.0, 5.0),  # back inside the bounds
    ]
    for error, cmd, integral in expected:
        assert pid.compute_command(error, 1.0) == cmd
        assert i_term(pid) == integral


def test_back_calculation_with_tracking_constant_and_dt():
    strategy = AntiWindupStrategy(type='back_calculation', tracking_time_constant=0.5)
    pid = Pid(1.0, 2.0, 0.0, 2.0, -2.0, strategy)
    dt = 0.5
    # e=3:  cmd_unsat = 3 + 0 = 3 -> 2;  i_term = 0 + 0.5*(2*3 + (2-3)/0.5) = 2
    assert pid.compute_command(3.0, dt) == 2.0
    assert i_term(pid) == approx(2.0)
    # e=1:  cmd_unsat = 1 + 2 = 3 -> 2;  i_term = 2 + 0.5*(2*1 + (2-3)/0.5) = 2
    assert pid.compute_command(1.0, dt) == 2.0
    assert i_term(pid) == approx(2.0)
    # e=-1: cmd_unsat = -1 + 2 = 1;      i_term = 2 + 0.5*(2*-1) = 1
    assert pid.compute_command(-1.0, dt) == approx(1.0)
    assert i_term(pid) == approx(1.0)


@pytest.mark.parametrize(
    ('p', 'i', 'd', 'expected_tt'),
    [
        (2.0, 4.0, 9.0, 1.5),  # sqrt(d/i) = sqrt(9/4)
        (2.0, 4.0, 0.0, 0.5),  # p/i when d == 0
        (0.0, 0.0, 0.0, 0.0),  # i == 0: left alone (never integrates)
    ],
)
def test_back_calculation_default_tracking_time_constant(p, i, d, expected_tt):
    strategy = AntiWindupStrategy(type='back_calculation')
    pid = Pid(p, i, d, 1.0, -1.0, strategy)
    assert pid.get_gains().antiwindup_strategy.tracking_time_constant == expected_tt


def test_back_calculation_with_zero_i_never_integrates():
    strategy = AntiWindupStrategy(type='back_calculation')
    pid = Pid(0.0, 0.0, 0.0, 20.0, -20.0, strategy)
    assert run(pid, [-1.0, -1.0, 10.0, 10.0]) == [0.0, 0.0, 0.0, 0.0]
    assert i_term(pid) == 0.0


def test_conditional_integration_stops_when_saturated_same_direction():
    strategy = AntiWindupStrategy(type='conditional_integration', i_max=10.0, i_min=-10.0)
    pid = Pid(0.0, 1.0, 0.0, 5.0, -5.0, strategy)
    expected = [
        # (e, cmd, i_term after)
        (1.0, 0.0, 1.0),
        (2.0, 1.0, 3.0),
        (3.0, 3.0, 6.0),
        (1.0, 5.0, 6.0),  # cmd_unsat 6 saturated and e*cmd_unsat > 0: hold
        (2.0, 5.0, 6.0),  # hold
        (-1.0, 5.0, 5.0),  # saturated but e pulls back in: integrate
        (0.0, 5.0, 5.0),  # deadband
    ]
    for error, cmd, integral in expected:
        assert pid.compute_command(error, 1.0) == cmd
        assert i_term(pid) == integral


def test_conditional_integration_negative_saturation():
    strategy = AntiWindupStrategy(type='conditional_integration')
    pid = Pid(1.0, 1.0, 0.0, 2.0, -2.0, strategy)
    # e=-4: cmd_unsat -4 -> -2, e*cmd_unsat = 16 > 0: no integration
    assert pid.compute_command(-4.0, 1.0) == -2.0
    assert i_term(pid) == 0.0
    # e=1: cmd_unsat 1, unsaturated: integrate to 1
    assert pid.compute_command(1.0, 1.0) == 1.0
    assert i_term(pid) == 1.0


def test_no_strategy_keeps_integrating_while_saturated():
    pid = Pid(0.0, 1.0, 0.0, 1.0, -1.0)
    assert run(pid, [2.0, 2.0, 2.0]) == [0.0, 1.0, 1.0]
    assert i_term(pid) == 6.0  # wound up


def test_legacy_strategy_integrates_before_command():
    # jazzy 'legacy': the current error already contributes to this command.
    pid = Pid(0.0, 1.0, 0.0, antiwindup_strategy=AntiWindupStrategy(type='legacy'))
    assert run(pid, [1.0, 1.0]) == [1.0, 2.0]
    current = Pid(0.0, 1.0, 0.0)
    assert run(current, [1.0, 1.0]) == [0.0, 1.0]


@pytest.mark.parametrize('legacy_antiwindup', [False, True])
def test_legacy_strategy_with_integral_bounds(legacy_antiwindup):
    strategy = AntiWindupStrategy(
        type='legacy', i_max=0.5, i_min=-0.5, legacy_antiwindup=legacy_antiwindup
    )
    pid = Pid(0.0, 1.0, 0.0, antiwindup_strategy=strategy)
    # e=1: i_term 1 -> used clamped 0.5 -> cmd 0.5; final clamp 0.5
    # e=1: same; e=-2: i_term 0.5-2 = -1.5 -> -0.5
    assert run(pid, [1.0, 1.0, -2.0]) == [0.5, 0.5, -0.5]
    assert i_term(pid) == -0.5


# --- deadband -------------------------------------------------------------------------


def test_error_deadband_stops_integration_only():
    strategy = AntiWindupStrategy(error_deadband=0.1)
    pid = Pid(1.0, 1.0, 0.0, antiwindup_strategy=strategy)
    # e=0.05: p acts (0.05), no integration
    assert pid.compute_command(0.05, 1.0) == 0.05
    assert i_term(pid) == 0.0
    # e=-0.1: on the boundary (|e| <= deadband): still no integration
    assert pid.compute_command(-0.1, 1.0) == -0.1
    assert i_term(pid) == 0.0
    # e=0.2: integrates 0.2
    assert pid.compute_command(0.2, 1.0) == 0.2
    assert i_term(pid) == 0.2
    # e=0.05: cmd 0.05 + 0.2, integral held
    assert pid.compute_command(0.05, 1.0) == approx(0.25)
    assert i_term(pid) == 0.2


# --- dt handling ----------------------------------------------------------------------


def test_zero_dt_returns_previous_command_and_changes_nothing():
    pid = Pid(1.0, 1.0, 1.0)
    assert pid.compute_command(1.0, 1.0) == 2.0  # p 1 + i 0 + d 1
    state = pid.get_current_pid_errors()
    assert pid.compute_command(5.0, 0.0) == 2.0
    assert pid.compute_command(5.0, 0.0, error_dot=3.0) == 2.0
    assert pid.compute_command(5.0, EPS / 2) == 2.0  # |dt| <= epsilon counts as zero
    assert pid.get_current_pid_errors() == state
    # Next real step is as if the zero-dt calls never happened:
    # e=2: p 2 + i 1 + d (2-1)/1 = 4
    assert pid.compute_command(2.0, 1.0) == 4.0


@pytest.mark.parametrize('dt_s', [-0.001, -1.0, -math.inf, math.nan, math.inf])
def test_invalid_dt_raises(dt_s):
    pid = Pid(1.0, 1.0, 1.0)
    pid.compute_command(1.0, 1.0)
    state = pid.get_current_pid_errors()
    with pytest.raises(ValueError):
        pid.compute_command(1.0, dt_s)
    with pytest.raises(ValueError):
        pid.compute_command(1.0, dt_s, error_dot=0.0)
    assert pid.get_current_pid_errors() == state


# --- non-finite input -----------------------------------------------------------------


@pytest.mark.parametrize('bad', [math.nan, math.inf, -math.inf])
def test_non_finite_error_returns_nan_and_is_forgotten(bad):
    def fresh():
        return Pid(2.0, 1.0, 0.5, antiwindup_strategy=AntiWindupStrategy(i_max=3.0, i_min=-3.0))

    reference = fresh()
    expected = [reference.compute_command(e, 0.1) for e in (1.0, 0.5, -0.25)]

    pid = fresh()
    assert pid.compute_command(1.0, 0.1) == expected[0]
    integral_before = i_term(pid)
    assert math.isnan(pid.compute_command(bad, 0.1))
    assert i_term(pid) == integral_before
    assert math.isnan(pid.get_current_cmd())
    assert math.isnan(pid.compute_command(0.3, 0.0))  # zero dt returns the NaN command
    # The next good steps match a run in which the bad sample never arrived.
    assert pid.compute_command(0.5, 0.1) == expected[1]
    assert pid.compute_command(-0.25, 0.1) == expected[2]
    assert pid.get_current_pid_errors() == reference.get_current_pid_errors()


def test_non_finite_error_dot_returns_nan_without_integrating():
    pid = Pid(0.0, 1.0, 1.0)
    pid.compute_command(1.0, 1.0, error_dot=0.0)
    assert i_term(pid) == 1.0
    assert math.isnan(pid.compute_command(1.0, 1.0, error_dot=math.nan))
    assert i_term(pid) == 1.0
    # As upstream, the rejected inputs are what get_current_pid_errors reports.
    p_error, _, d_error = pid.get_current_pid_errors()
    assert p_error == 1.0
    assert math.isnan(d_error)
    assert pid.compute_command(1.0, 1.0, error_dot=0.0) == 1.0
    assert i_term(pid) == 2.0


# --- reset ----------------------------------------------------------------------------


def test_reset_clears_integral():
    pid = Pid(0.0, 1.0, 0.0)
    run(pid, [0.5, 0.5])
    assert i_term(pid) == 1.0
    pid.reset()
    assert pid.get_current_pid_errors() == (0.0, 0.0, 0.0)
    assert pid.get_current_cmd() == 0.0
    assert pid.compute_command(0.0, 1.0) == 0.0


def test_reset_keeping_integral():
    pid = Pid(0.0, 1.0, 1.0)
    run(pid, [-0.5, -0.5])  # i_term -1.0, previous error -0.5
    pid.reset(save_i_term=True)
    assert pid.get_current_pid_errors() == (0.0, -1.0, 0.0)
    # Previous error is back to 0: e=-0.5 gives d kick -0.5 plus kept integral -1.0.
    assert pid.compute_command(-0.5, 1.0) == -1.5


def test_clear_saved_iterm_and_set_current_cmd():
    pid = Pid(0.0, 1.0, 0.0)
    run(pid, [1.0])
    pid.clear_saved_iterm()
    assert i_term(pid) == 0.0
    pid.set_current_cmd(7.0)
    assert pid.compute_command(1.0, 0.0) == 7.0


# --- gains: validation and runtime swap -----------------------------------------------

INVALID_GAINS = [
    (Gains(1.0, 0.0, 0.0, u_max=1.0, u_min=1.0), 'u_min'),
    (Gains(1.0, 0.0, 0.0, u_max=-1.0, u_min=1.0), 'u_min'),
    (Gains(1.0, 0.0, 0.0, u_max=math.nan), 'NaN'),
    (Gains(1.0, 0.0, 0.0, u_min=math.nan), 'NaN'),
    (Gains(antiwindup_strategy=AntiWindupStrategy(type='bogus')), 'bogus'),
    (Gains(antiwindup_strategy=AntiWindupStrategy(type='BACK_CALCULATION')), 'BACK_CALCULATION'),
    (
        Gains(1.0, 1.0, antiwindup_strategy=AntiWindupStrategy('back_calculation', 1, -1, -0.5)),
        'tracking_time_constant',
    ),
    (
        Gains(
            1.0, 1.0, antiwindup_strategy=AntiWindupStrategy('back_calculation', 1, -1, math.inf)
        ),
        'tracking_time_constant',
    ),
    (
        Gains(
            1.0, 1.0, antiwindup_strategy=AntiWindupStrategy('back_calculation', 1, -1, math.nan)
        ),
        'tracking_time_constant',
    ),
    # Our addition: a default Tt of p/i = 0 would divide by zero.
    (
        Gains(0.0, 1.0, 0.0, antiwindup_strategy=AntiWindupStrategy('back_calculation')),
        'tracking_time_constant',
    ),
    (Gains(antiwindup_strategy=AntiWindupStrategy(i_min=0.1)), 'i_min'),
    (Gains(antiwindup_strategy=AntiWindupStrategy(i_max=-0.1)), 'i_max'),
    (Gains(antiwindup_strategy=AntiWindupStrategy(i_max=math.nan)), 'NaN'),
    (Gains(p=math.nan), 'gain p'),
    (Gains(i=math.inf), 'gain i'),
]


@pytest.mark.parametrize(('bad', 'word'), INVALID_GAINS)
def test_set_gains_rejects_and_keeps_old(bad, word):
    good = Gains(1.0, 2.0, 3.0, u_max=4.0, u_min=-4.0)
    pid = Pid.from_gains(good)
    assert pid.set_gains(bad) is False
    assert word in pid.last_gains_error
    assert pid.get_gains() == good
    assert pid.initialize(bad) is False
    assert pid.get_gains() == good
    assert pid.set_gains(Gains(p=5.0)) is True
    assert pid.last_gains_error == ''


@pytest.mark.parametrize(('bad', 'word'), INVALID_GAINS)
def test_constructor_rejects_invalid_gains(bad, word):
    with pytest.raises(ValueError, match=word):
        Pid.from_gains(bad)


def test_constructor_rejects_inverted_output_bounds():
    with pytest.raises(ValueError, match='u_min'):
        Pid(1.0, 1.0, 1.0, -1.0, 1.0)


def test_gain_change_applies_next_step_without_output_jump():
    pid = Pid(0.0, 1.0, 0.0)
    run(pid, [1.0])  # i_term = 1.0 (the integral of i*e)
    assert pid.set_gains(Gains(p=1.0, i=10.0)) is True
    # New p acts at once; the accumulated i_term is kept as is: cmd = 1*0.5 + 1.0.
    assert pid.compute_command(0.5, 1.0) == 1.5
    assert i_term(pid) == 6.0  # 1.0 + 1 * 10 * 0.5


def test_initialize_resets_state():
    pid = Pid(0.0, 1.0, 0.0)
    run(pid, [1.0, 1.0])
    assert pid.initialize(Gains(p=1.0)) is True
    assert pid.get_current_pid_errors() == (0.0, 0.0, 0.0)
