"""Bring up the 6-joint arm with a joint trajectory controller.

    ros2 launch py_controllers arm.launch.py [use_mock_hardware:=true]
        [command_interface:=effort|velocity] [use_rviz:=false] [use_sim_time:=false]

With mock hardware the trajectory controller commands position; with the simulated
dynamics (default) it commands effort or velocity through its PID.
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


def nodes(context):
    share = get_package_share_directory(PACKAGE)
    use_sim_time = LaunchConfiguration('use_sim_time').perform(context) == 'true'
    urdf = Path(share, 'config', 'arm_robot.urdf').read_text()
    if LaunchConfiguration('use_mock_hardware').perform(context) == 'true':
        controllers = Path(share, 'config', 'arm_mock_controllers.yaml')
    else:
        urdf = swap_hardware(urdf, 'py_controllers/SimulatedSystem')
        if LaunchConfiguration('command_interface').perform(context) == 'velocity':
            controllers = Path(share, 'config', 'arm_velocity_controllers.yaml')
        else:
            controllers = Path(share, 'config', 'arm_effort_controllers.yaml')
    return [
        Node(
            package=PACKAGE,
            executable='ros2_control_node',
            parameters=[str(controllers), {'use_sim_time': use_sim_time}],
            output='both',
        ),
        Node(
            package='robot_state_publisher',
            executable='robot_state_publisher',
            parameters=[{'robot_description': urdf, 'use_sim_time': use_sim_time}],
        ),
        Node(
            package=PACKAGE,
            executable='spawner',
            arguments=['joint_state_broadcaster', 'joint_trajectory_controller'],
        ),
        Node(
            package='rviz2',
            executable='rviz2',
            arguments=['-d', str(Path(share, 'config', 'arm.rviz'))],
            condition=IfCondition(LaunchConfiguration('use_rviz')),
        ),
    ]


def generate_launch_description():
    return LaunchDescription(
        [
            DeclareLaunchArgument('use_sim_time', default_value='false'),
            DeclareLaunchArgument('use_mock_hardware', default_value='false'),
            DeclareLaunchArgument('command_interface', default_value='effort'),
            DeclareLaunchArgument('use_rviz', default_value='true'),
            OpaqueFunction(function=nodes),
        ]
    )
