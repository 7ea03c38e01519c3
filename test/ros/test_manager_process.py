"""ros2_control_node as a user runs it: spawner, topics, services, over real DDS.

One manager process serves the whole module (it takes seconds to start); before every test
`baseline` puts it back to the state the spawner left, so each test runs alone and in any
order.
"""

import math

import pytest
import yaml
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from py_controllers import compiled
from py_controllers.controller_manager.client import BEST_EFFORT, STRICT
from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

CONTROLLERS = CONFIG / 'minimal_controllers.yaml'
URDF = CONFIG / 'minimal_robot.urdf'


@pytest.fixture(scope='module')
def manager():
    with ManagerProcess([CONTROLLERS], URDF) as proc:
        yield proc
        assert proc.alive, proc.output()
        assert proc.stop() == 0, proc.output()  # SIGINT: deactivates everything, exits 0


@pytest.fixture(scope='module')
def ros(manager):
    with RosHarness('manager_process_test') as harness:
        yield harness


@pytest.fixture(scope='module')
def spawned(manager):
    result = run_tool(
        'spawner',
        'joint_state_broadcaster',
        'forward_position_controller',
        '--controller-manager-timeout',
        '30',
    )
    assert result.returncode == 0, result.stdout + result.stderr + manager.output()
    return result


SPAWNED = ('joint_state_broadcaster', 'forward_position_controller')


@pytest.fixture(autouse=True)
def baseline(manager, ros, spawned):
    """Exactly the spawned controllers loaded, both active, whatever an earlier test left."""
    cm = ros.manager()
    states = {c.name: c.state for c in cm.list_controllers()}
    for name in SPAWNED:
        if name not in states:
            assert cm.load_controller(name), name
            states[name] = 'unconfigured'
        if states[name] == 'unconfigured':
            assert cm.configure_controller(name), name
    extras = [name for name in states if name not in SPAWNED]
    activate = [name for name in SPAWNED if states[name] != 'active']
    deactivate = [name for name in extras if states[name] == 'active']
    if activate or deactivate:
        ok, message = cm.switch_controllers(activate, deactivate)
        assert ok, message
    for name in extras:
        assert cm.unload_controller(name), name
    assert {c.name: c.state for c in cm.list_controllers()} == dict.fromkeys(SPAWNED, 'active')
    (component,) = cm.list_hardware_components()
    assert component.state.label == 'active'


def load_inactive(cm, name):
    assert cm.load_controller(name), name
    assert cm.configure_controller(name), name


def positions_of(msg: JointState) -> dict[str, float]:
    return dict(zip(msg.name, msg.position))


def test_forward_commands_reach_joint_states(manager, ros):
    states = ros.subscribe(JointState, '/joint_states')
    pub = ros.node.create_publisher(Float64MultiArray, '/forward_position_controller/commands', 10)
    target = {'joint1': 0.1, 'joint2': 0.2, 'joint3': 0.3}

    def reached():
        pub.publish(Float64MultiArray(data=[0.1, 0.2, 0.3]))
        return bool(states) and positions_of(states[-1]) == pytest.approx(target)

    assert ros.spin_until(reached), states[-1:] or manager.output()
    assert list(states[-1].name) == ['joint1', 'joint2', 'joint3']

    # a wrong-length message changes nothing, and the node keeps publishing
    logged = len(manager.output())
    pub.publish(Float64MultiArray(data=[9.0, 9.0]))
    pub.publish(Float64MultiArray(data=[math.nan, 1.0, 1.0]))
    assert ros.spin_for_messages(states, 30)
    assert all(positions_of(m) == pytest.approx(target) for m in states[-20:])
    assert manager.alive
    active = {c.name: c.state for c in ros.manager().list_controllers()}
    assert active['forward_position_controller'] == 'active'
    assert ros.spin_until(lambda: 'rejected' in manager.output()[logged:]), manager.output()


