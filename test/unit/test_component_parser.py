"""The `<ros2_control>` URDF parser and the URDF joint model."""

from __future__ import annotations

import math

import pytest

from py_controllers.hardware_interface.component_info import HardwareInfo
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.errors import ComponentParserError, UrdfError
from py_controllers.hardware_interface.urdf import Mimic, parse_urdf, parse_urdf_joints

LINKS = ''.join(f'<link name="l{i}"/>' for i in range(6))

JOINTS = """
  <joint name="joint1" type="revolute">
    <parent link="l0"/><child link="l1"/>
    <origin xyz="0 0 0.1" rpy="0 0 1.5"/><axis xyz="0 0 1"/>
    <limit lower="-1.5" upper="2.5" velocity="3.0" effort="40"/>
    <safety_controller soft_lower_limit="-2.0" soft_upper_limit="2.0" k_position="10"
                       k_velocity="5"/>
  </joint>
  <joint name="joint2" type="continuous">
    <parent link="l1"/><child link="l2"/>
    <limit lower="-1" upper="1" velocity="-6.0" effort="7"/>
  </joint>
  <joint name="joint3" type="prismatic">
    <parent link="l2"/><child link="l3"/><axis xyz="1 0 0"/>
    <limit lower="0.0" upper="0.4" velocity="0.2" effort="100"/>
  </joint>
  <joint name="finger_mimic" type="prismatic">
    <parent link="l3"/><child link="l4"/>
    <limit lower="0.0" upper="0.8" velocity="0.4" effort="100"/>
    <mimic joint="joint3" multiplier="2.0" offset="0.01"/>
  </joint>
  <joint name="base_to_sensor" type="fixed">
    <parent link="l0"/><child link="l5"/>
  </joint>
"""

SYSTEM = """
  <ros2_control name="Arm" type="system">
    <hardware>
      <plugin>mock_components/GenericSystem</plugin>
      <group>arm_group</group>
      <param name="calculate_dynamics">true</param>
      <param name="port"> /dev/ttyUSB0 </param>
    </hardware>
    <joint name="joint1">
      <command_interface name="position">
        <param name="min">-1.0</param>
        <param name="max">1.0</param>
      </command_interface>
      <state_interface name="position"><param name="initial_value">0.25</param></state_interface>
      <state_interface name="velocity"/>
      <param name="gear">3</param>
    </joint>
    <joint name="joint2">
      <command_interface name="position"/>
      <command_interface name="velocity">
        <param name="min">-2.0</param><param name="max">5.0</param>
      </command_interface>
      <state_interface name="position"><param name="initial_value">-0.5</param></state_interface>
      <state_interface name="velocity"><param name="initial_value">0.0</param></state_interface>
    </joint>
    <joint name="joint3">
      <command_interface name="position"><limits enable="false"/></command_interface>
      <command_interface name="effort"><param name="max">60</param></command_interface>
      <state_interface name="position"><param name="initial_value">0.1</param></state_interface>
      <state_interface name="velocity"/>
    </joint>
    <joint name="finger_mimic">
      <state_interface name="position"/>
    </joint>
    <sensor name="ft_sensor">
      <state_interface name="force.x"/>
      <state_interface name="force.y"/>
      <state_interface name="force.z"/>
      <state_interface name="torque.x"/>
      <state_interface name="torque.y"/>
      <state_interface name="torque.z"/>
      <param name="frame_id">tool0</param>
    </sensor>
    <gpio name="flange_io">
      <command_interface name="digital_out" data_type="bool"/>
      <command_interface name="analog_out" size="2">
        <param name="address">17</param>
      </command_interface>
      <state_interface name="digital_in" data_type="bool"/>
      <param name="bus">can0</param>
    </gpio>
  </ros2_control>
"""

ACTUATOR = """
  <ros2_control name="Gripper" type="actuator" is_async="true" rw_rate="50"
                thread_priority="70">
    <hardware>
      <plugin>my_pkg/GripperActuator</plugin>
      <param name="can_id">12</param>
    </hardware>
    <properties>
      <async affinity="[2, 3]" scheduling_policy="FIFO" print_warnings="False"/>
    </properties>
  </ros2_control>
"""


def robot(*parts: str, joints: str = JOINTS) -> str:
    """A `<robot>` holding LINKS, `joints` and the given extra XML parts."""
    return (
        f'<?xml version="1.0"?>\n<robot name="test_robot">{LINKS}{joints}{"".join(parts)}</robot>'
    )


def hardware(body: str, *, attributes: str = 'name="Hw" type="system"') -> str:
    """A robot with one `<ros2_control>` tag around `body`."""
    return robot(f'<ros2_control {attributes}>{body}</ros2_control>')


PLUGIN = '<hardware><plugin>mock_components/GenericSystem</plugin></hardware>'


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
    assert (transmission.joints, transmission.actuators) == (['joint1'], ['motor1'])
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


# --- the URDF joint model -----------------------------------------------------------------
def test_urdf_joints_in_document_order() -> None:
    model = parse_urdf(robot())
    assert model.name == 'test_robot'
    expected = ['joint1', 'joint2', 'joint3', 'finger_mimic', 'base_to_sensor']
    assert model.joint_names == expected
    assert list(parse_urdf_joints(robot())) == expected
    assert model.links == ['l0', 'l1', 'l2', 'l3', 'l4', 'l5']


