"""The `<ros2_control>` URDF parser: hardware tags, interfaces, limits, mimic joints, errors."""

from __future__ import annotations

import math

import pytest
from urdf_samples import ACTUATOR, PLUGIN, SYSTEM, hardware, robot

from py_controllers.hardware_interface.component_info import HardwareInfo
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.errors import ComponentParserError


@pytest.fixture
def infos() -> list[HardwareInfo]:
    return parse_control_resources_from_urdf(robot(SYSTEM, ACTUATOR))


# --- the system tag ------------------------------------------------------------------------
def test_hardware_tags_in_document_order(infos: list[HardwareInfo]) -> None:
    assert [(i.name, i.type) for i in infos] == [('Arm', 'system'), ('Gripper', 'actuator')]


def test_system_hardware_fields(infos: list[HardwareInfo]) -> None:
    arm = infos[0]
    assert arm.plugin == 'mock_components/GenericSystem'
    assert arm.hardware_plugin_name == 'mock_components/GenericSystem'
    assert arm.group == 'arm_group'
    # values keep their text, whitespace stripped
    assert arm.hardware_parameters == {'calculate_dynamics': 'true', 'port': '/dev/ttyUSB0'}
    assert arm.is_async is False
    assert arm.rw_rate == 0
    assert arm.thread_priority == 50
    assert [j.name for j in arm.joints] == ['joint1', 'joint2', 'joint3', 'finger_mimic']
    assert arm.original_xml.startswith('<ros2_control name="Arm" type="system">')
    assert arm.original_xml.endswith('</ros2_control>')
    assert 'Gripper' not in arm.original_xml
    assert 'test_robot' in arm.robot_description
    assert list(arm.urdf_joints)[:3] == ['joint1', 'joint2', 'joint3']


def test_joint_interfaces_min_max_and_initial_values(infos: list[HardwareInfo]) -> None:
    joint1 = infos[0].joints[0]
    assert joint1.type == 'joint'
    assert joint1.is_mimic is None
    assert joint1.parameters == {'gear': '3'}
    (cmd,) = joint1.command_interfaces
    assert (cmd.name, cmd.min, cmd.max, cmd.initial_value) == ('position', '-1.0', '1.0', None)
    assert cmd.data_type == 'double'
    assert cmd.size == 1
    assert cmd.enable_limits is True
    assert cmd.parameters == {'min': '-1.0', 'max': '1.0'}
    pos, vel = joint1.state_interfaces
    assert (pos.name, pos.initial_value) == ('position', '0.25')
    assert (vel.name, vel.initial_value, vel.min, vel.max) == ('velocity', None, None, None)
    joint2 = infos[0].joints[1]
    assert [s.initial_value for s in joint2.state_interfaces] == ['-0.5', '0.0']


def test_interface_limits_disabled(infos: list[HardwareInfo]) -> None:
    position = infos[0].joints[2].command_interfaces[0]
    assert position.enable_limits is False


def test_sensor_with_force_torque_states(infos: list[HardwareInfo]) -> None:
    (sensor,) = infos[0].sensors
    assert sensor.name == 'ft_sensor'
    assert sensor.type == 'sensor'
    assert sensor.command_interfaces == []
    assert [s.name for s in sensor.state_interfaces] == [
        'force.x',
        'force.y',
        'force.z',
        'torque.x',
        'torque.y',
        'torque.z',
    ]
    assert sensor.parameters == {'frame_id': 'tool0'}


def test_gpio_with_command_and_state(infos: list[HardwareInfo]) -> None:
    (gpio,) = infos[0].gpios
    assert (gpio.name, gpio.type) == ('flange_io', 'gpio')
    digital_out, analog_out = gpio.command_interfaces
    assert (digital_out.name, digital_out.data_type, digital_out.size) == ('digital_out', 'bool', 1)
    assert (analog_out.data_type, analog_out.size) == ('double', 2)
    assert analog_out.parameters == {'address': '17'}
    (digital_in,) = gpio.state_interfaces
    assert (digital_in.name, digital_in.data_type) == ('digital_in', 'bool')
    assert gpio.parameters == {'bus': 'can0'}


