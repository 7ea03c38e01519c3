"""The manager's parameters and its controllers': a bad description waits for a good one,
parameters of the wrong type refuse a load, those read at start refuse changes, base
parameters refuse what cannot work, a controller's invalid parameters fail its configure."""

import pytest
from manager_rig import inprocess_manager, load
from rclpy.parameter import Parameter

from py_controllers.controller_manager.node import ControllerManagerRuntime
from py_controllers.testing import CONFIG, RosHarness


@pytest.fixture
def cm():
    with inprocess_manager() as pair:
        yield pair


def test_invalid_parameter_fails_configure_naming_it(cm, capfd):
    _, manager = cm
    manager.node.set_parameters(
        [Parameter('bad.type', value='forward_command_controller/ForwardCommandController')]
    )
    ok, msg = manager.load_controller('bad')
    assert ok, msg
    ok, msg = manager.configure_controller('bad')
    assert not ok
    assert manager.state_of('bad').label == 'unconfigured'
    err = capfd.readouterr().err
    assert 'joints' in err


@pytest.mark.parametrize(
    'given',
    [
        ('robot_description', '<robot name="x"><bad'),  # malformed XML
        ('robot_description_file', '/nonexistent/robot.urdf'),
        ('robot_description_file', '/tmp'),  # a directory
    ],
)
def test_a_bad_description_waits_for_a_good_one_on_robot_description(given, capfd):
    from std_msgs.msg import String

    from py_controllers.testing import latched_qos

    harness = RosHarness('bad_description')
    node = ControllerManagerRuntime(
        harness.executor,
        context=harness.context,
        parameter_overrides=[Parameter(given[0], value=given[1])],
    )
    try:
        assert node.services is None
        assert given[1] in capfd.readouterr().err or given[0] == 'robot_description'
        pub = harness.node.create_publisher(String, '/robot_description', latched_qos())
        pub.publish(String(data=(CONFIG / 'minimal_robot.urdf').read_text()))
        assert harness.spin_until(lambda: node.services is not None)
        assert list(node.manager.rm.components) == ['MinimalSystem']
    finally:
        node.shutdown()
        harness.close()


@pytest.mark.parametrize(
    ('parameter', 'value', 'expected'),
    [
        ('fallback_controllers', 'other', "'x.fallback_controllers' must be a list of strings"),
        ('node_options_args', '--foo', "'x.node_options_args' must be a list of strings"),
        ('params_file', 5, "'x.params_file' must be a string or a list of strings"),
        ('type', 5, "parameter 'x.type' must be a string"),
    ],
)
def test_controller_parameters_of_the_wrong_type_refuse_the_load(cm, parameter, value, expected):
    _, manager = cm
    manager.node.set_parameters([Parameter(f'x.{parameter}', value=value)])
    if parameter != 'type':
        manager.node.set_parameters([Parameter('x.type', value='test/CountingController')])
    ok, message = manager.load_controller('x')
    assert not ok and expected in message
    assert 'x' not in manager.controllers


@pytest.mark.parametrize(
    ('name', 'value'),
    [
        ('update_rate', -5),
        ('update_rate', 500),
        ('defaults.switch_controller.strictness', 'sometimes'),
        ('thread_priority', 1_000_000_000),
        ('joint_limits.joint1.max_velocity', 1.0),
        ('robot_description', '<robot name="other"/>'),
        ('use_sim_time', True),  # the loop's clock and /clock are chosen at start
        ('watchdog.periods', 3),
    ],
)
def test_manager_parameters_read_at_start_refuse_changes(cm, name, value):
    _, manager = cm
    (result,) = manager.node.set_parameters([Parameter(name, value=value)])
    assert not result.successful
    assert 'read when ros2_control_node starts' in result.reason
    # what the loop runs with is what ros2 param get says
    assert manager.node.get_parameter('update_rate').value == 200
    (result,) = manager.node.set_parameters([Parameter('new_ctrl.type', value='x/Y')])
    assert result.successful  # registering controllers stays possible


@pytest.mark.parametrize(
    ('name', 'value', 'reason'),
    [
        ('update_rate', -100, "'update_rate' must be an integer >= 0"),
        ('is_async', True, 'is_async: true'),
    ],
)
def test_controller_base_parameters_refuse_what_cannot_work(cm, name, value, reason):
    _, manager = cm
    counting = load(manager, 'counting', 'test/CountingController')
    (result,) = counting.get_node().set_parameters([Parameter(name, value=value)])
    assert not result.successful and reason in result.reason


def test_an_async_controller_fails_to_configure_clearly(cm, tmp_path, capfd):
    _, manager = cm
    params = tmp_path / 'async.yaml'
    params.write_text('asyncy:\n  ros__parameters:\n    is_async: true\n')
    manager.node.set_parameters(
        [
            Parameter('asyncy.type', value='test/CountingController'),
            Parameter('asyncy.params_file', value=str(params)),
        ]
    )
    assert manager.load_controller('asyncy')[0]
    ok, _ = manager.configure_controller('asyncy')
    assert not ok
    assert "'is_async: true' is not supported for controllers yet" in capfd.readouterr().err
