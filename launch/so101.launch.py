"""Bring up the SO-101 follower arm (Feetech STS3215, py_controllers/FeetechSystem).

ros2 launch py_controllers so101.launch.py [usb_port:=/dev/ttyACM0]
    without usb_port: the simulated bus (servo_bus.bus_sim) serves the arm on /tmp/ttySO101

ros2_control_node with config/so101_robot.urdf aimed at the port, robot_state_publisher, and
spawner for the joint state broadcaster, the arm's joint trajectory controller and the
gripper action controller.
"""

from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from py_controllers.hardware.servo_bus.arm_files import ARMS, description_on_port

PACKAGE = 'py_controllers'
ARM = ARMS['so101']


def nodes(context):
    share = get_package_share_directory(PACKAGE)
    port = LaunchConfiguration('usb_port').perform(context)
    actions = []
    if not port:  # no arm at hand: the simulated bus
        port = ARM.link
        actions.append(
            ExecuteProcess(
                cmd=[
                    'python3',
                    '-m',
                    'py_controllers.hardware.servo_bus.bus_sim',
                    '--arm',
                    ARM.sim,
                    '--link',
                    port,
                ],
                output='both',
            )
        )
    urdf = Path(share, 'config', 'so101_robot.urdf').read_text()
    description = description_on_port(urdf, port)
    controllers = f'{share}/config/so101_controllers.yaml'
    return [
        *actions,
        Node(
            package=PACKAGE,
            executable='ros2_control_node',
            parameters=[controllers, {'robot_description': description}],
            output='both',
        ),
        Node(
            package='robot_state_publisher',
            executable='robot_state_publisher',
            parameters=[{'robot_description': description}],
            output='both',
        ),
        Node(
            package=PACKAGE,
            executable='spawner',
            arguments=['joint_state_broadcaster', 'arm_controller', 'gripper_controller'],
        ),
    ]


def generate_launch_description():
    return LaunchDescription(
        [
            DeclareLaunchArgument('usb_port', default_value=''),
            OpaqueFunction(function=nodes),
        ]
    )
