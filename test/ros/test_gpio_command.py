"""gpio_controllers/GpioCommandController on mock hardware (config/gpio_robot.urdf).

flange_io has a digital output do1 and an analog output ao1 (the mock loops each command
back to its state), sensor_io an analog input ai1 (held at its initial_value 1.25). The
manager runs in this process with its loop stopped; the test steps its cycles, sends
commands on the controller's ~/commands and reads ~/gpio_states and /rosout over DDS.
"""

import gc
import math

import pytest
import yaml
from control_msgs.msg import DynamicInterfaceGroupValues, InterfaceValue

from py_controllers import plugins
from py_controllers.controllers.gpio_command.controller import GpioCommandController
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.testing import CONFIG, RosHarness, SteppedManager, stamp_ns

TYPE = 'gpio_controllers/GpioCommandController'
CTRL = 'gpio_command_controller'
COMMANDS = f'/{CTRL}/commands'
PERIOD_NS = 10_000_000
OUTPUTS = ('flange_io/do1', 'flange_io/ao1')
Msg = DynamicInterfaceGroupValues

# registered here so the tests do not depend on installed entry points
plugins.register(plugins.CONTROLLERS_GROUP, TYPE, GpioCommandController)
plugins.register(plugins.HARDWARE_GROUP, 'py_controllers/SimulatedSystem', SimulatedSystem)

# controllers of the tests only, next to those of config/gpio_controllers.yaml
VARIANTS = {
    # state_interfaces set for one gpio: the other gpio is published without interfaces
    'gpio_partial_states': {
        'gpios': ['flange_io', 'sensor_io'],
        'state_interfaces': {'flange_io': {'interfaces': ['ao1']}},
    },
    # a gpio the robot description does not have, nothing configured: configure fails
    'gpio_nothing': {'gpios': ['missing_io']},
}


def command(*groups, values=None):
    """A ~/commands message from (gpio, interface names, values) triples; `values` replaces
    interface_values (to send a count that does not match interface_groups)."""
    msg = Msg()
    for gpio, names, numbers in groups:
        msg.interface_groups.append(gpio)
        msg.interface_values.append(
            InterfaceValue(interface_names=list(names), values=[float(v) for v in numbers])
        )
    if values is not None:
        msg.interface_values = values
    return msg


def by_name(msg):
    """{'<gpio>/<interface>': value} of a gpio_states message."""
    return {
        f'{gpio}/{name}': value
        for gpio, group in zip(msg.interface_groups, msg.interface_values)
        for name, value in zip(group.interface_names, group.values)
    }


class Rig:
    """The manager on config/gpio_robot.urdf with config/gpio_controllers.yaml + VARIANTS."""

    def __init__(self, tmp_path, urdf=None):
        manager = {name: {'type': TYPE} for name in VARIANTS}
        document = {
            'controller_manager': {'ros__parameters': manager},
            **{name: {'ros__parameters': params} for name, params in VARIANTS.items()},
        }
        extra = tmp_path / 'gpio_variants.yaml'
        extra.write_text(yaml.safe_dump(document))
        self.harness = RosHarness(
            'gpio_test',
            args=[
                '--ros-args',
                '--params-file',
                str(CONFIG / 'gpio_controllers.yaml'),
                '--params-file',
                str(extra),
            ],
        )
        self.cm = SteppedManager(
            self.harness, urdf or (CONFIG / 'gpio_robot.urdf').read_text(), period_ns=PERIOD_NS
        )
        self.rosout = self.harness.subscribe_rosout()

    def states(self, controller=CTRL):
        """The list collecting `controller`'s ~/gpio_states messages."""
        return self.harness.subscribe(Msg, f'/{controller}/gpio_states')

    def commands(self):
        return tuple(self.cm.command(name) for name in OUTPUTS)

    def hardware_states(self):
        return tuple(self.cm.state(name) for name in OUTPUTS)

    def apply(self, msg, expected):
        """Send `msg` until the outputs' command interfaces read `expected`."""
        self.cm.send_until(COMMANDS, Msg, msg, lambda: self.commands() == expected)

    def wait_states(self, received, expected):
        """Step until the newest gpio_states message holds `expected` (a subset)."""

        def arrived():
            if not received:
                return False
            values = by_name(received[-1])
            return all(values[name] == value for name, value in expected.items())

        assert self.cm.run_until(arrived), f'{expected} not published; last: {received[-1:]}'
        return received[-1]

    def logged(self, *texts):
        return self.rosout.has(*texts)

    def wait_logged(self, *texts):
        self.rosout.wait_for(self.cm.run_until, *texts)

    def close(self):
        self.cm.shutdown()
        self.harness.close()
        gc.collect()  # drop the controller nodes now (see test_joint_trajectory_controller)


@pytest.fixture
def rig(tmp_path):
    rig = Rig(tmp_path)
    yield rig
    rig.close()


