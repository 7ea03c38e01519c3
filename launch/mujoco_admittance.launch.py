"""Bring up arm6 on MuJoCo made compliant: a trajectory controller chained to an admittance one.

    ros2 launch py_controllers mujoco_admittance.launch.py [use_sim_time:=true]
        [viewer:=false] [use_rviz:=true]

The physics come from config/mujoco/arm6.xml (hardware py_controllers/MujocoSystem); the
joint trajectory controller feeds the admittance controller's references, which moves the
joints' positions so that the tool yields to the wrist force-torque sensor's wrench like a
300 N/m spring (config/mujoco_admittance_controllers.yaml). push_controller pushes the
gripper from a topic, e.g. 30 N along x (the tool moves 0.1 m; it springs back when a
later message sets force.x to 0.0):

    ros2 topic pub --once /push_controller/commands \\
        control_msgs/msg/DynamicInterfaceGroupValues "{interface_groups: [tool_push],
        interface_values: [{interface_names: [force.x], values: [30.0]}]}"

With use_sim_time (default) the manager runs on the simulation's time and publishes /clock;
viewer:=true opens MuJoCo's viewer when there is a display.
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
    controllers = Path(share, 'config', 'mujoco_admittance_controllers.yaml')
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
        Node(  # the admittance controller before the trajectory controller chained to it
            package=PACKAGE,
            executable='spawner',
            arguments=[
                'joint_state_broadcaster',
                'force_torque_sensor_broadcaster',
                'push_controller',
                'admittance_controller',
                'joint_trajectory_controller',
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
