"""A tiny System component with a `<transmission>` in its URDF, run by the manager in
stepped cycles: a forward position controller commands the joint, ComponentTransmissions
turns it into the motor command and the motor's reading back into the joint state."""

import math

import pytest
from std_msgs.msg import Float64MultiArray

from py_controllers import plugins
from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from py_controllers.testing import RosHarness, SteppedManager
from py_controllers.transmission_interface import ComponentTransmissions


class GearedServoSystem(SystemInterface):
    """Each motor reaches its position command by the next read (a perfect servo); the
    gears between motor and joint are the URDF's `<transmission>`s."""

    def on_init(self, info):
        if super().on_init(info) != CallbackReturn.SUCCESS:
            return CallbackReturn.ERROR
        self.gears = ComponentTransmissions(info)
        self.motors = {}  # the device: motor name -> position
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state):
        self.gears.configure(self.state_interfaces, self.command_interfaces)
        self.motors = {name: 0.0 for name in self.gears.actuator_states}
        self.read(None, None)
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state):
        for name, handle in self.command_interfaces.items():
            handle.value = self.get_state(name)
        return CallbackReturn.SUCCESS

    def read(self, time, period):
        for name, handle in self.gears.actuator_states.items():
            handle.value = self.motors[name]
        self.gears.actuator_to_joint()
        return ReturnType.OK

    def write(self, time, period):
        self.gears.joint_to_actuator()
        for name, handle in self.gears.actuator_commands.items():
            self.motors[name] = handle.value
        return ReturnType.OK


plugins.register(plugins.HARDWARE_GROUP, 'test/GearedServoSystem', GearedServoSystem)

URDF = """<?xml version="1.0"?>
<robot name="geared">
  <link name="base"/><link name="arm"/><link name="hand"/>
  <joint name="joint1" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" velocity="10" effort="10"/>
  </joint>
  <joint name="joint2" type="revolute">
    <parent link="arm"/><child link="hand"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" velocity="10" effort="10"/>
  </joint>
  <ros2_control name="GearedArm" type="system">
    <hardware><plugin>test/GearedServoSystem</plugin></hardware>
    <joint name="joint1">
      <command_interface name="position"/><state_interface name="position"/>
    </joint>
    <joint name="joint2">
      <command_interface name="position"/><state_interface name="position"/>
    </joint>
    <transmission name="transmission1">
      <plugin>transmission_interface/SimpleTransmission</plugin>
      <actuator name="actuator1" role="actuator1"/>
      <joint name="joint1" role="joint1"><mechanical_reduction>2.0</mechanical_reduction></joint>
    </transmission>
    <transmission name="transmission2">
      <plugin>transmission_interface/SimpleTransmission</plugin>
      <actuator name="actuator2" role="actuator2"/>
      <joint name="joint2" role="joint2">
        <mechanical_reduction>-4.0</mechanical_reduction><offset>0.5</offset>
      </joint>
    </transmission>
  </ros2_control>
</robot>
"""

PARAMS = """
controller_manager:
  ros__parameters:
    update_rate: 100
    forward_position_controller:
      type: forward_command_controller/ForwardCommandController
forward_position_controller:
  ros__parameters:
    joints: [joint1, joint2]
    interface_name: position
"""


@pytest.fixture
def cm(tmp_path):
    params = tmp_path / 'geared.yaml'
    params.write_text(PARAMS)
    harness = RosHarness('geared', args=['--ros-args', '--params-file', str(params)])
    manager = SteppedManager(harness, URDF)
    yield manager
    manager.shutdown()
    harness.close()


def test_joint_commands_reach_the_motors_through_the_gears(cm):
    component = cm.manager.rm.components['GearedArm'].component
    cm.step()
    # motors at 0: joint1 = 0 / 2, joint2 = 0 / -4 + 0.5
    assert (cm.state('joint1/position'), cm.state('joint2/position')) == (0.0, 0.5)
    cm.start('forward_position_controller')
    command = Float64MultiArray(data=[1.0, 0.25])
    cm.send_until(
        '/forward_position_controller/commands',
        Float64MultiArray,
        command,
        lambda: component.motors['actuator1/position'] == 2.0,
    )
    # joint -> actuator: 1.0 rad * 2 = 2.0; (0.25 - 0.5) * -4 = 1.0
    assert component.motors == {'actuator1/position': 2.0, 'actuator2/position': 1.0}
    cm.step()  # the motors' readings come back through the gears
    assert (cm.state('joint1/position'), cm.state('joint2/position')) == (1.0, 0.25)
    assert not any(math.isnan(v) for v in component.motors.values())
