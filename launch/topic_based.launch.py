"""Bring up a robot driven over topics (topic_based_ros2_control/TopicBasedSystem) with the
stand-in simulator, or with Isaac Sim or any simulator that speaks the same two topics.

    ros2 launch py_controllers topic_based.launch.py [simulator:=false] [use_rviz:=false]

config/topic_based_robot.urdf: a 3-joint arm (position commands) and a turntable (velocity
commands). ros2_control_node publishes the commands as sensor_msgs/JointState on
/topic_based_joint_commands and reads the states from /topic_based_joint_states; the
stand-in simulator (`topic_simulator`) answers there. simulator:=false leaves it out, for a
simulator of your own on those topics. Controllers: config/topic_based_controllers.yaml.
"""

from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = 'py_controllers'
JOINTS = ['joint_1', 'joint_2', 'joint_3', 'turntable_joint']
INITIAL = ['joint_1=0.2', 'joint_2=0.3', 'joint_3=0.1']  # the URDF's initial values


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    urdf = Path(share, 'config', 'topic_based_robot.urdf').read_text()
    return LaunchDescription(
        [
            DeclareLaunchArgument('simulator', default_value='true'),
            DeclareLaunchArgument('use_rviz', default_value='true'),
            Node(
                package=PACKAGE,
                executable='topic_simulator',
                arguments=[
                    '--joints',
                    *JOINTS,
                    '--commands-topic',
                    '/topic_based_joint_commands',
                    '--states-topic',
                    '/topic_based_joint_states',
                    '--initial',
                    *INITIAL,
                ],
                condition=IfCondition(LaunchConfiguration('simulator')),
                output='both',
            ),
            Node(
                package=PACKAGE,
                executable='ros2_control_node',
                parameters=[f'{share}/config/topic_based_controllers.yaml'],
                output='both',
            ),
            Node(
                package='robot_state_publisher',
                executable='robot_state_publisher',
                parameters=[{'robot_description': urdf}],
            ),
            Node(
                package=PACKAGE,
                executable='spawner',
                arguments=[
                    'joint_state_broadcaster',
                    'joint_trajectory_controller',
                    'turntable_velocity_controller',
                ],
            ),
            Node(
                package='rviz2',
                executable='rviz2',
                arguments=['-d', f'{share}/config/minimal.rviz'],
                condition=IfCondition(LaunchConfiguration('use_rviz')),
            ),
        ]
    )
