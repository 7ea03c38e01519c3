"""Bring up arm6, the 6-axis arm simulated by MuJoCo, with a joint trajectory controller.

    ros2 launch py_controllers mujoco_arm.launch.py [use_sim_time:=true] [viewer:=false]
        [use_rviz:=true]

The physics come from config/mujoco/arm6.xml (hardware py_controllers/MujocoSystem); the
trajectory controller commands the motors in effort through its PID
(config/mujoco_arm_controllers.yaml), the force-torque broadcaster publishes the wrist
sensor. With use_sim_time (default) the manager runs on the simulation's time and
publishes /clock; viewer:=true opens MuJoCo's viewer when there is a display.
"""

from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = 'py_controllers'
VIEWER_OFF = '<param name="viewer">false</param>'


def nodes(context):
    share = get_package_share_directory(PACKAGE)
    use_sim_time = LaunchConfiguration('use_sim_time').perform(context) == 'true'
    urdf = Path(share, 'config', 'mujoco/arm6.urdf').read_text()
    if LaunchConfiguration('viewer').perform(context) == 'true':
        urdf = urdf.replace(VIEWER_OFF, '<param name="viewer">true</param>')
    controllers = Path(share, 'config', 'mujoco_arm_controllers.yaml')
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
                'force_torque_sensor_broadcaster',
            ],
        ),
        Node(
            package='rviz2',
            executable='rviz2',
            arguments=['-d', str(Path(share, 'config', 'arm.rviz'))],
            parameters=[{'use_sim_time': use_sim_time}],
            condition=IfCondition(LaunchConfiguration('use_rviz')),
        ),
    ]


def generate_launch_description():
    return LaunchDescription(
        [
            DeclareLaunchArgument('use_sim_time', default_value='true'),
            DeclareLaunchArgument('viewer', default_value='false'),
            DeclareLaunchArgument('use_rviz', default_value='true'),
            OpaqueFunction(function=nodes),
        ]
    )
