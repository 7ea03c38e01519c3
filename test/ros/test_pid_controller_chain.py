"""pid_controller/PidController standalone and chained behind a ForwardCommandController.

The manager runs in-process with its loop thread stopped; the tests step read -> update ->
write with a fixed 10 ms period. References go in over ~/reference (or the forwarder's
~/commands), the feed-forward switch over the real ~/set_feedforward_control service.
"""

import pytest
from control_msgs.msg import MultiDOFCommand, MultiDOFStateStamped, PidState
from rclpy.parameter import Parameter
from rclpy.qos import qos_profile_sensor_data
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import SetBool

from py_controllers import plugins
from py_controllers.controllers.pid_controller.controller import PidController
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

URDF = CONFIG / 'pid_joint_robot.urdf'
PARAMS = CONFIG / 'pid_controllers.yaml'

# registered here so the tests do not depend on installed entry points
plugins.register(plugins.HARDWARE_GROUP, 'py_controllers/SimulatedSystem', SimulatedSystem)
plugins.register(plugins.CONTROLLERS_GROUP, 'pid_controller/PidController', PidController)


@pytest.fixture
def cm():
    harness = RosHarness('pid_chain', args=['--ros-args', '--params-file', str(PARAMS)])
    stepped = SteppedManager(harness, URDF.read_text())
    yield stepped
    stepped.node.shutdown()
    harness.close()


def reference(values, values_dot=(), names=('tool_joint',)):
    return MultiDOFCommand(dof_names=list(names), values=list(values), values_dot=list(values_dot))


def holds(box, values, values_dot=None):
    """A predicate: `box` (reference or measured state) holds these values."""

    def check():
        got = box.get()
        return (
            got is not None
            and got[0] == tuple(values)
            and (values_dot is None or got[1] == tuple(values_dot))
        )

    return check


def test_standalone_tracks_reference_and_publishes_state(cm):
    (pid,) = cm.load('pid_controller')
    states = cm.harness.subscribe(MultiDOFStateStamped, '/pid_controller/controller_state')
    ok, msg = cm.manager.switch_controller(['pid_controller'], [], 2)
    assert ok, msg
    assert not pid.is_in_chained_mode()
    # the first reference is the current state: nothing moves
    cm.step(5)
    assert cm.state('pid_controller/tool_joint/position') == 0.0
    assert cm.command('tool_joint/velocity') == pytest.approx(0.0, abs=1e-12)

    topic = '/pid_controller/reference'
    cm.send(topic, MultiDOFCommand, reference([0.5]), holds(pid.reference_box, [0.5]))
    cm.step(1)
    # p = 4, error 0.5: velocity command 2.0 in the first cycle
    assert cm.command('tool_joint/velocity') == pytest.approx(2.0)
    cm.step(300)
    position = cm.state('tool_joint/position')
    assert position == pytest.approx(0.5, abs=1e-3)
    # the exported state interface mirrors the measured state
    assert cm.state('pid_controller/tool_joint/position') == position

    def settled_state_received():
        cm.step(1)
        return bool(states) and states[-1].dof_states[0].feedback == pytest.approx(0.5, abs=1e-3)

    assert cm.harness.spin_until(settled_state_received)
    dof = states[-1].dof_states[0]
    assert dof.name == 'tool_joint'
    assert dof.reference == 0.5
    assert dof.error == pytest.approx(0.5 - dof.feedback)
    assert dof.output == pytest.approx(4.0 * dof.error)
    assert dof.time_step == pytest.approx(0.01)

    # names may be left out (values in dof order)
    cm.send(topic, MultiDOFCommand, reference([0.2], names=()), holds(pid.reference_box, [0.2]))
    cm.step(300)
    assert cm.state('tool_joint/position') == pytest.approx(0.2, abs=1e-3)

    # gains through the parameter interface: the next cycle uses p = 2
    result = pid.get_node().set_parameters([Parameter('gains.tool_joint.p', value=2.0)])
    assert result[0].successful, result[0].reason
    cm.send(topic, MultiDOFCommand, reference([0.6]), holds(pid.reference_box, [0.6]))
    cm.step(1)
    measured = cm.state('pid_controller/tool_joint/position')
    assert cm.command('tool_joint/velocity') == pytest.approx(2.0 * (0.6 - measured))


def test_reference_with_unknown_dof_names_is_rejected(cm, capfd):
    (pid,) = cm.start('pid_controller')
    topic = '/pid_controller/reference'
    cm.send(topic, MultiDOFCommand, reference([0.5]), holds(pid.reference_box, [0.5]))
    cm.step(300)
    kept = pid.reference_box.get()
    reference_interface = pid.reference_interfaces[0]
    assert reference_interface.value == 0.5
    # ~/reference is best effort, depth 1: publish until the controller says it rejected
    # the message, running a cycle after each callback and recording what it holds
    line = "reference rejected: unknown dof names ['nope']"
    bad = reference([9.0], names=['nope'])
    err, trace = [], []

    def rejected():
        cm.publish(topic, MultiDOFCommand, bad)
        cm.step(1)
        trace.append((pid.reference_box.get(), reference_interface.value))
        err.append(capfd.readouterr().err)
        return line in ''.join(err) or trace[-1] != (kept, 0.5)

    assert cm.harness.spin_until(rejected)
    for _ in range(5):  # copies still queued are taken and rejected too
        cm.harness.executor.spin_once(timeout_sec=0.0)
        cm.step(1)
        trace.append((pid.reference_box.get(), reference_interface.value))
    # unchanged: the very tuple kept (its NaN values_dot compare equal by identity)
    assert trace == [(kept, 0.5)] * len(trace)
    assert line in ''.join(err), ''.join(err)
    assert cm.state('tool_joint/position') == pytest.approx(0.5, abs=1e-3)

    cm.send(topic, MultiDOFCommand, reference([0.2]), holds(pid.reference_box, [0.2]))
    cm.step(1)
    assert reference_interface.value == 0.2


