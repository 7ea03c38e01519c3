"""ament_python package py_controllers: builds with colcon, or with pip into a venv."""

from glob import glob

from setuptools import find_packages, setup

PACKAGE = 'py_controllers'


def share(folder: str, pattern: str = '*') -> tuple[str, list[str]]:
    """Install every file matching `folder/pattern` under share/py_controllers/folder."""
    return (f'share/{PACKAGE}/{folder}', sorted(p for p in glob(f'{folder}/{pattern}')))


_FWD = 'forward_command.controller'
CONTROLLERS = [
    ('forward_command_controller/ForwardCommandController', f'{_FWD}:ForwardCommandController'),
    (
        'forward_command_controller/MultiInterfaceForwardCommandController',
        f'{_FWD}:MultiInterfaceForwardCommandController',
    ),
    ('position_controllers/JointGroupPositionController', f'{_FWD}:JointGroupPositionController'),
    ('velocity_controllers/JointGroupVelocityController', f'{_FWD}:JointGroupVelocityController'),
    ('effort_controllers/JointGroupEffortController', f'{_FWD}:JointGroupEffortController'),
    ('position_controllers/JointPositionController', f'{_FWD}:JointPositionController'),
    ('velocity_controllers/JointVelocityController', f'{_FWD}:JointVelocityController'),
    ('effort_controllers/JointEffortController', f'{_FWD}:JointEffortController'),
    (
        'joint_state_broadcaster/JointStateBroadcaster',
        'joint_state_broadcaster.controller:JointStateBroadcaster',
    ),
    ('diff_drive_controller/DiffDriveController', 'diff_drive.controller:DiffDriveController'),
    (
        'joint_trajectory_controller/JointTrajectoryController',
        'joint_trajectory.controller:JointTrajectoryController',
    ),
    (
        'velocity_controllers/JointPositionController',
        'joint_pid.controller:VelocityJointPositionController',
    ),
    (
        'effort_controllers/JointPositionController',
        'joint_pid.controller:EffortJointPositionController',
    ),
    (
        'effort_controllers/JointVelocityController',
        'joint_pid.controller:EffortJointVelocityController',
    ),
    ('pid_controller/PidController', 'pid_controller.controller:PidController'),
    (
        'py_controllers/FaultInjectionController',
        'fault_injection.controller:FaultInjectionController',
    ),
    (
        'position_controllers/GripperActionController',
        'gripper_action.controller:PositionGripperActionController',
    ),
    (
        'effort_controllers/GripperActionController',
        'gripper_action.controller:EffortGripperActionController',
    ),
    (
        'parallel_gripper_action_controller/GripperActionController',
        'parallel_gripper.controller:ParallelGripperActionController',
    ),
    ('gpio_controllers/GpioCommandController', 'gpio_command.controller:GpioCommandController'),
    (
        'imu_sensor_broadcaster/IMUSensorBroadcaster',
        'sensor_broadcasters.imu:IMUSensorBroadcaster',
    ),
    (
        'force_torque_sensor_broadcaster/ForceTorqueSensorBroadcaster',
        'sensor_broadcasters.force_torque:ForceTorqueSensorBroadcaster',
    ),
    (
        'admittance_controller/AdmittanceController',
        'admittance.controller:AdmittanceController',
    ),
    (
        'range_sensor_broadcaster/RangeSensorBroadcaster',
        'sensor_broadcasters.range:RangeSensorBroadcaster',
    ),
    ('pose_broadcaster/PoseBroadcaster', 'sensor_broadcasters.pose:PoseBroadcaster'),
    (
        'ackermann_steering_controller/AckermannSteeringController',
        'steering.ackermann:AckermannSteeringController',
    ),
    (
        'bicycle_steering_controller/BicycleSteeringController',
        'steering.bicycle:BicycleSteeringController',
    ),
    (
        'tricycle_steering_controller/TricycleSteeringController',
        'steering.tricycle_steering:TricycleSteeringController',
    ),
    ('tricycle_controller/TricycleController', 'tricycle.controller:TricycleController'),
    (
        'mecanum_drive_controller/MecanumDriveController',
        'mecanum_drive.controller:MecanumDriveController',
    ),
    (
        'omni_wheel_drive_controller/OmniWheelDriveController',
        'omni_wheel_drive.controller:OmniWheelDriveController',
    ),
    (
        'battery_state_broadcaster/BatteryStateBroadcaster',
        'sensor_broadcasters.battery:BatteryStateBroadcaster',
    ),
    ('gps_sensor_broadcaster/GPSSensorBroadcaster', 'sensor_broadcasters.gps:GPSSensorBroadcaster'),
    (
        'magnetometer_broadcaster/MagnetometerBroadcaster',
        'sensor_broadcasters.magnetometer:MagnetometerBroadcaster',
    ),
    (
        'state_interfaces_broadcaster/StateInterfacesBroadcaster',
        'state_interfaces_broadcaster.controller:StateInterfacesBroadcaster',
    ),
    ('chained_filter_controller/ChainedFilter', 'chained_filter.controller:ChainedFilter'),
    (
        'motion_primitives_controllers/MotionPrimitivesForwardController',
        'motion_primitives.controller:MotionPrimitivesForwardController',
    ),
]

