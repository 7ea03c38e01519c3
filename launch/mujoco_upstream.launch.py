"""Bring up an upstream MuJoCo robot description unchanged, as ros-controls'
mujoco_ros2_control writes one, on py_controllers' MujocoSystem.

    ros2 launch py_controllers mujoco_upstream.launch.py [use_sim_time:=true] [headless:=true]

config/mujoco/upstream_arm.urdf names the plugin mujoco_ros2_control/MujocoSystemInterface
and its model as `$(find py_controllers)/config/mujoco/upstream_arm.xml`, the upstream
demo's layout (a two-link arm on position actuators, a gripper driven through a tendon,
pose and magnetometer sensors). The spawner brings up the upstream demo's controllers
(config/mujoco_upstream_controllers.yaml); then, for instance,

    ros2 topic pub --once /position_controller/commands std_msgs/msg/Float64MultiArray \
        "{data: [0.5, -0.4]}"

moves the arm. headless:=false opens MuJoCo's viewer when there is a display.
"""

from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = 'py_controllers'
HEADLESS = '<param name="headless">true</param>'


def nodes(context):
    share = get_package_share_directory(PACKAGE)
    use_sim_time = LaunchConfiguration('use_sim_time').perform(context) == 'true'
    urdf = Path(share, 'config', 'mujoco/upstream_arm.urdf').read_text()
    if LaunchConfiguration('headless').perform(context) == 'false':
        urdf = urdf.replace(HEADLESS, '<param name="headless">false</param>')
    controllers = Path(share, 'config', 'mujoco_upstream_controllers.yaml')
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
            arguments=['joint_state_broadcaster', 'position_controller', 'gripper_controller'],
        ),
    ]


def generate_launch_description():
    return LaunchDescription(
        [
            DeclareLaunchArgument('use_sim_time', default_value='true'),
            DeclareLaunchArgument('headless', default_value='true'),
            OpaqueFunction(function=nodes),
        ]
    )