def test_two_interfaces_feedforward_and_its_service(cm):
    (pid,) = cm.load('pid_controller_dual')
    ok, msg = cm.manager.switch_controller(['pid_controller_dual'], [], 2)
    assert ok, msg
    cm.step(2)
    here = cm.state('slider_joint/position')
    cm.send(
        '/pid_controller_dual/reference',
        MultiDOFCommand,
        reference([here], [0.1], names=['slider_joint']),
        holds(pid.reference_box, [here], [0.1]),
    )
    cm.step(1)
    # error 0, error_dot 0.1 - 0 -> p*0 + d*0.1 = 0.05; feed-forward 1.0 * 0.1 -> 0.15
    assert cm.command('slider_joint/velocity') == pytest.approx(0.15)

    client = cm.harness.node.create_client(SetBool, '/pid_controller_dual/set_feedforward_control')
    assert client.wait_for_service(timeout_sec=10.0)
    future = client.call_async(SetBool.Request(data=False))
    assert cm.harness.spin_until(future.done)
    assert future.result().success
    assert pid.feedforward_enabled is False
    cm.step(1)
    # the exported state interfaces hold what the controller measured in that cycle
    measured = cm.state('pid_controller_dual/slider_joint/position')
    measured_dot = cm.state('pid_controller_dual/slider_joint/velocity')
    expected = 2.0 * (here - measured) + 0.5 * (0.1 - measured_dot)  # no feed-forward
    assert cm.command('slider_joint/velocity') == pytest.approx(expected)

    # gains.slider_joint.activate_state_publisher: the PID's own state, every update
    pid_states = cm.harness.subscribe(
        PidState, '/pid_controller_dual/slider_joint/pid_state', qos_profile_sensor_data
    )

    def pid_state_received():
        cm.step(1)
        return bool(pid_states)

    assert cm.harness.spin_until(pid_state_received)
    assert (pid_states[-1].p_gain, pid_states[-1].d_gain) == (2.0, 0.5)
    assert pid_states[-1].timestep.nanosec == 10_000_000


def test_external_measured_state(cm):
    (pid,) = cm.load('pid_controller_external')
    spec = cm.manager.controllers['pid_controller_external']
    assert cm.manager.resolve_state_interfaces(spec) == []
    ok, msg = cm.manager.switch_controller(['pid_controller_external'], [], 2)
    assert ok, msg
    cm.send(
        '/pid_controller_external/measured_state',
        MultiDOFCommand,
        reference([0.2]),
        holds(pid.measured_state_box, [0.2]),
    )
    cm.send(
        '/pid_controller_external/reference',
        MultiDOFCommand,
        reference([0.5]),
        holds(pid.reference_box, [0.5]),
    )
    cm.step(1)
    assert cm.command('tool_joint/velocity') == pytest.approx(4.0 * 0.3)  # p * (0.5 - 0.2)


def test_chained_behind_a_forward_command_controller(cm):
    pid, forwarder = cm.load('pid_controller', 'pid_reference_forwarder')
    assert forwarder.command_interface_configuration().names == [
        'pid_controller/tool_joint/position'
    ]
    # the forwarder alone: its reference interface belongs to an inactive controller
    ok, msg = cm.manager.switch_controller(['pid_reference_forwarder'], [], 2)
    assert not ok
    assert "'pid_controller', which is not active" in msg
    ok, msg = cm.manager.switch_controller(['pid_reference_forwarder', 'pid_controller'], [], 2)
    assert ok, msg
    assert pid.is_in_chained_mode()
    assert cm.manager.active_controllers() == ['pid_reference_forwarder', 'pid_controller']

    reference_interface = cm.manager.rm.command_interfaces['pid_controller/tool_joint/position']
    cm.send_until(
        '/pid_reference_forwarder/commands',
        Float64MultiArray,
        Float64MultiArray(data=[0.7]),
        lambda: reference_interface.value == 0.7,
    )
    cm.step(300)
    assert cm.state('tool_joint/position') == pytest.approx(0.7, abs=1e-3)

    # chained: ~/reference is received but not used
    cm.send(
        '/pid_controller/reference',
        MultiDOFCommand,
        reference([0.1]),
        holds(pid.reference_box, [0.1]),
    )
    cm.step(100)
    assert reference_interface.value == 0.7
    assert cm.state('tool_joint/position') == pytest.approx(0.7, abs=1e-3)

    # the followed controller cannot stop while the forwarder commands it
    ok, msg = cm.manager.switch_controller([], ['pid_controller'], 2)
    assert not ok
    ok, msg = cm.manager.switch_controller([], ['pid_reference_forwarder', 'pid_controller'], 2)
    assert ok, msg
    assert not pid.is_in_chained_mode()