def test_commands_reach_the_interfaces_and_come_back_on_gpio_states(rig):
    received = rig.states()
    rig.cm.start(CTRL)
    assert rig.cm.run_until(lambda: received)
    first = received[-1]
    # one group per `gpios` entry; no state_interfaces configured: the URDF's, in its order
    assert list(first.interface_groups) == ['flange_io', 'sensor_io']
    assert [list(g.interface_names) for g in first.interface_values] == [['do1', 'ao1'], ['ai1']]
    values = by_name(first)
    # the mock's outputs before any command: NaN, or from the second cycle on the command
    # guard's hold value 0 mirrored back (which of the two depends on how many cycles ran
    # before the first message was taken)
    for output in ('flange_io/do1', 'flange_io/ao1'):
        assert math.isnan(values[output]) or values[output] == 0.0, values
    assert values['sensor_io/ai1'] == 1.25  # the input's initial_value
    first_ns = stamp_ns(first)
    assert 0 < first_ns <= rig.cm.now_ns  # the manager's time of the cycle
    assert first_ns % PERIOD_NS == 0

    rig.apply(command(('flange_io', ['do1', 'ao1'], [1.0, 4.2])), (1.0, 4.2))
    latest = rig.wait_states(received, {'flange_io/do1': 1.0, 'flange_io/ao1': 4.2})
    assert by_name(latest) == {'flange_io/do1': 1.0, 'flange_io/ao1': 4.2, 'sensor_io/ai1': 1.25}
    assert rig.hardware_states() == (1.0, 4.2)


def test_partial_and_reordered_commands(rig):
    rig.cm.start(CTRL)
    rig.apply(command(('flange_io', ['do1', 'ao1'], [1.0, 4.2])), (1.0, 4.2))
    # one interface only: the other keeps its value
    rig.apply(command(('flange_io', ['ao1'], [-2.0])), (1.0, -2.0))
    # names in another order than configured
    rig.apply(command(('flange_io', ['ao1', 'do1'], [0.5, 0.0])), (0.0, 0.5))
    rig.cm.step(3)
    assert rig.hardware_states() == (0.0, 0.5)


def test_nan_is_written_and_the_hardware_keeps_its_state(rig):
    """Upstream writes NaN as it is, 'no command'; the manager's command guard hands the
    hardware the interface's last value instead (a NaN never reaches write())."""
    (ctrl,) = rig.cm.start(CTRL)
    rig.apply(command(('flange_io', ['do1', 'ao1'], [1.0, 4.2])), (1.0, 4.2))
    rig.cm.send_until(
        COMMANDS,
        Msg,
        command(('flange_io', ['do1'], [math.nan])),
        lambda: any(math.isnan(v) for _, v in ctrl.command_box.get() or ()),
    )
    rig.cm.step(3)
    assert rig.cm.command('flange_io/do1') == 1.0
    assert rig.cm.command('flange_io/ao1') == 4.2
    assert rig.hardware_states() == (1.0, 4.2)
    assert not rig.logged('command rejected')


VALID = ('flange_io', ['do1', 'ao1'], [0.0, 9.9])  # written if a check let the rest through
BAD_COMMANDS = {
    'unknown gpio': (
        command(VALID, ('tool_io', ['do1'], [1.0])),
        "unknown gpio 'tool_io' (commanded gpios: ['flange_io'])",
    ),
    'gpio without command interfaces': (
        command(VALID, ('sensor_io', ['ai1'], [5.0])),
        "unknown gpio 'sensor_io'",
    ),
    'unknown interface': (
        command(('flange_io', ['do1', 'ao1', 'do2'], [0.0, 9.9, 1.0])),
        "gpio 'flange_io' has no commanded interface 'do2' (commanded: ['do1', 'ao1'])",
    ),
    'more values than interface names': (
        command(('flange_io', ['do1'], [0.0, 9.9])),
        "gpio 'flange_io': 1 interface_names ['do1'] but 2 values",
    ),
    'more interface names than values': (
        command(('flange_io', ['do1', 'ao1'], [0.0])),
        "gpio 'flange_io': 2 interface_names ['do1', 'ao1'] but 1 values",
    ),
    'more groups than interface values': (
        command(
            VALID,
            ('flange_io', ['do1'], [1.0]),
            values=[InterfaceValue(interface_names=['do1', 'ao1'], values=[0.0, 9.9])],
        ),
        "2 interface_groups ['flange_io', 'flange_io'] but 1 interface_values",
    ),
    'infinite value': (
        command(('flange_io', ['do1', 'ao1'], [0.0, math.inf])),
        "gpio 'flange_io' interface 'ao1': value inf",
    ),
}


@pytest.mark.parametrize('kind', BAD_COMMANDS)
def test_bad_command_is_rejected_with_a_log_and_writes_nothing(rig, kind):
    msg, reason = BAD_COMMANDS[kind]
    received = rig.states()
    rig.cm.start(CTRL)
    rig.apply(command(('flange_io', ['do1', 'ao1'], [1.0, 4.2])), (1.0, 4.2))
    rig.wait_states(received, {'flange_io/do1': 1.0, 'flange_io/ao1': 4.2})

    rig.cm.publish(COMMANDS, Msg, msg)
    rig.wait_logged('command rejected, nothing written: ', reason)
    rig.cm.step(5)
    assert rig.commands() == (1.0, 4.2)  # the last valid command stays
    assert rig.hardware_states() == (1.0, 4.2)
    rig.wait_states(received, {'flange_io/do1': 1.0, 'flange_io/ao1': 4.2})
    assert rig.cm.manager.controllers[CTRL].controller.lifecycle_state().name == 'ACTIVE'