def test_list_controllers_reports_state_and_claims(ros):
    by_name = {c.name: c for c in ros.manager().list_controllers()}
    fwd = by_name['forward_position_controller']
    assert fwd.state == 'active'
    assert fwd.type == 'forward_command_controller/ForwardCommandController'
    assert list(fwd.claimed_interfaces) == ['joint1/position', 'joint2/position', 'joint3/position']
    assert list(fwd.required_command_interfaces) == list(fwd.claimed_interfaces)
    assert fwd.update_rate == 100
    jsb = by_name['joint_state_broadcaster']
    assert jsb.state == 'active' and list(jsb.claimed_interfaces) == []
    assert 'joint1/velocity' in jsb.required_state_interfaces


def test_statistics_and_diagnostics_report_the_loop(ros):
    """~/get_statistics gives the full figures; /diagnostics, once a second, the loop's
    rate, period and execution moments (computed without sorting the windows)."""
    stats = ros.manager().statistics()
    period = stats['period']
    assert stats['cycles'] > 0 and period['count'] > 0
    assert period['min_us'] <= period['p50_us'] <= period['p99_us'] <= period['max_us']
    assert set(stats['controllers']) == set(SPAWNED)

    diagnostics = ros.subscribe(DiagnosticArray, '/diagnostics')

    def loop_status():
        found = [s for m in diagnostics for s in m.status if s.name.endswith('Activity')]
        return found[-1] if found else None

    assert ros.spin_until(lambda: loop_status() is not None)
    status = loop_status()
    assert status.level == DiagnosticStatus.OK, status.message
    values = {kv.key: kv.value for kv in status.values}
    # which hot path runs: the same as in this process (same sources, same environment)
    assert values.pop('hot_path') == compiled.variant()
    values = {key: float(value) for key, value in values.items()}
    assert values['update_rate_hz'] == 100.0
    assert values['period_min_us'] <= values['period_mean_us'] <= values['period_max_us']
    assert values['period_stddev_us'] >= 0.0
    assert values['measured_rate_hz'] == pytest.approx(1e6 / values['period_mean_us'], rel=1e-3)
    assert 0.0 < values['execution_mean_us'] <= values['execution_max_us']
    assert values['overruns'] >= 0.0


def test_controller_types_are_listed(ros):
    types = dict(ros.manager().list_controller_types())
    assert types['joint_state_broadcaster/JointStateBroadcaster'] == (
        'controller_interface::ControllerInterface'
    )
    assert 'forward_command_controller/ForwardCommandController' in types


def test_claimed_interfaces_strict_fails_best_effort_skips(ros):
    cm = ros.manager()
    load_inactive(cm, 'joint_group_position_controller')
    ok, message = cm.switch_controllers(['joint_group_position_controller'], [], strictness=STRICT)
    assert not ok
    assert "currently claimed by 'forward_position_controller'" in message
    ok, message = cm.switch_controllers(
        ['joint_group_position_controller'], [], strictness=BEST_EFFORT
    )
    assert ok
    states = {c.name: c.state for c in cm.list_controllers()}
    assert states['joint_group_position_controller'] == 'inactive'
    assert states['forward_position_controller'] == 'active'


def test_switch_replaces_the_claim_in_one_request(ros):
    cm = ros.manager()
    load_inactive(cm, 'joint_group_position_controller')
    ok, message = cm.switch_controllers(
        ['joint_group_position_controller'], ['forward_position_controller']
    )
    assert ok, message
    states = {c.name: c.state for c in cm.list_controllers()}
    assert states['joint_group_position_controller'] == 'active'
    assert states['forward_position_controller'] == 'inactive'
    ok, message = cm.switch_controllers(
        ['forward_position_controller'], ['joint_group_position_controller']
    )
    assert ok, message


def test_unloading_an_active_controller_is_refused(ros):
    cm = ros.manager()
    load_inactive(cm, 'joint_group_position_controller')
    assert not cm.unload_controller('forward_position_controller')
    assert not cm.load_controller('forward_position_controller')  # already loaded
    assert not cm.load_controller('no_such_controller')  # no type parameter
    assert cm.unload_controller('joint_group_position_controller')
    names = [c.name for c in cm.list_controllers()]
    assert 'joint_group_position_controller' not in names


