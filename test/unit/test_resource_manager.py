"""Resource manager: loading from a URDF, availability, claiming, component failures."""

import math

import pytest
from rclpy.duration import Duration

from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.hardware_interface.resource_manager import ClaimError, ResourceManager
from py_controllers.hardware_interface.types import LifecycleStateId as S
from py_controllers.hardware_interface.types import ReturnType
from py_controllers.testing import CONFIG

PERIOD = Duration(nanoseconds=10_000_000)


@pytest.fixture
def rm():
    manager = ResourceManager(update_rate=100)
    manager.load_urdf((CONFIG / 'minimal_robot.urdf').read_text())
    return manager


def test_loads_components_and_interfaces_unconfigured(rm):
    assert list(rm.components) == ['MinimalSystem']
    assert rm.components['MinimalSystem'].state == S.UNCONFIGURED
    assert list(rm.command_interfaces) == [
        f'joint{i}/{k}' for i in (1, 2, 3) for k in ('position', 'velocity')
    ]
    assert rm.state_interfaces['joint2/position'].value == 0.0  # initial_value
    assert math.isnan(rm.state_interfaces['joint2/velocity'].value)
    assert not rm.is_command_available('joint1/position')
    assert not rm.is_state_available('joint1/position')


def test_availability_follows_lifecycle(rm):
    assert rm.set_component_state('MinimalSystem', S.INACTIVE)
    assert rm.is_state_available('joint1/position')
    assert not rm.is_command_available('joint1/position')
    assert rm.set_component_state('MinimalSystem', S.ACTIVE)
    assert rm.is_command_available('joint1/position')
    assert rm.components['MinimalSystem'].state == S.ACTIVE
    # GenericSystem sets NaN states to 0 on configure
    assert rm.state_interfaces['joint2/velocity'].value == 0.0


def test_claims_are_exclusive_and_all_or_nothing(rm):
    rm.set_component_state('MinimalSystem', S.ACTIVE)
    handles = rm.claim(['joint1/position', 'joint2/position'], 'a')
    assert [h.name for h in handles] == ['joint1/position', 'joint2/position']
    with pytest.raises(ClaimError, match="currently claimed by 'a'"):
        rm.claim(['joint3/position', 'joint2/position'], 'b')
    assert 'joint3/position' not in rm.claimed  # nothing claimed by the failed request
    with pytest.raises(ClaimError, match='does not exist'):
        rm.claim(['joint9/position'], 'b')
    assert rm.check_claimable(['joint2/position'], releasing=['joint2/position']) == ''
    rm.release(['joint1/position', 'joint2/position'])
    assert rm.claim(['joint2/position'], 'b')[0].name == 'joint2/position'


def test_mock_mirrors_commands_and_rejects_infinite(rm):
    rm.set_component_state('MinimalSystem', S.ACTIVE)
    rm.command_interfaces['joint1/position'].value = 0.7
    assert rm.read(None, PERIOD) == []
    assert rm.state_interfaces['joint1/position'].value == 0.7
    rm.command_interfaces['joint1/position'].value = math.inf
    assert rm.read(None, PERIOD) == ['MinimalSystem']
    assert rm.handle_component_error('MinimalSystem') == S.UNCONFIGURED
    assert not rm.is_state_available('joint1/position')
    assert rm.read(None, PERIOD) == []  # unconfigured components are not read


def test_controller_reference_interfaces_follow_their_controller(rm):
    ref = CommandInterface('pid/joint1', 'position')
    state = StateInterface('pid/joint1', 'velocity')
    rm.add_controller_interfaces('pid', [ref], [state])
    assert rm.owner_of('pid/joint1/position') == 'pid'
    assert not rm.is_command_available('pid/joint1/position')
    rm.set_controller_interfaces_available('pid', True)
    assert rm.is_command_available('pid/joint1/position')
    assert rm.is_state_available('pid/joint1/velocity')
    rm.claim(['pid/joint1/position'], 'upstream')
    rm.remove_controller_interfaces('pid')
    assert 'pid/joint1/position' not in rm.command_interfaces
    assert 'pid/joint1/position' not in rm.claimed


def test_failing_lifecycle_callback_keeps_state():
    from py_controllers.hardware_interface.hardware_component import SystemInterface
    from py_controllers.hardware_interface.types import CallbackReturn

    class Refuses(SystemInterface):
        def on_activate(self, previous_state):
            return CallbackReturn.FAILURE

    class Breaks(SystemInterface):
        def on_configure(self, previous_state):
            raise RuntimeError('no device')

    from py_controllers.hardware_interface.component_info import HardwareInfo

    rm = ResourceManager()
    rm.add_component(Refuses(), HardwareInfo(name='refuses'))
    rm.add_component(Breaks(), HardwareInfo(name='breaks'))
    assert not rm.set_component_state('refuses', S.ACTIVE)
    assert rm.components['refuses'].state == S.INACTIVE
    assert not rm.set_component_state('breaks', S.ACTIVE)
    assert rm.components['breaks'].state == S.UNCONFIGURED  # on_error succeeded
    assert rm.components['refuses'].component.write(None, PERIOD) == ReturnType.OK


# --- what components log from the loop goes through the manager's hand-over -----------------
@pytest.mark.parametrize(
    ('urdf', 'component', 'command'),
    [
        ('demo_robot.urdf', 'ArmSystem', 'joint1/effort'),  # SimulatedSystem: read() refuses
        ('mujoco/two_link_arm.urdf', 'MujocoArm', 'joint2/effort'),  # MujocoSystem: write()
    ],
)
def test_simulated_components_log_from_the_loop_through_log_rt(urdf, component, command):
    rm = ResourceManager(update_rate=100)
    rm.load_urdf((CONFIG / urdf).read_text())
    lines = []  # what the manager would hand to the executor: (logger, level, text)
    rm.log_rt = lambda logger, level, text: lines.append((logger, level, text))
    assert rm.set_component_state(component, S.ACTIVE)
    joint, _, _ = command.partition('/')
    # a mode switch it refuses, then an infinite command: both logged from the loop's side
    assert not rm.prepare_command_mode_switch([command, f'{joint}/position'], [])
    assert rm.perform_command_mode_switch([command], [])
    rm.command_interfaces[command].value = math.inf
    failed = rm.read(None, PERIOD) + rm.write(None, PERIOD)[0]
    assert failed == [component]
    logger = rm.components[component].component.logger
    texts = [text for who, level, text in lines if who is logger and level == 'error']
    assert any(f"joint '{joint}': cannot command" in text for text in texts), lines
    assert f"'{command}' is infinite; refusing to simulate it" in texts, lines