def test_actuator_async_rate_and_properties(infos: list[HardwareInfo]) -> None:
    gripper = infos[1]
    assert gripper.type == 'actuator'
    assert gripper.plugin == 'my_pkg/GripperActuator'
    assert gripper.hardware_parameters == {'can_id': '12'}
    assert gripper.is_async is True
    assert gripper.rw_rate == 50
    assert gripper.thread_priority == 70
    assert gripper.async_params.cpu_affinity_cores == [2, 3]
    assert gripper.async_params.scheduling_policy == 'fifo'
    assert gripper.async_params.print_warnings is False
    assert gripper.group == ''
    assert gripper.joints == []


def test_sensor_hardware_type() -> None:
    (info,) = parse_control_resources_from_urdf(
        hardware(
            '<hardware><plugin>my_pkg/Imu</plugin></hardware>'
            '<sensor name="imu"><state_interface name="orientation.x"/></sensor>',
            attributes='name="Imu" type="sensor"',
        )
    )
    assert info.type == 'sensor'
    assert info.sensors[0].state_interfaces[0].name == 'orientation.x'


# --- limits merged from the URDF and the interfaces ----------------------------------------
def test_position_limits_take_the_tighter_of_urdf_and_interface(infos: list[HardwareInfo]) -> None:
    # URDF [-1.5, 2.5], interface [-1.0, 1.0] -> [-1.0, 1.0]
    limits = infos[0].limits['joint1']
    assert limits.has_position_limits is True
    assert (limits.lower, limits.upper) == (-1.0, 1.0)
    assert (limits.min_position, limits.max_position) == (-1.0, 1.0)
    assert limits.velocity == pytest.approx(3.0, abs=1e-12)
    assert limits.effort == pytest.approx(40.0, abs=1e-12)
    assert limits.has_velocity_limits and limits.has_effort_limits


def test_velocity_limit_is_symmetric_and_tightest(infos: list[HardwareInfo]) -> None:
    # URDF |-6| = 6; interface min -2, max 5 -> min(|-2|, 5) = 2 -> min(2, 6) = 2
    limits = infos[0].limits['joint2']
    assert limits.max_velocity == pytest.approx(2.0, abs=1e-12)
    assert limits.has_velocity_limits is True
    # a continuous joint without interface position limits stays unbounded
    assert limits.has_position_limits is False
    assert (limits.lower, limits.upper) == (-math.inf, math.inf)
    assert limits.angle_wraparound is True


def test_disabled_position_limits_and_effort_max(infos: list[HardwareInfo]) -> None:
    limits = infos[0].limits['joint3']
    assert limits.has_position_limits is False
    assert (limits.lower, limits.upper) == (-math.inf, math.inf)
    # URDF effort 100, interface max 60 -> 60
    assert limits.max_effort == pytest.approx(60.0, abs=1e-12)


def test_joint_level_limits_disable_everything() -> None:
    (info,) = parse_control_resources_from_urdf(
        hardware(
            PLUGIN + '<joint name="joint1"><limits enable="false"/>'
            '<command_interface name="position"/><state_interface name="position"/></joint>'
        )
    )
    limits = info.limits['joint1']
    assert info.joints[0].enable_limits is False
    assert info.joints[0].command_interfaces[0].enable_limits is False
    assert not (limits.has_position_limits or limits.has_velocity_limits)
    assert not limits.has_effort_limits
    assert limits.velocity == math.inf


def test_acceleration_and_jerk_limits() -> None:
    (info,) = parse_control_resources_from_urdf(
        hardware(
            PLUGIN + '<joint name="joint1">'
            '<command_interface name="acceleration">'
            '<param name="min">-4</param><param name="max">3</param></command_interface>'
            '<command_interface name="jerk"><param name="max">-9</param></command_interface>'
            '</joint>'
        )
    )
    limits = info.limits['joint1']
    assert (limits.max_acceleration, limits.max_deceleration) == (3.0, 4.0)
    assert limits.has_acceleration_limits and limits.has_deceleration_limits
    assert (limits.max_jerk, limits.has_jerk_limits) == (9.0, True)