def test_hardware_services(ros):
    cm = ros.manager()
    (component,) = cm.list_hardware_components()
    assert component.name == 'MinimalSystem'
    assert component.type == 'system'
    assert component.plugin_name == 'mock_components/GenericSystem'
    assert component.state.label == 'active'
    claimed = {i.name: i.is_claimed for i in component.command_interfaces}
    assert claimed['joint1/position'] and not claimed['joint1/velocity']
    # a state interface is never claimed (upstream reports false), even when the command
    # interface of the same name is
    states_claimed = {i.name: i.is_claimed for i in component.state_interfaces}
    assert states_claimed['joint1/position'] is False
    commands, states = cm.list_hardware_interfaces()
    assert {i.name for i in states} >= {'joint1/position', 'joint3/velocity'}
    assert all(i.is_available for i in commands)
    ok, _ = cm.set_hardware_component_state('no_such_component', 'inactive')
    assert not ok


def test_statistics_are_available(ros):
    stats = ros.manager().statistics()
    assert stats['update_rate_hz'] == 100
    assert stats['hot_path'] == compiled.variant()
    assert stats['spin_us'] == 0  # below 500 Hz the loop only sleeps
    # start-up's objects are left out of the cycle collector's walks (about 48,000 with the
    # demo robot; without the freeze a full collection held the loop 43-143 ms, with it 12-25)
    assert stats['cycle_collector']['frozen_objects'] > 10_000
    assert len(stats['cycle_collector']['collections']) == 3
    assert stats['cycles'] > 0
    assert stats['period']['count'] > 0
    assert 'forward_position_controller' in stats['controllers']
    # a new window: the counters start again from zero and fill up again
    cm = ros.manager()
    cm.reset_statistics()
    fresh = cm.statistics()
    assert fresh['cycles'] < stats['cycles']
    assert ros.spin_until(lambda: cm.statistics()['period']['count'] >= 5)


def test_spawner_param_file_inactive_and_unspawner(ros, tmp_path):
    params = tmp_path / 'extra.yaml'
    params.write_text(
        'velocity_group:\n'
        '  ros__parameters:\n'
        '    type: velocity_controllers/JointGroupVelocityController\n'
        '    joints: [joint1, joint2, joint3]\n'
    )
    result = run_tool('spawner', 'velocity_group', '-p', str(params), '--inactive')
    assert result.returncode == 0, result.stderr
    cm = ros.manager()
    by_name = {c.name: c for c in cm.list_controllers()}
    assert by_name['velocity_group'].state == 'inactive'
    assert by_name['velocity_group'].type == 'velocity_controllers/JointGroupVelocityController'
    assert list(by_name['velocity_group'].required_command_interfaces) == [
        'joint1/velocity',
        'joint2/velocity',
        'joint3/velocity',
    ]
    # spawning again activates the already loaded controller
    assert run_tool('spawner', 'velocity_group').returncode == 0
    assert {c.name: c.state for c in cm.list_controllers()}['velocity_group'] == 'active'
    assert run_tool('unspawner', 'velocity_group').returncode == 0
    assert 'velocity_group' not in [c.name for c in cm.list_controllers()]


@pytest.mark.parametrize('fallbacks', ['joint_state_broadcaster', '5'])
def test_spawner_refuses_fallback_controllers_that_are_not_a_list_of_names(
    ros, tmp_path, fallbacks
):
    # a YAML string (once read letter by letter) and an integer (once a traceback)
    params = tmp_path / 'fallbacks.yaml'
    params.write_text(
        'fallback_group:\n'
        '  ros__parameters:\n'
        '    type: velocity_controllers/JointGroupVelocityController\n'
        '    joints: [joint1]\n'
        f'    fallback_controllers: {fallbacks}\n'
    )
    result = run_tool('spawner', 'fallback_group', '-p', str(params))
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'Traceback' not in result.stderr, result.stderr
    refusals = [line for line in result.stderr.splitlines() if 'fallback_controllers' in line]
    assert len(refusals) == 1, result.stderr
    assert (
        f'must be a list of controller names (e.g. [name]), got {yaml.safe_load(fallbacks)!r}'
        in (refusals[0])
    )
    assert 'fallback_group' not in [c.name for c in ros.manager().list_controllers()]


