"""`hardware_spawner` against a real ros2_control_node over DDS: configure and activate a
component that starts unconfigured, refuse an unknown one, upstream's command line.

One manager process serves the module; before every test `unconfigured` puts its one
component back where the manager started it, so each test runs alone and in any order.
(Signals: test_spawner_signals.py; namespaces: test_manager_process.py.)
"""

import pytest

from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

CONTROLLERS = CONFIG / 'minimal_controllers.yaml'
URDF = CONFIG / 'minimal_robot.urdf'
COMPONENT = 'MinimalSystem'
WAIT = ('--controller-manager-timeout', '30')


@pytest.fixture(scope='module')
def manager():
    initially = {'hardware_components_initial_state.unconfigured': f'[{COMPONENT}]'}
    with ManagerProcess([CONTROLLERS], URDF, params=initially) as proc:
        yield proc
        assert proc.alive, proc.output()


@pytest.fixture(scope='module')
def ros(manager):
    with RosHarness('hardware_spawner_test') as harness:
        yield harness


def state_of(ros) -> str:
    (component,) = ros.manager().list_hardware_components()
    assert component.name == COMPONENT
    return component.state.label


@pytest.fixture(autouse=True)
def unconfigured(manager, ros):
    """The component unconfigured, whatever an earlier test left."""
    if state_of(ros) != 'unconfigured':
        ok, state = ros.manager().set_hardware_component_state(COMPONENT, 'unconfigured')
        assert ok and state == 'unconfigured', manager.output()
    assert state_of(ros) == 'unconfigured'


def hardware_spawner(*args: str):
    result = run_tool('hardware_spawner', *args)
    return result, result.stdout + result.stderr


def drive(manager, ros, action, state):
    """`hardware_spawner --<action>` succeeds, says so, and the component is in `state`."""
    result, out = hardware_spawner(COMPONENT, f'--{action}', *WAIT)
    assert result.returncode == 0, out + manager.output()
    assert f"{action}d component '{COMPONENT}'. Hardware now in state: {state}." in out
    assert state_of(ros) == state


def test_configure_then_activate(manager, ros):
    drive(manager, ros, 'configure', 'inactive')
    # an inactive component's state interfaces are readable, its commands not claimable yet
    commands, states = ros.manager().list_hardware_interfaces()
    assert all(i.is_available for i in states)
    assert not any(i.is_available for i in commands)
    drive(manager, ros, 'activate', 'active')
    commands, _ = ros.manager().list_hardware_interfaces()
    assert all(i.is_available for i in commands)


def test_activate_configures_an_unconfigured_component_first(manager, ros):
    result, out = hardware_spawner(COMPONENT, '--activate', *WAIT)
    assert result.returncode == 0, out + manager.output()
    assert state_of(ros) == 'active'


def test_an_unknown_component_fails_with_a_clear_message(manager, ros):
    result, out = hardware_spawner('NoSuchSystem', '--activate', *WAIT)
    assert result.returncode == 1, out
    assert "Hardware Component 'NoSuchSystem' is not loaded" in out, out
    assert f"components of '/controller_manager': {COMPONENT}" in out, out
    assert 'Traceback' not in out
    assert state_of(ros) == 'unconfigured'  # nothing else was touched

    # the components named after it are still handled; the status says one failed
    result, out = hardware_spawner('NoSuchSystem', COMPONENT, '--configure', *WAIT)
    assert result.returncode == 1, out
    assert "Hardware Component 'NoSuchSystem' is not loaded" in out, out
    assert f"configured component '{COMPONENT}'" in out, out
    assert state_of(ros) == 'inactive'


@pytest.mark.parametrize(
    ('flags', 'error'),
    [
        ((), 'one of the arguments --activate --configure is required'),
        (
            ('--activate', '--configure'),
            'argument --configure: not allowed with argument --activate',
        ),
    ],
    ids=['neither', 'both'],
)
def test_activate_and_configure_are_one_required_choice(manager, ros, flags, error):
    result, out = hardware_spawner(COMPONENT, *flags, *WAIT)
    assert result.returncode == 2, out
    assert error in result.stderr, out
    assert state_of(ros) == 'unconfigured'


def test_no_manager_within_the_timeout_fails():
    result, out = hardware_spawner(
        COMPONENT, '--activate', '-c', '/nobody', '--controller-manager-timeout', '0.5'
    )
    assert result.returncode == 1, out
    assert "controller manager '/nobody' not available" in out, out
    assert 'Traceback' not in out
