"""Bring up the simulated (or mock, or Arduino) differential drive base.

ros2 launch py_controllers diffbot.launch.py [use_mock_hardware:=true]
    [serial_device:=/dev/ttyUSB0 use_arduino:=true] [use_rviz:=false] [use_sim_time:=false]
"""

from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from py_controllers.robot_description import swap_hardware

PACKAGE = 'py_controllers'


def robot_description(context):
    """The URDF text with the hardware plugin the arguments ask for."""
    share = get_package_share_directory(PACKAGE)
    urdf = Path(share, 'config', 'diffbot.urdf').read_text()
    if LaunchConfiguration('use_mock_hardware').perform(context) == 'true':
        return swap_hardware(urdf, 'mock_components/GenericSystem', {'calculate_dynamics': 'true'})
    if LaunchConfiguration('use_arduino').perform(context) == 'true':
        device = LaunchConfiguration('serial_device').perform(context)
        return swap_hardware(
            urdf,
            'py_controllers/ArduinoDiffDriveSystem',
            {
                'device': device,
                'left_wheel_name': 'left_wheel_joint',
                'right_wheel_name': 'right_wheel_joint',
            },
        )
    return urdf


def nodes(context):
    share = get_package_share_directory(PACKAGE)
    use_sim_time = LaunchConfiguration('use_sim_time').perform(context) == 'true'
    description = {'robot_description': robot_description(context)}
    controllers = f'{share}/config/diffbot_controllers.yaml'
    return [
        Node(
            package=PACKAGE,
            executable='ros2_control_node',
            parameters=[controllers, {'use_sim_time': use_sim_time}],
            output='both',
        ),
        Node(
            package='robot_state_publisher',
            executable='robot_state_publisher',
            parameters=[description, {'use_sim_time': use_sim_time}],
            output='both',
        ),
        Node(
            package=PACKAGE,
            executable='spawner',
            arguments=['joint_state_broadcaster', 'diff_drive_controller'],
        ),
        Node(
            package='rviz2',
            executable='rviz2',
            arguments=['-d', f'{share}/config/diffbot.rviz'],
            condition=IfCondition(LaunchConfiguration('use_rviz')),
        ),
    ]


def generate_launch_description():
    return LaunchDescription(
        [
            DeclareLaunchArgument('use_sim_time', default_value='false'),
            DeclareLaunchArgument('use_mock_hardware', default_value='false'),
            DeclareLaunchArgument('use_arduino', default_value='false'),
            DeclareLaunchArgument('serial_device', default_value='/dev/ttyUSB0'),
            DeclareLaunchArgument('use_rviz', default_value='true'),
            OpaqueFunction(function=nodes),
        ]
    )