def test_spawner_fails_cleanly(ros):
    result = run_tool('spawner', 'no_type_controller')
    assert result.returncode == 1
    result = run_tool(
        'spawner', 'x', '-c', '/nobody', '--controller-manager-timeout', '0.5', timeout_s=30
    )
    assert result.returncode == 1
    assert 'not available' in result.stderr


def test_cli_lists_controllers_hardware_and_stats():
    # a generous discovery timeout: each call is a new process discovering the manager
    listing = run_tool('py-controllers', '--timeout', '30', 'list')
    assert listing.returncode == 0, listing.stderr
    assert 'forward_position_controller' in listing.stdout
    assert 'claimed: joint1/position' in listing.stdout
    hardware = run_tool('py-controllers', '--timeout', '30', 'hardware')
    assert 'MinimalSystem (system, mock_components/GenericSystem): active' in hardware.stdout
    stats = run_tool('py-controllers', '--timeout', '30', 'stats')
    assert stats.returncode == 0 and 'Hz measured of 100 Hz' in stats.stdout
    missing = run_tool('py-controllers', '-c', '/nobody', '--timeout', '0.5', 'list')
    assert missing.returncode == 2
    assert 'is ros2_control_node running' in missing.stderr


# --- namespaces ------------------------------------------------------------------------
# A second manager runs in /robot1 next to the module's /controller_manager, so a tool that
# ignores its namespace visibly acts on the wrong one.

NS = '/robot1'
NS_MANAGER = f'{NS}/controller_manager'
WAIT = ('--controller-manager-timeout', '30')
IN_NS = ('--ros-args', '-r', f'__ns:={NS}')


@pytest.fixture(scope='module')
def robot1(tmp_path_factory):
    """The manager in /robot1: minimal_controllers.yaml with every node key namespaced."""
    sections = yaml.safe_load(CONTROLLERS.read_text())
    params = tmp_path_factory.mktemp('robot1') / 'controllers.yaml'
    params.write_text(yaml.safe_dump({f'{NS}/{key}': value for key, value in sections.items()}))
    with ManagerProcess([params], URDF, ros_args=['-r', f'__ns:={NS}']) as proc:
        yield proc
        assert proc.alive, proc.output()


@pytest.fixture
def ns_cm(robot1, ros):
    """A client of /robot1/controller_manager: no controller loaded, the hardware active."""
    cm = ros.manager(NS_MANAGER)
    states = {c.name: c.state for c in cm.list_controllers()}
    active = [name for name, state in states.items() if state == 'active']
    if active:
        ok, message = cm.switch_controllers([], active)
        assert ok, message
    for name in states:
        assert cm.unload_controller(name), name
    (component,) = cm.list_hardware_components()
    if component.state.label != 'active':
        assert cm.set_hardware_component_state(component.name, 'active') == (True, 'active')
    assert cm.list_controllers() == []
    return cm


def loaded(cm) -> dict[str, str]:
    return {c.name: c.state for c in cm.list_controllers()}


def test_spawner_in_a_namespace_uses_the_manager_of_that_namespace(ros, robot1, ns_cm):
    # relative -c (the default): /robot1/controller_manager; on /controller_manager the
    # switch would fail (forward_position_controller holds joint*/position there)
    result = run_tool('spawner', 'joint_group_position_controller', *WAIT, *IN_NS)
    assert result.returncode == 0, result.stderr + robot1.output()
    assert loaded(ns_cm) == {'joint_group_position_controller': 'active'}
    assert 'joint_group_position_controller' not in loaded(ros.manager())

    # ROS arguments anywhere on the line, as upstream (rclpy takes them out)
    result = run_tool('spawner', *IN_NS, '--', 'joint_state_broadcaster', *WAIT)
    assert result.returncode == 0, result.stderr + robot1.output()
    assert loaded(ns_cm)['joint_state_broadcaster'] == 'active'

    # unspawner: upstream's default -c is the absolute /controller_manager; a relative one
    # lives in the namespace
    result = run_tool(
        'unspawner', 'joint_group_position_controller', '-c', 'controller_manager', *IN_NS
    )
    assert result.returncode == 0, result.stderr + robot1.output()
    assert loaded(ns_cm) == {'joint_state_broadcaster': 'active'}
    assert loaded(ros.manager()) == dict.fromkeys(SPAWNED, 'active')


