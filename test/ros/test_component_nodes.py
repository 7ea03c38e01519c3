"""Hardware components' own ROS entities (component_nodes.py): a node only when asked for,
an executor always, ~/hardware_status at status_publish_rate shaped by the component, a bad
rate refused."""

from control_msgs.msg import HardwareDeviceStatus, HardwareStatus
from rclpy.node import Node
from std_msgs.msg import String

from py_controllers import plugins
from py_controllers.hardware.mock_generic_system import GenericSystem
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from py_controllers.testing import RosHarness, SteppedManager


def urdf(plugin, rate=None):
    param = f'<param name="status_publish_rate">{rate}</param>' if rate is not None else ''
    return f"""<robot name="r"><link name="a"/><link name="b"/>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <ros2_control name="My/Arm" type="system">
    <hardware><plugin>{plugin}</plugin>{param}</hardware>
    <joint name="j"><command_interface name="position"/>
      <state_interface name="position"><param name="initial_value">0.25</param></state_interface>
    </joint>
  </ros2_control></robot>"""


class Plain(GenericSystem):
    """Asks for nothing."""


class Reporting(GenericSystem):
    """One device whose detail is the joint's position; `fail` makes the update fail."""

    fail = False

    def init_hardware_status_message(self, msg_template):
        msg_template.hardware_id = self.get_hardware_info().name
        msg_template.hardware_device_states = [HardwareDeviceStatus(device_id='j')]
        return CallbackReturn.SUCCESS

    def update_hardware_status_message(self, msg):
        if self.fail:
            return ReturnType.ERROR
        msg.hardware_device_states[0].header.frame_id = str(self.get_state('j/position'))
        return ReturnType.OK


class Silent(GenericSystem):
    """A rate, but no device in its status message."""


for cls in (Plain, Reporting, Silent):
    plugins.register(plugins.HARDWARE_GROUP, f'test/{cls.__name__}', cls)


def start(harness, description):
    stepped = SteppedManager(harness, description)
    (managed,) = stepped.manager.rm.components.values()
    return stepped, managed.component


def test_a_component_gets_a_node_only_when_it_asks():
    with RosHarness('component_nodes') as harness:
        stepped, component = start(harness, urdf('test/Plain'))
        try:
            assert component.get_node() is None
            assert component.executor.context is harness.context
            # a node of its own joins the executors, and leaves with the manager
            mine = Node('mine', context=component.executor.context)
            component.executor.add_node(mine)
            pub = mine.create_publisher(String, 'mine_topic', 10)
            got = harness.subscribe(String, '/mine_topic')
            assert harness.spin_until(lambda: pub.publish(String(data='x')) or bool(got))
        finally:
            stepped.shutdown()
        assert mine not in harness.executor.get_nodes()


def test_hardware_status_is_published_at_the_rate_with_the_components_fields():
    with RosHarness('component_status') as harness:
        status = harness.subscribe(HardwareStatus, '/my_arm/hardware_status')
        stepped, component = start(harness, urdf('test/Reporting', rate=20))
        try:
            assert component.get_node().get_fully_qualified_name() == '/my_arm'
            assert harness.spin_for_messages(status, 2)
            msg = status[-1]
            assert msg.hardware_id == 'My/Arm'
            assert msg.hardware_device_states[0].header.frame_id == '0.25'
            assert msg.header.stamp.sec > 0
            # a failing update publishes nothing
            Reporting.fail = True
            seen = len(status)
            harness.spin_until(lambda: False, timeout_s=0.5)
            assert len(status) <= seen + 1  # at most one already on its way
        finally:
            Reporting.fail = False
            stepped.shutdown()


def test_a_status_without_devices_is_not_published():
    with RosHarness('component_silent') as harness:
        stepped, component = start(harness, urdf('test/Silent', rate=20))
        try:
            assert component.get_node() is not None
            harness.spin_until(lambda: False, timeout_s=0.3)
            assert harness.node.count_publishers('/my_arm/hardware_status') == 0
        finally:
            stepped.shutdown()


def test_a_rate_that_is_not_a_number_refuses_the_description():
    with RosHarness('component_bad_rate') as harness:
        rosout = harness.subscribe_rosout()
        try:
            SteppedManager(harness, urdf('test/Reporting', rate='fast'))
        except AssertionError as exc:
            assert 'robot description refused' in str(exc)
        else:
            raise AssertionError('a rate of "fast" was taken')
        rosout.wait_for(
            harness.spin_until, "'status_publish_rate' must be a number of Hz >= 0, got 'fast'"
        )
