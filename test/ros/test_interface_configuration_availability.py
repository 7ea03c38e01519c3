"""A controller asking for ALL, INDIVIDUAL_BEST_EFFORT or REGEX interfaces gets those that
are available at its activation, as upstream: a component not yet configured is left out
(ros2_control_demos' example 13 brings a joint state broadcaster up beside one)."""

from rclpy.parameter import Parameter

from py_controllers import plugins
from py_controllers.controller_interface.controller_interface import (
    ControllerInterface,
    InterfaceConfiguration,
)
from py_controllers.controller_interface.interface_configuration import InterfaceConfigurationType
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.testing import RosHarness, SteppedManager


def mock_system(name, joint):
    return f"""
  <ros2_control name="{name}" type="system">
    <hardware><plugin>mock_components/GenericSystem</plugin></hardware>
    <joint name="{joint}">
      <command_interface name="position"/>
      <state_interface name="position"><param name="initial_value">0.0</param></state_interface>
    </joint>
  </ros2_control>"""


URDF = f"""<robot name="two">
  <link name="base"/><link name="a"/><link name="b"/>
  <joint name="ja" type="revolute"><parent link="base"/><child link="a"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="jb" type="revolute"><parent link="base"/><child link="b"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  {mock_system('A', 'ja')}{mock_system('B', 'jb')}
</robot>"""


class Reader(ControllerInterface):
    """Reads what `kind` (a class attribute set per test) resolves to, claims nothing."""

    kind = InterfaceConfigurationType.ALL
    names: list[str] = []

    def state_interface_configuration(self):
        return InterfaceConfiguration(self.kind, list(self.names))


def run(kind, names=()):
    Reader.kind, Reader.names = kind, list(names)
    plugins.register(plugins.CONTROLLERS_GROUP, 'test/Reader', Reader)
    with RosHarness('availability') as harness:
        stepped = SteppedManager(harness, URDF)
        try:
            manager = stepped.manager
            assert manager.rm.set_component_state('B', LifecycleStateId.UNCONFIGURED)
            manager.node.set_parameters([Parameter('reader.type', value='test/Reader')])
            (reader,) = stepped.start('reader')
            stepped.step(2)
            return sorted(h.name for h in reader.state_interfaces)
        finally:
            stepped.shutdown()


def test_all_takes_the_available_state_interfaces():
    assert run(InterfaceConfigurationType.ALL) == ['ja/position']


def test_best_effort_and_regex_leave_out_what_is_not_available():
    both = ['ja/position', 'jb/position']
    assert run(InterfaceConfigurationType.INDIVIDUAL_BEST_EFFORT, both) == ['ja/position']
    assert run(InterfaceConfigurationType.REGEX, ['j./position']) == ['ja/position']