def test_an_absolute_manager_name_is_used_as_given(ros, robot1, ns_cm):
    result = run_tool('spawner', 'joint_state_broadcaster', '-c', NS_MANAGER, *WAIT)
    assert result.returncode == 0, result.stderr + robot1.output()
    # in another namespace, an absolute -c still wins
    result = run_tool(
        'spawner',
        'forward_velocity_controller',
        '--inactive',
        '-c',
        NS_MANAGER,
        *WAIT,
        '--ros-args',
        '-r',
        '__ns:=/elsewhere',
    )
    assert result.returncode == 0, result.stderr + robot1.output()
    assert loaded(ns_cm) == {
        'joint_state_broadcaster': 'active',
        'forward_velocity_controller': 'inactive',
    }
    assert loaded(ros.manager()) == dict.fromkeys(SPAWNED, 'active')


@pytest.mark.parametrize('option', [('-n', NS), ('--namespace', NS), (f'--namespace={NS}',)])
def test_the_removed_namespace_option_is_refused_as_upstream(ros, robot1, ns_cm, option):
    # upstream deprecated -n/--namespace in jazzy and removed it in kilted: an unknown
    # argument; before, it was parsed and dropped and this loaded it on /controller_manager
    result = run_tool('spawner', 'forward_velocity_controller', *option, *WAIT)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f'unrecognized arguments: {" ".join(option)}' in result.stderr, result.stderr
    assert "'--ros-args -r __ns:=/<namespace>'" in result.stderr, result.stderr
    assert 'forward_velocity_controller' not in loaded(ros.manager())
    assert 'forward_velocity_controller' not in loaded(ns_cm)


def test_a_param_file_in_a_namespace_needs_the_namespaced_key(ros, robot1, ns_cm, tmp_path):
    section = (
        '  ros__parameters:\n'
        '    type: velocity_controllers/JointGroupVelocityController\n'
        '    joints: [joint1, joint2, joint3]\n'
    )
    velocity = ['joint1/velocity', 'joint2/velocity', 'joint3/velocity']
    for name, key in [('ns_group', f'{NS}/ns_group'), ('wild_group', '/**/wild_group')]:
        params = tmp_path / f'{name}.yaml'
        params.write_text(f'{key}:\n{section}')
        result = run_tool('spawner', name, '-p', str(params), '--inactive', *WAIT, *IN_NS)
        assert result.returncode == 0, result.stderr + robot1.output()
        (state,) = [c for c in ns_cm.list_controllers() if c.name == name]
        assert state.type == 'velocity_controllers/JointGroupVelocityController'
        # the controller node (/robot1/<name>) took its parameters from that section
        assert list(state.required_command_interfaces) == velocity, name
        ns_cm.unload_controller(name)

    # a bare key names /bare_group, not /robot1/bare_group: refused as upstream does
    params = tmp_path / 'bare.yaml'
    params.write_text(f'bare_group:\n{section}')
    result = run_tool('spawner', 'bare_group', '-p', str(params), *WAIT, *IN_NS)
    assert result.returncode == 1, result.stderr
    assert f"names 'bare_group' without the namespace '{NS}'" in result.stderr, result.stderr
    assert f"use '{NS}/bare_group' or '/**/bare_group'" in result.stderr
    assert 'bare_group' not in loaded(ns_cm)


def test_hardware_spawner_in_a_namespace(ros, robot1, ns_cm):
    result = run_tool('hardware_spawner', 'MinimalSystem', '--configure', *WAIT, *IN_NS)
    assert result.returncode == 0, result.stderr + robot1.output()
    (component,) = ns_cm.list_hardware_components()
    assert component.state.label == 'inactive'
    (root_component,) = ros.manager().list_hardware_components()
    assert root_component.state.label == 'active'

    result = run_tool('hardware_spawner', 'MinimalSystem', '--activate', '-c', NS_MANAGER, *WAIT)
    assert result.returncode == 0, result.stderr + robot1.output()
    (component,) = ns_cm.list_hardware_components()
    assert component.state.label == 'active'
