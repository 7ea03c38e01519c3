"""Robot descriptions and controller YAML the fault groups start ros2_control_node with."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from py_controllers.robot_description import swap_hardware
from py_controllers.testing import CONFIG

MINIMAL_URDF = (CONFIG / 'minimal_robot.urdf').read_text()


def fault_robot(arm_record: Path, aux_record: Path, aux_params: dict | None = None) -> str:
    """Two FaultInjectionSystem components: 'Arm' (j1, j2 and the `faults` gpio) and 'Aux'
    (j3, with `aux_params` too); revolute joints with position/velocity/effort commands,
    each writing a record."""
    joints = ['j1', 'j2', 'j3']
    links = ''.join(f'<link name="l_{j}"/>' for j in joints)
    urdf_joints = ''.join(
        f'<joint name="{j}" type="revolute"><parent link="base"/><child link="l_{j}"/>'
        '<axis xyz="0 0 1"/><limit lower="-3" upper="3" velocity="2" effort="10"/></joint>'
        for j in joints
    )

    def joint(j: str) -> str:
        return (
            f'<joint name="{j}"><command_interface name="position"/>'
            '<command_interface name="velocity"/><command_interface name="effort"/>'
            '<state_interface name="position"><param name="initial_value">0.0</param>'
            '</state_interface><state_interface name="velocity"/></joint>'
        )

    def component(name: str, record: Path, body: str, params: dict | None = None) -> str:
        extra = ''.join(f'<param name="{k}">{v}</param>' for k, v in (params or {}).items())
        return (
            f'<ros2_control name="{name}" type="system"><hardware>'
            '<plugin>py_controllers/FaultInjectionSystem</plugin>'
            f'<param name="record_file">{record}</param>{extra}</hardware>{body}</ros2_control>'
        )

    gpio = (
        '<gpio name="faults"><command_interface name="read"/>'
        '<command_interface name="write"/></gpio>'
    )
    arm = component('Arm', arm_record, joint('j1') + joint('j2') + gpio)
    aux = component('Aux', aux_record, joint('j3'), aux_params)
    return f'<robot name="faults"><link name="base"/>{links}{urdf_joints}{arm}{aux}</robot>'


FAULT_CONTROLLERS = """
controller_manager:
  ros__parameters:
    update_rate: 100
    joint_state_broadcaster:
      type: joint_state_broadcaster/JointStateBroadcaster
    velocity_controller:
      type: velocity_controllers/JointGroupVelocityController
    read_trigger:
      type: forward_command_controller/ForwardCommandController
    write_trigger:
      type: forward_command_controller/ForwardCommandController
    fic:
      type: py_controllers/FaultInjectionController
velocity_controller:
  ros__parameters:
    joints: [j1, j2]
read_trigger:
  ros__parameters:
    joints: [faults]
    interface_name: read
write_trigger:
  ros__parameters:
    joints: [faults]
    interface_name: write
fic:
  ros__parameters:
    command_interfaces: [j3/velocity]
    value: 1.5
