"""Bring up the simulated mecanum base with the mecanum drive controller.

ros2 launch py_controllers mecanumbot.launch.py [use_rviz:=false]

Drive it with TwistStamped on /mecanum_drive_controller/reference. As ros2_control_demos do for
the steering controllers, the spawner remaps the controller's ~/tf_odometry to /tf so
odom -> base_link joins the TF tree.
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
    urdf = Path(share, 'config', 'mecanumbot.urdf').read_text()
    return LaunchDescription(
        [
            DeclareLaunchArgument('use_rviz', default_value='true'),
            Node(
                package=PACKAGE,
                executable='ros2_control_node',
                parameters=[f'{share}/config/mecanumbot_controllers.yaml'],
                output='both',
            ),
            Node(
                package='robot_state_publisher',
                executable='robot_state_publisher',
                parameters=[{'robot_description': urdf}],
                output='both',
            ),
            Node(
                package=PACKAGE,
                executable='spawner',
                arguments=[
                    'joint_state_broadcaster',
                    'mecanum_drive_controller',
                    '--controller-ros-args',
                    '-r /mecanum_drive_controller/tf_odometry:=/tf',
                ],
            ),
            Node(
                package='rviz2',
                executable='rviz2',
                arguments=['-d', f'{share}/config/mecanumbot.rviz'],
                condition=IfCondition(LaunchConfiguration('use_rviz')),
            ),
        ]
    )
