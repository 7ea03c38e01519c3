"""The example in examples/custom_controller is found by its type name through its entry
point and runs in the manager like any built-in controller."""

import math

from rclpy.parameter import Parameter

from py_controllers import plugins
from py_controllers.controller_interface.controller_interface import ControllerInterface
from py_controllers.controller_manager.node import ControllerManagerRuntime
from py_controllers.testing import CONFIG, RosHarness

TYPE = 'example_controllers/SineController'


def test_example_is_registered_by_entry_point():
    assert TYPE in plugins.available(plugins.CONTROLLERS_GROUP)
    cls = plugins.load(plugins.CONTROLLERS_GROUP, TYPE, ControllerInterface)
    assert cls.__name__ == 'SineController'


def test_example_moves_joints_around_their_start():
    harness = RosHarness('example_controller')
    node = ControllerManagerRuntime(
        harness.executor,
        context=harness.context,
        parameter_overrides=[
            Parameter('robot_description', value=(CONFIG / 'minimal_robot.urdf').read_text()),
            Parameter('sine.type', value=TYPE),
        ],
    )
    try:
        manager = node.manager
        assert manager.load_controller('sine')[0]
        ctrl = manager.controllers['sine'].controller
        ctrl.get_node().set_parameters(
            [Parameter('joints', value=['joint1', 'joint3']), Parameter('amplitude', value=0.3)]
        )
        assert manager.configure_controller('sine')[0]
        assert manager.switch_controller(['sine'], [], 2)[0]
        joint1 = manager.rm.state_interfaces['joint1/position']
        assert harness.spin_until(lambda: ctrl.elapsed_s > 0.3)
        with manager.cycle_lock:
            expected = 0.3 * math.sin(2.0 * math.pi * 0.5 * ctrl.elapsed_s)
            commanded = manager.rm.command_interfaces['joint1/position'].value
        assert commanded == expected  # start position 0
        assert abs(joint1.value) <= 0.3 + 1e-12
        assert manager.rm.claimed['joint3/position'] == 'sine'
    finally:
        node.shutdown()
        harness.close()
