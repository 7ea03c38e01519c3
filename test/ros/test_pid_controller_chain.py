"""pid_controller/PidController standalone and chained behind a ForwardCommandController.

The manager runs in-process with its loop thread stopped; the tests step read -> update ->
write with a fixed 10 ms period. References go in over ~/reference (or the forwarder's
~/commands), the feed-forward switch over the real ~/set_feedforward_control service.
"""

import pytest
from control_msgs.msg import MultiDOFCommand, MultiDOFStateStamped, PidState
from rclpy.duration import Duration
from rclpy.parameter import Parameter
from rclpy.qos import qos_profile_sensor_data
from rclpy.time import Time
from std_msgs.msg import Float64MultiArray, String
from std_srvs.srv import SetBool

from py_controllers import plugins
from py_controllers.controller_manager.node import ControllerManagerNode
from py_controllers.controllers.pid_controller.controller import PidController
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.testing import CONFIG, RosHarness

URDF = CONFIG / 'pid_joint_robot.urdf'
PARAMS = CONFIG / 'pid_controllers.yaml'
PERIOD_NS = 10_000_000

# registered here so the tests do not depend on installed entry points
plugins.register(plugins.HARDWARE_GROUP, 'py_controllers/SimulatedSystem', SimulatedSystem)
plugins.register(plugins.CONTROLLERS_GROUP, 'pid_controller/PidController', PidController)


class SteppedManager:
    """An in-process controller manager whose cycles the test runs one by one."""

    def __init__(self, harness: RosHarness) -> None:
        self.harness = harness
        # Without a description the manager waits; the loop thread, which would start with
        # the hardware, is kept from starting, so no cycle runs but the test's own.
        self.node = ControllerManagerNode(harness.executor, context=harness.context)
        self.node.loop.start = lambda: None
        self.node.on_description(String(data=URDF.read_text()))
        assert self.node.services is not None, 'robot description refused'
        self.manager = self.node.manager
        self.now_ns = 0
        self._publishers = {}

    def step(self, cycles: int = 1) -> None:
        rm, manager = self.manager.rm, self.manager
        period = Duration(nanoseconds=PERIOD_NS)
        for _ in range(cycles):
            self.now_ns += PERIOD_NS
            now = Time(nanoseconds=self.now_ns)
            with manager.cycle_lock:
                assert rm.read(now, period) == []
                manager.update(now, period, self.now_ns)
                assert rm.write(now, period)[0] == []

    def state(self, name: str) -> float:
        return self.manager.rm.state_interfaces[name].value

    def command(self, name: str) -> float:
        return self.manager.rm.command_interfaces[name].value

    def load(self, *names: str):
        controllers = []
        for name in names:
            ok, msg = self.manager.load_controller(name)
            assert ok, msg
            ok, msg = self.manager.configure_controller(name)
            assert ok, msg
            controllers.append(self.manager.controllers[name].controller)
        return controllers

    def _publisher(self, topic: str, msg_type):
        if topic not in self._publishers:  # one per topic keeps its messages in order
            self._publishers[topic] = self.harness.node.create_publisher(msg_type, topic, 10)
        return self._publishers[topic]

    def publish(self, topic: str, msg_type, msg) -> None:
        """Publish once (on the topic's one publisher, so later sends arrive after it)."""
        self._publisher(topic, msg_type).publish(msg)

    def send(self, topic: str, msg_type, msg, arrived) -> None:
        """Publish `msg` until `arrived()` says the controller has taken it in."""
        pub = self._publisher(topic, msg_type)

        def check():
            if arrived():
                return True
            pub.publish(msg)
            return False

        assert self.harness.spin_until(check), f'{topic}: {msg} did not arrive'

    def send_until(self, topic: str, msg_type, msg, done) -> None:
        """Publish `msg` and run cycles until `done()` (for controllers without a box)."""
        pub = self._publisher(topic, msg_type)

        def check():
            pub.publish(msg)
            self.step(1)
            return done()

        assert self.harness.spin_until(check), f'{topic}: {msg} had no effect'


@pytest.fixture
def cm():
    harness = RosHarness('pid_chain', args=['--ros-args', '--params-file', str(PARAMS)])
    stepped = SteppedManager(harness)
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

    # names may be left out (values in dof order); unknown names are rejected
    cm.publish(topic, MultiDOFCommand, reference([9.0], names=['nope']))
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
