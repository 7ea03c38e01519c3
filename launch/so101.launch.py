"""Bring up the SO-101 follower arm (Feetech STS3215, py_controllers/FeetechSystem).

ros2 launch py_controllers so101.launch.py [usb_port:=/dev/ttyACM0]
    without usb_port: the simulated bus (servo_bus.bus_sim) serves the arm on /tmp/ttySO101

servo_arm.launch.py with arm:=so101: ros2_control_node with config/so101_robot.urdf aimed at
the port, robot_state_publisher, and spawner for the joint state broadcaster, the arm's joint
trajectory controller and the gripper action controller.
"""

from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration

PACKAGE = 'py_controllers'


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    return LaunchDescription(
        [
            DeclareLaunchArgument('usb_port', default_value=''),
            IncludeLaunchDescription(
                PythonLaunchDescriptionSource(str(Path(share, 'launch', 'servo_arm.launch.py'))),
                launch_arguments={
                    'arm': 'so101',
                    'usb_port': LaunchConfiguration('usb_port'),
                }.items(),
            ),
        ]
    )
