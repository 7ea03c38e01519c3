"""URDF documents shared by the parser tests: six links, a joint of each kind and two
`<ros2_control>` tags."""

from __future__ import annotations

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
