"""Bring up a serial bus servo arm: the OpenManipulator-X (Dynamixel XM430,
py_controllers/DynamixelSystem) or the SO-101 follower (Feetech STS3215,
py_controllers/FeetechSystem).

ros2 launch py_controllers servo_arm.launch.py arm:=omx|so101 [usb_port:=/dev/ttyUSB0]
    without usb_port: the simulated bus (servo_bus.bus_sim) serves the arm on its default
    port (/tmp/ttyOMX, /tmp/ttySO101)

robot_state_publisher with config/<arm>_robot.urdf aimed at the port, ros2_control_node
(which hears it on /robot_description, as upstream since Jazzy), and spawner for the joint
state broadcaster, the arm's joint trajectory controller and the gripper action controller.
omx.launch.py and so101.launch.py include this file.
"""

from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from py_controllers.hardware.servo_bus.arm_files import ARMS, description_on_port

PACKAGE = 'py_controllers'


def nodes(context):
    share = get_package_share_directory(PACKAGE)
    name = LaunchConfiguration('arm').perform(context)
    if name not in ARMS:
        raise RuntimeError(f'arm:={name!r} is not a servo arm here; one of {sorted(ARMS)}')
    arm = ARMS[name]
    port = LaunchConfiguration('usb_port').perform(context)
    actions = []
    if not port:  # no arm at hand: the simulated bus
        port = arm.link
        actions.append(
            ExecuteProcess(
                cmd=[
                    'python3',
                    '-m',
                    'py_controllers.hardware.servo_bus.bus_sim',
                    '--arm',
                    arm.sim,
                    '--link',
                    port,
                ],
                output='both',
            )
        )
    urdf = Path(share, 'config', arm.urdf.name).read_text()
    description = description_on_port(urdf, port)
    controllers = str(Path(share, 'config', arm.controllers.name))
    return [
        *actions,
        Node(
            package=PACKAGE,
            executable='ros2_control_node',
            parameters=[controllers],
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
            DeclareLaunchArgument('arm', description='omx or so101'),
            DeclareLaunchArgument('usb_port', default_value=''),
            OpaqueFunction(function=nodes),
        ]
    )
