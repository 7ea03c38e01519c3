"""Bring up both: the arm on the diff drive base with its gripper (the `make demo` robot).

ros2 launch py_controllers demo.launch.py [use_rviz:=false] [use_sim_time:=false]
"""

from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = 'py_controllers'


def nodes(context):
    share = get_package_share_directory(PACKAGE)
    use_sim_time = LaunchConfiguration('use_sim_time').perform(context) == 'true'
    urdf = Path(share, 'config', 'demo_robot.urdf').read_text()
    controllers = Path(share, 'config', 'demo_controllers.yaml')
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
            arguments=[
                'joint_state_broadcaster',
                'arm_controller',
                'diff_drive_controller',
                'gripper_controller',
                'imu_sensor_broadcaster',
                'force_torque_sensor_broadcaster',
                'gpio_command_controller',
            ],
        ),
        Node(
            package='rviz2',
            executable='rviz2',
            arguments=['-d', str(Path(share, 'config', 'diffbot.rviz'))],
            condition=IfCondition(LaunchConfiguration('use_rviz')),
        ),
    ]


def generate_launch_description():
    return LaunchDescription(
        [
            DeclareLaunchArgument('use_sim_time', default_value='false'),
            DeclareLaunchArgument('use_rviz', default_value='true'),
            OpaqueFunction(function=nodes),
        ]
    )
