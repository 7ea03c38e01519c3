"""TopicBasedSystem's description checks (no ROS needed: on_init opens nothing).

The effects of the accepted parameters are shown over real topics in
test/ros/test_topic_based_system.py.
"""

import math

import pytest

from py_controllers.hardware.topic_based_system import TopicBasedSystem, shortest_angle
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.types import CallbackReturn
from py_controllers.robot_description import swap_hardware
from py_controllers.testing import CONFIG

PLUGIN = 'topic_based_ros2_control/TopicBasedSystem'
URDF = (CONFIG / 'topic_based_robot.urdf').read_text()


def init(urdf: str) -> tuple[TopicBasedSystem, CallbackReturn]:
    (info,) = parse_control_resources_from_urdf(urdf)
    component = TopicBasedSystem()
    return component, component.on_init(info)


def with_params(**params) -> str:
    return swap_hardware(URDF, PLUGIN, params)


def test_upstream_parameters_are_read():
    component, result = init(
        with_params(
            trigger_joint_command_threshold='0.25',
            sum_wrapped_joint_states='true',
            state_timeout='0.5',
        )
    )
    assert result == CallbackReturn.SUCCESS
    assert component.commands_topic == '/topic_based_joint_commands'
    assert component.states_topic == '/topic_based_joint_states'
    assert component.threshold == 0.25
    assert component.state_timeout == 0.5
    assert component.sum_wrapped is True


def test_upstream_defaults():
    bare = URDF.replace(
        '<param name="joint_commands_topic">/topic_based_joint_commands</param>', ''
    ).replace('<param name="joint_states_topic">/topic_based_joint_states</param>', '')
    component, result = init(bare)
    assert result == CallbackReturn.SUCCESS
    assert component.commands_topic == '/robot_joint_commands'
    assert component.states_topic == '/robot_joint_states'
    assert component.threshold == 1e-5
    assert component.sum_wrapped is False
    assert component.state_timeout == 1.0


@pytest.mark.parametrize(
    ('urdf', 'words'),
    [
        (with_params(use_sim_time='true'), "unknown parameter(s) ['use_sim_time']"),
        (with_params(state_timeout='0'), "'state_timeout' must be > 0"),
        (with_params(trigger_joint_command_threshold='small'), 'is not a number'),
        (with_params(sum_wrapped_joint_states='maybe'), 'is not a bool'),
        (
            URDF.replace(
                '<joint name="joint_2">',
                '<joint name="joint_2"><param name="mimic">joint_9</param>',
            ),
            "mimicked joint 'joint_9'",
        ),
        (
            URDF.replace(
                '<joint name="joint_2">', '<joint name="joint_2"><param name="gain">2</param>'
            ),
            "unknown parameter(s) ['gain']",
        ),
        (
            URDF.replace(
                '<command_interface name="velocity"/>', '<command_interface name="acceleration"/>'
            ),
            "interface 'acceleration' is not one of",
        ),
        (
            URDF.replace(
                '</ros2_control>',
                '<sensor name="ft"><state_interface name="force.x"/></sensor></ros2_control>',
            ),
            'only <joint>s are supported',
        ),
    ],
    ids=['unknown', 'timeout', 'threshold', 'bool', 'mimic', 'joint_param', 'accel', 'sensor'],
)
def test_what_upstream_does_not_have_is_refused_with_one_line(urdf, words, caplog):
    _, result = init(urdf)
    assert result == CallbackReturn.ERROR
    errors = [r.getMessage() for r in caplog.records if r.levelname == 'ERROR']
    assert len(errors) == 1 and words in errors[0], errors


def test_upstream_mimic_joint_parameters():
    urdf = URDF.replace(
        '<joint name="joint_3">',
        '<joint name="joint_3"><param name="mimic">joint_2</param>'
        '<param name="multiplier">-2</param>',
    )
    component, result = init(urdf)
    assert result == CallbackReturn.SUCCESS
    assert component._mimics == [(2, 1, -2.0, 0.0)]


def test_shortest_angle_counts_turns():
    total = 3.0
    for reading in (-3.0, -2.0, 3.1, -3.1):  # +0.28, +1.0, -1.18 (the short way), +0.08
        total += shortest_angle(total, reading)
    assert total == pytest.approx(2 * math.pi - 3.1)  # -3.1 read as one turn up


def test_the_launch_files_simulator_has_the_robots_joints_and_start():
    """launch/topic_based.launch.py starts the stand-in with the URDF's joints and initial
    positions (a mismatch would make the robot jump at the first command)."""
    import ast

    source = (CONFIG.parent / 'launch' / 'topic_based.launch.py').read_text()
    values = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }
    component, _ = init(URDF)
    assert values['JOINTS'] == component.joint_names
    initial = dict(text.split('=') for text in values['INITIAL'])
    for name, start in zip(component.joint_names, component._initial, strict=True):
        assert float(initial.get(name, 0.0)) == start