def test_soft_limits_clamped_to_position_limits(infos: list[HardwareInfo]) -> None:
    # soft [-2, 2] within hard [-1, 1] -> [-1, 1]
    soft = infos[0].soft_limits['joint1']
    assert (soft.min_position, soft.max_position) == (-1.0, 1.0)
    assert (soft.k_position, soft.k_velocity) == (10.0, 5.0)
    assert 'joint2' not in infos[0].soft_limits


def test_limits_without_urdf_joints_come_from_interfaces() -> None:
    urdf = (
        '<robot name="r"><ros2_control name="Hw" type="system">'
        + PLUGIN
        + '<joint name="anything"><command_interface name="position">'
        '<param name="min">-0.5</param></command_interface></joint></ros2_control></robot>'
    )
    (info,) = parse_control_resources_from_urdf(urdf)
    limits = info.limits['anything']
    assert (limits.lower, limits.upper, limits.has_position_limits) == (-0.5, math.inf, True)
    assert info.urdf_joints == {}


# --- mimic joints -------------------------------------------------------------------------
def test_mimic_joint_resolved(infos: list[HardwareInfo]) -> None:
    (mimic,) = infos[0].mimic_joints
    # finger_mimic (index 3) follows joint3 (index 2): q = 2.0 * q3 + 0.01
    assert (mimic.joint_index, mimic.mimicked_joint_index) == (3, 2)
    assert mimic.multiplier == pytest.approx(2.0, abs=1e-12)
    assert mimic.offset == pytest.approx(0.01, abs=1e-12)


def test_mimic_false_keeps_the_joint_commandable() -> None:
    (info,) = parse_control_resources_from_urdf(
        hardware(
            PLUGIN + '<joint name="joint3"><command_interface name="position"/></joint>'
            '<joint name="finger_mimic" mimic="false"><command_interface name="position"/>'
            '</joint>'
        )
    )
    assert info.joints[1].is_mimic is False
    assert info.mimic_joints == []


