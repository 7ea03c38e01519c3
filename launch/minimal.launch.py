"""Bring up the 3-joint mock robot with a forward position controller.

ros2 launch py_controllers minimal.launch.py [use_rviz:=false]
"""

from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = 'py_controllers'


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    urdf = Path(share, 'config', 'minimal_robot.urdf').read_text()
    description = {'robot_description': urdf}
    return LaunchDescription(
        [
            DeclareLaunchArgument('use_rviz', default_value='true'),
            Node(
                package=PACKAGE,
                executable='ros2_control_node',
                parameters=[f'{share}/config/minimal_controllers.yaml'],
                output='both',
            ),
            Node(
                package='robot_state_publisher',
                executable='robot_state_publisher',
                parameters=[description],
            ),
            Node(
                package=PACKAGE,
                executable='spawner',
                arguments=['joint_state_broadcaster', 'forward_position_controller'],
            ),
            Node(
                package='rviz2',
                executable='rviz2',
                arguments=['-d', f'{share}/config/minimal.rviz'],
                condition=IfCondition(LaunchConfiguration('use_rviz')),
            ),
        ]
    )
