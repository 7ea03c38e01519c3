"""Finite inputs that overflow: the PID's command and integral stay finite (worked numbers).

MAX is sys.float_info.max (1.797...e308). Inputs below are finite; upstream's arithmetic
would give inf or NaN at each step checked here.
"""

import math
import sys

import pytest

from py_controllers.control_toolbox.pid import AntiWindupStrategy, Gains, Pid, saturate
from py_controllers.controllers.pid_controller.dof_pid import DofPid

MAX = sys.float_info.max


def i_term(pid):
    return pid.get_current_pid_errors()[1]


def test_saturate_only_changes_infinities():
    assert saturate(math.inf) == MAX
    assert saturate(-math.inf) == -MAX
    assert saturate(1e308) == 1e308
    assert saturate(-2.5) == -2.5
    assert math.isnan(saturate(math.nan))


def test_proportional_overflow_saturates_then_clamps():
    # p * e = 10 * 1e308 = inf -> MAX; with u_max 5 the clamp gives 5
    assert Pid(p=10.0).compute_command(1e308, 1.0) == MAX
    assert Pid(p=10.0).compute_command(-1e308, 1.0) == -MAX
    assert Pid(p=10.0, u_max=5.0, u_min=-5.0).compute_command(1e308, 1.0) == 5.0


def test_backward_difference_that_overflows_saturates():
    pid = Pid(p=1.0, d=1.0)
    # e 1e308: ed = 1e308 / 1; cmd 1e308 + 1e308 = inf -> MAX
    assert pid.compute_command(1e308, 1.0) == MAX
    # e -1e308: ed = (-1e308 - 1e308) / 1 = -inf -> -MAX; cmd -1e308 - MAX -> -MAX
    assert pid.compute_command(-1e308, 1.0) == -MAX
    assert pid.get_current_pid_errors() == (-1e308, 0.0, -MAX)


def test_opposite_overflows_cancel_instead_of_nan():
    # p e = 2e308 = inf, d ed = -2e308 = -inf: inf - inf would be NaN; MAX - MAX = 0
    pid = Pid(p=2.0, d=-2.0)
    assert pid.compute_command(1e308, 1.0) == 0.0


def test_unbounded_integral_saturates_at_max_float():
    pid = Pid(i=1.0)
    # the integral reaches the command one step later: 0, 1e308, then 2e308 -> MAX
    assert [pid.compute_command(1e308, 1.0) for _ in range(4)] == [0.0, 1e308, MAX, MAX]
    assert i_term(pid) == MAX
    # a negative error brings it back down by exactly i dt e
    pid.compute_command(-1e308, 1.0)
    assert i_term(pid) == MAX - 1e308


def test_integral_bound_still_applies_after_an_overflowing_step():
    strategy = AntiWindupStrategy(i_max=5.0, i_min=-5.0)
    pid = Pid(i=10.0, antiwindup_strategy=strategy)
    pid.compute_command(1e308, 1.0)  # i dt e = inf -> MAX -> clamped to 5
    assert i_term(pid) == 5.0
    assert pid.compute_command(1.0, 1.0) == 5.0


def test_back_calculation_step_of_inf_minus_inf_is_skipped():
    strategy = AntiWindupStrategy(type='back_calculation', tracking_time_constant=0.1)
    pid = Pid(p=10.0, i=10.0, u_max=1.0, u_min=-1.0, antiwindup_strategy=strategy)
    # cmd_unsat 10 * 1e308 = inf -> MAX, clamped to 1; integral step
    # i e + (cmd - cmd_unsat) / Tt = inf + 10 * (1 - MAX) = inf - inf: skipped
    assert pid.compute_command(1e308, 1.0) == 1.0
    assert i_term(pid) == 0.0
    # and the controller goes on normally: e 0.05 -> 10 * 0.05 + 0 = 0.5
    assert pid.compute_command(0.05, 1.0) == pytest.approx(0.5)


def test_legacy_integral_saturates_before_the_command():
    pid = Pid(i=1.0, antiwindup_strategy=AntiWindupStrategy(type='legacy'))
    # legacy integrates first: 1e308, then 2e308 -> MAX
    assert pid.compute_command(1e308, 1.0) == 1e308
    assert pid.compute_command(1e308, 1.0) == MAX
    assert i_term(pid) == MAX


def test_dof_pid_output_stays_finite_for_finite_inputs():
    dof = DofPid(Gains(p=1.0), feedforward_gain=10.0)
    # ff 10 * 1e308 = inf, error 1e308 - (-1e308) = inf -> MAX each; output MAX
    assert dof.step(1e308, math.nan, -1e308, math.nan, 0.01) == MAX
    assert dof.step(-1e308, math.nan, 1e308, math.nan, 0.01) == -MAX
    two = DofPid(Gains(p=0.0, d=1.0), two_interfaces=True)
    # error_dot 1e308 - (-1e308) = inf -> MAX; d * MAX = MAX
    assert two.step(0.0, 1e308, 0.0, -1e308, 0.01) == MAX


def test_dof_pid_names_the_gain_a_reference_overflows():
    dof = DofPid(Gains(p=4.0))
    assert dof.overflow_problem(1e308, math.nan) == 'p 4.0 times 1e+308 overflows'
    assert dof.overflow_problem(1e300, math.nan) == ''
    assert dof.overflow_problem(math.nan, math.nan) == ''  # NaN: leave the reference as is
    assert DofPid(Gains(p=1.0)).overflow_problem(1e308, math.nan) == ''
    ff = DofPid(Gains(p=1.0), feedforward_gain=2.0)
    assert ff.overflow_problem(-1e308, math.nan) == 'feedforward_gain 2.0 times -1e+308 overflows'
    two = DofPid(Gains(p=1.0, d=3.0), two_interfaces=True)
    assert two.overflow_problem(0.0, 1e308) == 'd 3.0 times 1e+308 overflows'
