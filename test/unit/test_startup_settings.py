"""The manager's start-up settings (startup_parameters.check_loop_settings), checked
before anything starts: each value that cannot work is refused with one line naming the
parameter (ros2_control_node then exits with status 1)."""

import pytest

from py_controllers.controller_manager.startup_parameters import (
    StartupParameterError,
    check_loop_settings,
)

GOOD = {
    'update_rate': 100,
    'thread_priority': 50,
    'cpu_affinity': None,
    'lock_memory': False,
    'watchdog.periods': 10,
    'watchdog.min_stall_ms': -1,
    'watchdog.exit_on_stall': True,
    'watchdog.max_switch_ms': 5000,
    'loop.spin_us': -1,
    'loop.guard_us': 300,
    'enforce_command_limits': True,
    'use_sim_time': False,
    'defaults.switch_controller.strictness': 'strict',
    'defaults.allow_controller_activation_with_inactive_hardware': False,
    'defaults.deactivate_controllers_on_hardware_self_deactivate': True,
    'hardware_components_initial_state.unconfigured': None,
    'hardware_components_initial_state.inactive': ['Arm'],
}


def settings(**changes):
    values = {**GOOD, **{k.replace('__', '.'): v for k, v in changes.items()}}
    return check_loop_settings(values.__getitem__)


def test_good_values_are_read():
    s = settings()
    assert s.update_rate == 100 and s.initial_inactive == ('Arm',)
    assert s.initial_unconfigured == () and s.strict_by_default and s.guard_us == 300
    assert settings(update_rate=1_000_000).update_rate == 1_000_000
    # -1: the watchdog picks its floor (by whether the loop drives a simulator's time)
    assert s.watchdog_min_stall_s is None
    assert settings(watchdog__min_stall_ms=400).watchdog_min_stall_s == 0.4


@pytest.mark.parametrize(
    ('name', 'value', 'says'),
    [
        # a lone string was iterated per character: 'A', 'r', 'm'; Arm started ACTIVE
        ('hardware_components_initial_state.inactive', 'Arm', '(write [Arm])'),
        ('hardware_components_initial_state.unconfigured', ['Arm', 3], 'list of hardware'),
        # 'false' as a string was True
        ('enforce_command_limits', 'false', 'true or false'),
        ('use_sim_time', 'false', 'true or false'),
        ('defaults.allow_controller_activation_with_inactive_hardware', 'false', 'true or'),
        ('defaults.deactivate_controllers_on_hardware_self_deactivate', 'no', 'true or false'),
        ('loop.guard_us', -5, '>= 0'),
        ('loop.spin_us', -2, '-1: automatic'),
        # a zero period and a ZeroDivisionError before
        ('update_rate', 2_000_000_000, '1..1000000'),
        ('watchdog.max_switch_ms', -1, '>= 0'),
        ('watchdog.min_stall_ms', -2, '-1: automatic'),
        ('defaults.switch_controller.strictness', 'sometimes', 'strict, best_effort'),
    ],
)
def test_values_that_cannot_work_are_refused_naming_the_parameter(name, value, says):
    with pytest.raises(StartupParameterError) as refused:
        settings(**{name.replace('.', '__'): value})
    assert f"parameter '{name}'" in str(refused.value) and says in str(refused.value)