def test_nothing_is_written_after_reactivation_until_a_new_command(rig):
    (ctrl,) = rig.cm.start(CTRL)
    rig.apply(command(('flange_io', ['do1', 'ao1'], [1.0, 4.2])), (1.0, 4.2))
    ok, msg = rig.cm.manager.switch_controller([], [CTRL], 2)
    assert ok, msg
    # a command that arrives while the controller is inactive is dropped at activation
    rig.cm.send(
        COMMANDS,
        Msg,
        command(('flange_io', ['do1'], [3.0])),
        lambda: ctrl.command_box.get() == ((0, 3.0),),
    )
    # released: held at 0 (hold.py: every kind but position-like); then set by someone else
    assert rig.commands() == (0.0, 0.0)
    rig.cm.manager.rm.command_interfaces['flange_io/do1'].value = 7.0
    ok, msg = rig.cm.manager.switch_controller([CTRL], [], 2)
    assert ok, msg
    rig.cm.step(5)
    assert rig.commands() == (7.0, 0.0)  # the command from before is not written again
    assert rig.hardware_states() == (7.0, 0.0)
    rig.apply(command(('flange_io', ['do1'], [1.0])), (1.0, 0.0))


def test_state_interfaces_only_make_a_broadcaster(rig):
    commander, broadcaster = 'gpio_command_controller', 'gpio_state_broadcaster'
    received = rig.states(broadcaster)
    ctrl, bcast = rig.cm.start(commander, broadcaster)
    # the commander's subscription shows in the graph, the broadcaster has none
    assert rig.harness.spin_until(lambda: ctrl.get_node().count_subscribers(COMMANDS) == 1)
    assert bcast.get_node().count_subscribers(f'/{broadcaster}/commands') == 0
    assert bcast.command_interfaces == []
    assert [h.name for h in bcast.state_interfaces] == ['sensor_io/ai1']
    assert rig.cm.run_until(lambda: received)
    assert list(received[-1].interface_groups) == ['sensor_io']
    assert by_name(received[-1]) == {'sensor_io/ai1': 1.25}


def test_configured_state_interfaces_are_the_only_ones_published(rig):
    received = rig.states('gpio_partial_states')
    (ctrl,) = rig.cm.start('gpio_partial_states')
    assert [h.name for h in ctrl.state_interfaces] == ['flange_io/ao1']
    assert rig.cm.run_until(lambda: received)
    msg = received[-1]
    assert list(msg.interface_groups) == ['flange_io', 'sensor_io']
    assert [list(g.interface_names) for g in msg.interface_values] == [['ao1'], []]


def test_configure_fails_without_command_or_state_interfaces(rig):
    ok, msg = rig.cm.manager.load_controller('gpio_nothing')
    assert ok, msg
    ok, msg = rig.cm.manager.configure_controller('gpio_nothing')
    assert not ok
    rig.wait_logged("no command or state interfaces for gpios ['missing_io']")


# The same gpios on the simulated hardware; its analog input is 1.25 + 0.5 sin(2 pi 0.25 t).
SIMULATED_URDF = (
    (CONFIG / 'gpio_robot.urdf')
    .read_text()
    .replace('mock_components/GenericSystem', 'py_controllers/SimulatedSystem')
    .replace(
        '<param name="initial_value">1.25</param>',
        '<param name="initial_value">1.25</param><param name="amplitude">0.5</param>'
        '<param name="frequency">0.25</param>',
    )
)


def test_on_simulated_hardware(tmp_path):
    rig = Rig(tmp_path, SIMULATED_URDF)
    try:
        received = rig.states()
        rig.cm.start(CTRL)
        rig.apply(command(('flange_io', ['do1', 'ao1'], [1.0, 4.2])), (1.0, 4.2))
        msg = rig.wait_states(received, {'flange_io/do1': 1.0, 'flange_io/ao1': 4.2})
        # the input at the time of the cycle that read it: the manager's time from 0
        t_s = stamp_ns(msg) * 1e-9
        expected = 1.25 + 0.5 * math.sin(2 * math.pi * 0.25 * t_s)
        assert by_name(msg)['sensor_io/ai1'] == pytest.approx(expected, abs=1e-12)
        rig.cm.step(50)  # 0.5 s on (from the newest cycle, which may be newer than msg)
        now_s = rig.cm.now_ns * 1e-9
        assert now_s >= t_s + 0.5
        assert rig.cm.state('sensor_io/ai1') == pytest.approx(
            1.25 + 0.5 * math.sin(2 * math.pi * 0.25 * now_s), abs=1e-12
        )
        assert rig.hardware_states() == (1.0, 4.2)
    finally:
        rig.close()
