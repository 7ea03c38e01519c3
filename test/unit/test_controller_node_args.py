"""The arguments a controller's node gets from the manager's (upstream's
determine_controller_node_options on Jazzy and Kilted)."""

from py_controllers.controller_manager.controller_node_args import (
    controller_node_arguments,
    forwarded_arguments,
    ros_arguments,
)


def test_ros_arguments_are_the_ros_args_sections():
    argv = ['ros2_control_node', 'x', '--ros-args', '-r', '__node:=a', '--', 'y', '--ros-args']
    argv += ['--params-file', 'f.yaml']
    assert ros_arguments(argv) == ['-r', '__node:=a', '--params-file', 'f.yaml']
    assert ros_arguments(['ros2_control_node']) == []


def test_the_managers_name_namespace_and_description_stay_with_it():
    manager = [
        '-r', '__node:=my_cm',
        '--remap', '__ns:=/robot1',
        '-r', 'my_cm:__name:=other',
        '--params-file', 'controllers.yaml',
        '-p', 'robot_description:=<robot/>',
        '-p', 'robot_description_file:=robot.urdf.xacro',
        '--param', 'robot_description_xacro_args:=[a:=1]',
        '-p', 'update_rate:=50',
        '-r', '/cmd_vel:=/base/cmd_vel',
        '--log-level', 'debug',
        '--disable-rosout-logs',
    ]  # fmt: skip
    assert forwarded_arguments(manager) == [
        '--params-file', 'controllers.yaml',
        '-p', 'update_rate:=50',
        '-r', '/cmd_vel:=/base/cmd_vel',
        '--log-level', 'debug',
        '--disable-rosout-logs',
    ]  # fmt: skip


def test_a_remap_that_only_mentions_a_name_is_kept():
    # only the name a rule sets decides, not a value that mentions one
    assert forwarded_arguments(['-r', 'x:=__node']) == ['-r', 'x:=__node']
    assert forwarded_arguments(['-p', 'my_robot_description:=1']) == [
        '-p',
        'my_robot_description:=1',
    ]


def test_controller_node_arguments_in_upstreams_order():
    args = controller_node_arguments(
        ['-r', '__node:=my_cm', '--params-file', 'cm.yaml'],
        ['own.yaml'],
        ['-r', '~/cmd_vel:=/cmd_vel'],
    )
    assert args == [
        '--ros-args',
        '--params-file', 'cm.yaml',
        '--params-file', 'own.yaml',
        '--ros-args', '-r', '~/cmd_vel:=/cmd_vel',
    ]  # fmt: skip
    # --controller-ros-args that start with --ros-args are taken as they are
    assert controller_node_arguments([], [], ['--ros-args', '-r', 'a:=b']) == [
        '--ros-args',
        '--ros-args',
        '-r',
        'a:=b',
    ]
    assert controller_node_arguments([]) == ['--ros-args']