# --- errors -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ('urdf', 'message'),
    [
        ('', 'empty URDF'),
        ('<robot name="r"><link name="a"></robot>', 'not well-formed XML'),
        ('<model name="m"/>', 'root element is <model>'),
        (robot(), 'no <ros2_control> tag found'),
        (hardware('<joint name="joint1"/>'), "<ros2_control name='Hw'>: missing <hardware> tag"),
        (
            hardware('<hardware><param name="a">1</param></hardware>'),
            "<ros2_control name='Hw'>: <hardware> has no <plugin> tag",
        ),
        (hardware('<hardware><plugin> </plugin></hardware>'), '<hardware><plugin> is empty'),
        (
            hardware(PLUGIN + '<actuator name="a"/>'),
            "<ros2_control name='Hw'>: unknown tag <actuator>",
        ),
        (
            hardware(PLUGIN + '<joint name="joint1"><state_interfaces name="position"/></joint>'),
            "<joint name='joint1'>: unknown tag <state_interfaces>",
        ),
        (
            hardware('<hardware><plugin>p/P</plugin><parameter name="a">1</parameter></hardware>'),
            '<hardware>: unknown tag <parameter>',
        ),
        (
            hardware(PLUGIN + '<joint name="elbow"/>'),
            "<joint name='elbow'>: joint 'elbow' is not in the URDF",
        ),
        (
            hardware(PLUGIN, attributes='name="Hw" type="robot"'),
            "<ros2_control name='Hw'>: type 'robot' is not one of system, actuator, sensor",
        ),
        (hardware(PLUGIN, attributes='name="Hw"'), "<ros2_control name='Hw'>: missing 'type'"),
        (hardware(PLUGIN, attributes='type="system"'), "ros2_control tag: missing 'name'"),
        (
            hardware(PLUGIN, attributes='name="Hw" type="system" rw_rate="-5"'),
            "rw_rate='-5' is not a non-negative integer",
        ),
        (
            hardware(PLUGIN, attributes='name="Hw" type="system" is_async="yes"'),
            "is_async='yes' is not a boolean",
        ),
        (
            hardware(PLUGIN + '<joint name="joint1"><command_interface/></joint>'),
            "<joint name='joint1'> <command_interface>: missing 'name' attribute",
        ),
        (
            hardware(PLUGIN + '<gpio name="g"><state_interface name="s" size="0"/></gpio>'),
            "<state_interface name='s'>: size='0' is not a positive integer",
        ),
        (
            hardware(PLUGIN + '<gpio name="g"><state_interface name="s" data_type="str"/></gpio>'),
            "<state_interface name='s'>: data_type 'str' is not one of",
        ),
        (
            hardware(PLUGIN + '<joint name="joint1"><param>1</param></joint>'),
            "<joint name='joint1'>: <param> has no 'name' attribute",
        ),
        (
            hardware(
                PLUGIN + '<joint name="joint1"><command_interface name="position">'
                '<param name="max">one</param></command_interface></joint>'
            ),
            "<command_interface name='position'>: <param name='max'> 'one' is not a number",
        ),
        (
            hardware(PLUGIN + '<joint name="joint1"><limits/></joint>'),
            "<joint name='joint1'>: <limits> has no 'enable' attribute",
        ),
        (
            hardware(PLUGIN + '<joint name="base_to_sensor"/>'),
            "<joint name='base_to_sensor'>: the URDF joint is 'fixed'",
        ),
        (
            hardware(PLUGIN + '<joint name="joint1" mimic="true"/>'),
            '<joint name=\'joint1\'>: mimic="true" but the URDF joint has no <mimic>',
        ),
        (
            hardware(
                PLUGIN + '<joint name="joint3"/><joint name="finger_mimic">'
                '<command_interface name="position"/></joint>'
            ),
            "<joint name='finger_mimic'>: a mimic joint cannot have command interfaces",
        ),
        (
            hardware(PLUGIN + '<joint name="finger_mimic"/>'),
            "mimics joint 'joint3', which is not a <joint> of this <ros2_control> tag",
        ),
        (
            hardware(PLUGIN + '<joint name="joint1"/><joint name="joint1"/>'),
            "<joint name='joint1'> appears twice",
        ),
        (
            hardware(PLUGIN + '<transmission name="t"><joint name="joint1"/></transmission>'),
            "<transmission name='t'>: missing or empty <plugin> tag",
        ),
        (
            hardware(
                PLUGIN + '<transmission name="t"><plugin>transmission_interface/Simple</plugin>'
                '<joint name="joint1" role="j"/></transmission>'
            ),
            "<transmission name='t'> uses joint 'joint1', which is not a <joint>",
        ),
        (
            robot(
                '<ros2_control name="Hw" type="system">' + PLUGIN + '</ros2_control>',
                joints='<joint name="j" type="hinge"><parent link="l0"/><child link="l1"/></joint>',
            ),
            "invalid URDF: joint 'j': type 'hinge' is not one of",
        ),
    ],
)
def test_errors_name_the_fault(urdf: str, message: str) -> None:
    with pytest.raises(ComponentParserError) as caught:
        parse_control_resources_from_urdf(urdf)
    assert message in str(caught.value)


def test_parser_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match='no <ros2_control> tag found'):
        parse_control_resources_from_urdf(robot())


# --- transmissions and SDF ----------------------------------------------------------------
def test_transmission_names_and_plugin() -> None:
    (info,) = parse_control_resources_from_urdf(
        hardware(
            PLUGIN + '<joint name="joint1"><command_interface name="position"/></joint>'
            '<transmission name="t1"><plugin>transmission_interface/SimpleTransmission</plugin>'
            '<joint name="joint1" role="joint1"><mechanical_reduction>50</mechanical_reduction>'
            '</joint><actuator name="motor1" role="actuator1"/>'
            '<param name="note">geared</param></transmission>'
        )
    )
    (transmission,) = info.transmissions
    assert transmission.name == 't1'
    assert transmission.plugin == 'transmission_interface/SimpleTransmission'
    assert [j.name for j in transmission.joints] == ['joint1']
    assert [a.name for a in transmission.actuators] == ['motor1']
    assert transmission.parameters == {'note': 'geared'}


def test_sdf_model_root() -> None:
    sdf = (
        '<sdf version="1.7"><model name="m"><ros2_control name="Hw" type="system">'
        + PLUGIN
        + '<joint name="wheel"><state_interface name="velocity"/></joint>'
        '</ros2_control></model></sdf>'
    )
    (info,) = parse_control_resources_from_urdf(sdf)
    assert [j.name for j in info.joints] == ['wheel']