setup(
    name=PACKAGE,
    version='0.1.0',
    packages=find_packages(include=[PACKAGE, f'{PACKAGE}.*']),
    package_data={PACKAGE: ['**/*.yaml']},
    data_files=[
        ('share/ament_index/resource_index/packages', [f'resource/{PACKAGE}']),
        (f'share/{PACKAGE}', ['package.xml']),
        share('launch', '*.py'),
        share('config', '*.*'),
        share('config/mujoco', '*.*'),
    ],
    # xacro: the ROS package on PyPI, for .urdf.xacro robot descriptions ($(find) through
    # the ament index); the servo SDKs for DynamixelSystem and FeetechSystem
    install_requires=[
        'setuptools',
        'numpy',
        'PyYAML',
        'pyserial',
        'xacro',
        'dynamixel-sdk',
        'feetech-servo-sdk',
    ],
    extras_require={
        'test': ['pytest', 'ruff', 'mypy', 'matplotlib', 'hypothesis'],
        'mujoco': ['mujoco'],
        'kinematics': ['pin'],
        'dashboard': ['nicegui'],
    },
    zip_safe=True,
    maintainer='py_controllers maintainers',
    maintainer_email='maintainers@py-controllers.dev',
    description='ros2_control and ros2_controllers as a native Python package',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'ros2_control_node = py_controllers.controller_manager.node:main',
            # each of tools.py runs its program's main() in a child process (tool_process.py)
            'spawner = py_controllers.controller_manager.tools:spawner',
            'unspawner = py_controllers.controller_manager.tools:unspawner',
            'hardware_spawner = py_controllers.controller_manager.tools:hardware_spawner',
            'py-controllers = py_controllers.controller_manager.tools:py_controllers_cli',
            'topic_simulator = py_controllers.hardware.topic_simulator:main',
            'servo_teleop = py_controllers.hardware.servo_bus.teleop:main',
            'publisher_forward_position_controller = '
            'py_controllers.controller_manager.tools:publisher_forward_position_controller',
            'publisher_joint_trajectory_controller = '
            'py_controllers.controller_manager.tools:publisher_joint_trajectory_controller',
        ],
        'py_controllers.controllers': [
            f'{name} = py_controllers.controllers.{target}' for name, target in CONTROLLERS
        ],
        'py_controllers.hardware': [
            'mock_components/GenericSystem = '
            'py_controllers.hardware.mock_generic_system:GenericSystem',
            'py_controllers/SimulatedSystem = '
            'py_controllers.hardware.simulated_system:SimulatedSystem',
            'py_controllers/DiffBotSystem = py_controllers.hardware.diffbot_system:DiffBotSystem',
            'py_controllers/ArduinoDiffDriveSystem = '
            'py_controllers.hardware.arduino_diffdrive_system:ArduinoDiffDriveSystem',
            'py_controllers/FaultInjectionSystem = '
            'py_controllers.hardware.fault_injection:FaultInjectionSystem',
            'py_controllers/MujocoSystem = py_controllers.hardware.mujoco_system:MujocoSystem',
            # upstream MuJoCo URDFs name it as ros-controls' and moveit's plugins
            'mujoco_ros2_control/MujocoSystemInterface = '
            'py_controllers.hardware.mujoco_system:MujocoSystem',
            'mujoco_ros2_control/MujocoSystem = py_controllers.hardware.mujoco_system:MujocoSystem',
            'topic_based_ros2_control/TopicBasedSystem = '
            'py_controllers.hardware.topic_based_system:TopicBasedSystem',
            'py_controllers/DynamixelSystem = '
            'py_controllers.hardware.dynamixel_system:DynamixelSystem',
            # upstream dynamixel-community's plugin name: its URDFs run unchanged
            'dynamixel_hardware/DynamixelHardware = '
            'py_controllers.hardware.dynamixel_system:DynamixelSystem',
            'py_controllers/FeetechSystem = py_controllers.hardware.feetech_system:FeetechSystem',
            'py_controllers/MotionPrimitivesMockSystem = '
            'py_controllers.hardware.motion_primitives_mock:MotionPrimitivesMockSystem',
        ],
        'py_controllers.transmissions': [
            f'transmission_interface/{kind}Transmission = '
            f'py_controllers.transmission_interface.loader:{kind}TransmissionLoader'
            for kind in ('Simple', 'Differential', 'FourBarLinkage')
        ],
        'py_controllers.kinematics': [
            'kinematics_interface_pinocchio/KinematicsInterfacePinocchio = '
            'py_controllers.kinematics.pinocchio_kinematics:KinematicsInterfacePinocchio',
            'kinematics_interface_kdl/KinematicsInterfaceKDL = '
            'py_controllers.kinematics.pinocchio_kinematics:KinematicsInterfacePinocchio',
        ],
    },
)
