"""Finite inputs that overflow the PID controllers never become a non-finite command.

pid_controller (p = 4 on tool_joint, a velocity command, limits 3 rad/s) in a stepped
manager: a reference whose product with a gain overflows is refused at ~/reference; one that
is accepted (p = 1) but winds the integral up past max float saturates instead of writing inf
(which the command guard would answer by deactivating the controller). What the hardware got
is recorded at its write().
"""

import math
import sys

import pytest
from control_msgs.msg import MultiDOFCommand
from rclpy.parameter import Parameter

from py_controllers import plugins
from py_controllers.controllers.pid_controller.controller import PidController
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.hardware_interface.types import LifecycleStateId as S
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

URDF = CONFIG / 'pid_joint_robot.urdf'
PARAMS = CONFIG / 'pid_controllers.yaml'
TOPIC = '/pid_controller/reference'
MAX = sys.float_info.max

plugins.register(plugins.HARDWARE_GROUP, 'py_controllers/SimulatedSystem', SimulatedSystem)
plugins.register(plugins.CONTROLLERS_GROUP, 'pid_controller/PidController', PidController)


@pytest.fixture
def cm():
    harness = RosHarness('pid_overflow', args=['--ros-args', '--params-file', str(PARAMS)])
    stepped = SteppedManager(harness, URDF.read_text())
    yield stepped
    stepped.shutdown()
    harness.close()


def reference(value):
    return MultiDOFCommand(dof_names=['tool_joint'], values=[value])


def record_writes(cm, interface):
    """Every value of `interface` the component's write() got."""
    component = cm.manager.rm.components['PidJointRobot'].component
    seen = []
    original = component.write

    def write(time, period):
        seen.append(component.command_interfaces[interface].value)
        return original(time, period)

    component.write = write
    return seen


def test_a_reference_that_overflows_p_is_refused(cm):
    rosout = cm.harness.subscribe_rosout()
    (pid,) = cm.start('pid_controller')
    cm.send(TOPIC, MultiDOFCommand, reference(0.5), lambda: pid.reference_box.get() is not None)
    cm.step(50)
    kept = pid.reference_box.get()
    assert pid.reference_interfaces[0].value == 0.5

    def refused():
        cm.publish(TOPIC, MultiDOFCommand, reference(1e308))
        cm.step(1)
        return rosout.has('reference rejected: tool_joint: p 4.0 times 1e+308 overflows')

    # 4 * 1e308 overflows: the message is dropped, the reference stays
    assert cm.harness.spin_until(refused), [m.msg for m in rosout]
    # by value: a late copy of the first reference (`send` may publish it more than once)
    # replaces the box's content with an equal one
    assert pid.reference_box.get() == kept
    cm.step(5)
    assert pid.reference_interfaces[0].value == 0.5
    assert cm.manager.state_of('pid_controller') == S.ACTIVE
    assert math.isfinite(cm.command('tool_joint/velocity'))


def test_an_accepted_huge_reference_saturates_and_the_controller_stays_active(cm):
    (pid,) = cm.load('pid_controller')
    node = pid.get_node()
    results = node.set_parameters(
        [Parameter('gains.tool_joint.p', value=1.0), Parameter('gains.tool_joint.i', value=1.0)]
    )
    assert all(r.successful for r in results), results
    ok, msg = cm.manager.switch_controller(['pid_controller'], [], 2)
    assert ok, msg
    cm.step(1)  # the loop takes the new gains
    writes = record_writes(cm, 'tool_joint/velocity')
    # p 1 * 1e308 is finite: accepted
    cm.send(TOPIC, MultiDOFCommand, reference(1e308), lambda: pid.reference_box.get() is not None)
    # i dt e = 1e306 a cycle: the integral passes max float after about 180 cycles
    cm.step(300)
    assert cm.manager.state_of('pid_controller') == S.ACTIVE
    assert pid.reference_interfaces[0].value == 1e308
    _, i_term, _ = pid.dofs[0].pid.get_current_pid_errors()
    assert i_term == MAX
    assert pid.dofs[0].pid.get_current_cmd() == MAX
    assert len(writes) == 300
    assert all(math.isfinite(v) for v in writes), [v for v in writes if not math.isfinite(v)]
    # the limiters take over: 3 rad/s until the joint reaches its upper limit, then 0
    assert max(writes) == 3.0
    assert writes[-1] == 0.0
    assert cm.state('tool_joint/position') == pytest.approx(3.0, abs=0.05)