def test_urdf_revolute_joint() -> None:
    joint = parse_urdf_joints(robot())['joint1']
    assert (joint.type, joint.parent, joint.child) == ('revolute', 'l0', 'l1')
    assert joint.axis == (0.0, 0.0, 1.0)
    assert joint.origin_xyz == (0.0, 0.0, 0.1)
    assert joint.origin_rpy == (0.0, 0.0, 1.5)
    limits = joint.limits
    assert (limits.lower, limits.upper, limits.velocity, limits.effort) == (-1.5, 2.5, 3.0, 40.0)
    assert limits.has_position_limits is True
    assert joint.mimic is None
    assert joint.is_movable is True


def test_urdf_continuous_joint_has_no_position_limits() -> None:
    joint = parse_urdf_joints(robot())['joint2']
    assert joint.type == 'continuous'
    # lower/upper in the URDF are ignored; velocity is a magnitude: |-6| = 6
    assert joint.limits.has_position_limits is False
    assert (joint.limits.lower, joint.limits.upper) == (-math.inf, math.inf)
    assert joint.limits.velocity == pytest.approx(6.0, abs=1e-12)
    assert joint.limits.angle_wraparound is True
    assert joint.axis == (1.0, 0.0, 0.0)  # URDF default axis


def test_urdf_prismatic_and_mimic_joints() -> None:
    joints = parse_urdf_joints(robot())
    prismatic = joints['joint3']
    assert prismatic.type == 'prismatic'
    assert (prismatic.limits.lower, prismatic.limits.upper) == (0.0, 0.4)
    assert prismatic.limits.velocity == pytest.approx(0.2, abs=1e-12)
    assert joints['finger_mimic'].mimic == Mimic('joint3', 2.0, 0.01)
    assert joints['base_to_sensor'].type == 'fixed'
    assert joints['base_to_sensor'].is_movable is False


def test_urdf_mimic_defaults() -> None:
    joints = parse_urdf_joints(
        robot(
            joints='<joint name="a" type="revolute"><parent link="l0"/><child link="l1"/>'
            '<limit lower="-1" upper="1" velocity="1" effort="1"/></joint>'
            '<joint name="b" type="revolute"><parent link="l1"/><child link="l2"/>'
            '<limit lower="-1" upper="1" velocity="1" effort="1"/><mimic joint="a"/></joint>'
        )
    )
    assert joints['b'].mimic == Mimic('a', 1.0, 0.0)


def test_urdf_joints_inside_ros2_control_are_not_urdf_joints() -> None:
    joints = parse_urdf_joints(robot(SYSTEM))
    assert 'ft_sensor' not in joints
    assert len(joints) == 5


def test_urdf_revolute_without_limit_tag_is_unbounded() -> None:
    joint = parse_urdf_joints(
        robot(
            joints='<joint name="a" type="revolute"><parent link="l0"/><child link="l1"/></joint>'
        )
    )['a']
    assert joint.limits.has_position_limits is False
    assert joint.limits.has_velocity_limits is False


@pytest.mark.parametrize(
    ('joints', 'message'),
    [
        ('<joint type="fixed"><parent link="l0"/><child link="l1"/></joint>', "no 'name'"),
        ('<joint name="a" type="ball"><parent link="l0"/><child link="l1"/></joint>', 'ball'),
        ('<joint name="a" type="fixed"><child link="l1"/></joint>', 'missing <parent'),
        (
            '<joint name="a" type="revolute"><parent link="l0"/><child link="l1"/>'
            '<limit lower="x" upper="1"/></joint>',
            "joint 'a': limit lower 'x' is not a finite number",
        ),
        (
            '<joint name="a" type="revolute"><parent link="l0"/><child link="l1"/>'
            '<axis xyz="0 1"/></joint>',
            "joint 'a': axis xyz '0 1' needs three numbers",
        ),
        (
            '<joint name="a" type="revolute"><parent link="l0"/><child link="l1"/>'
            '<mimic multiplier="2"/></joint>',
            "joint 'a': <mimic> has no 'joint' attribute",
        ),
        (
            '<joint name="a" type="fixed"><parent link="l0"/><child link="l1"/></joint>' * 2,
            "joint 'a' is defined twice",
        ),
    ],
)
def test_urdf_errors(joints: str, message: str) -> None:
    with pytest.raises(UrdfError) as caught:
        parse_urdf(robot(joints=joints))
    assert message in str(caught.value)


def test_urdf_root_must_be_robot() -> None:
    with pytest.raises(UrdfError, match='expected <robot>'):
        parse_urdf('<sdf/>')


def test_safety_controller_needs_k_velocity() -> None:
    urdf = (
        '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute">'
        '<parent link="a"/><child link="b"/><limit lower="-1" upper="1" velocity="1" effort="1"/>'
        '<safety_controller soft_lower_limit="-0.5" soft_upper_limit="0.5" k_position="10"/>'
        '</joint></robot>'
    )
    with pytest.raises(UrdfError, match="joint 'j': <safety_controller> has no k_velocity"):
        parse_urdf_joints(urdf)