"""


def arduino_robot(device: str) -> str:
    """config/diffbot.urdf on `py_controllers/ArduinoDiffDriveSystem` at `device`."""
    return swap_hardware(
        (CONFIG / 'diffbot.urdf').read_text(),
        'py_controllers/ArduinoDiffDriveSystem',
        {
            'device': device,
            'enc_counts_per_rev': 1000,
            'loop_rate': 30,
            'startup_delay_s': 0,
            'timeout_ms': 50,
            'max_consecutive_errors': 3,
            'left_wheel_name': 'left_wheel_joint',
            'right_wheel_name': 'right_wheel_joint',
        },
    )


def _swap(old: str, new: str) -> str:
    assert old in MINIMAL_URDF, old
    return MINIMAL_URDF.replace(old, new, 1)


BAD_DESCRIPTIONS: dict[str, list[str]] = {
    'malformed XML': [
        '<robot',
        '',
        'not xml at all',
        '<robot name="x"><link name="a"/></robt>',
        MINIMAL_URDF[: len(MINIMAL_URDF) // 2],
        '<?xml version="1.0"?><robot name="x">&undefined;</robot>',
    ],
    'unknown plugin': [
        _swap('mock_components/GenericSystem', 'no_such_pkg/NoSuchSystem'),
        _swap('mock_components/GenericSystem', ''),
        _swap('mock_components/GenericSystem', 'joint_state_broadcaster/JointStateBroadcaster'),
    ],
    'wrong types': [
        _swap('<param name="initial_value">0.0</param>', '<param name="initial_value">abc</param>'),
        _swap('<param name="min">-3.14</param>', '<param name="min">low</param>'),
        _swap('type="system"', 'type="banana"'),
        _swap('velocity="2.0" effort="50"', 'velocity="fast" effort="50"'),
    ],
    'unknown joints': [
        _swap('<joint name="joint1">', '<joint name="no_such_joint">'),
        _swap('<joint name="joint3">', '<joint name="joint1">'),
    ],
}
"""Robot descriptions that must be refused (the node then waits for a better one)."""


@dataclass(frozen=True)
class Base:
    """A mobile base the suite drives over a TwistStamped topic (faults.base_inputs): where
    its controller listens and reports, and the limits a clamped command must stay within."""

    controller: str
    command: str  # the TwistStamped topic under the controller: 'cmd_vel' or 'reference'
    odometry: str  # its nav_msgs/Odometry topic under the controller
    params: Path
    urdf: Path
    spawn: tuple[str, ...]  # what the robot runs besides the base (spawned first)
    speed_limit: float | None = None  # |odometry linear.x| a clamped command stays within
    steering: tuple[str, ...] = ()  # steering joints on /joint_states (steering must hold)
    steering_limit: float = math.inf  # |position| the manager clamps the steering to
    set_odometry: bool = True  # control_msgs/SetOdometry ~/set_odometry, else std_srvs/Empty
    # ~/reset_odometry

    @property
    def topic(self) -> str:
        return f'/{self.controller}/{self.command}'

    @property
    def controllers(self) -> list[str]:
        return [*self.spawn, self.controller]


MOBILE_BASES_YAML = CONFIG / 'mobile_bases.yaml'
BASES = [
    Base(
        'ackermann_steering_controller',
        'reference',
        'odometry',
        CONFIG / 'steering_controllers.yaml',
        CONFIG / 'steering_robot.urdf',
        ('joint_state_broadcaster',),
        steering=('front_right_steering_joint', 'front_left_steering_joint'),
        steering_limit=1.5,  # the URDF's <limit>, enforce_command_limits
    ),
    Base(
        'mecanum_drive_controller',
        'reference',
        'odometry',
        MOBILE_BASES_YAML,
        CONFIG / 'mecanum_base.urdf',
        (),
    ),
    Base(
        'omni_wheel_drive_controller',
        'cmd_vel',
        'odom',
        MOBILE_BASES_YAML,
        CONFIG / 'omni_base.urdf',
        (),
    ),
    Base(
        'tricycle_controller',
        'cmd_vel',
        'odom',
        MOBILE_BASES_YAML,
        CONFIG / 'tricycle_base.urdf',
        (),
        set_odometry=False,
    ),
]
"""The bases merged with issue 30, each on its own ros2_control_node (mock hardware)."""

DIFF_DRIVE = Base(
    'diff_drive_controller',
    'cmd_vel',
    'odom',
    CONFIG / 'demo_controllers.yaml',
    CONFIG / 'demo_robot.urdf',
    (),
    speed_limit=1.0,  # linear.x.max_velocity in demo_controllers.yaml
)
"""The demo robot's base (faults.controller_inputs runs it with the other demo controllers)."""

MOTION_PRIMITIVES = (CONFIG / 'motion_primitives.yaml', CONFIG / 'motion_primitives_robot.urdf')
"""ExecuteMotionPrimitiveSequence robot: the forward controller on the acknowledging mock."""
