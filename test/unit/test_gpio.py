"""GPIOs without ROS: ~/commands checking (gpio_command/commands.py), the mock
GenericSystem's gpio loop-back and the SimulatedSystem's gpio outputs and inputs."""

import math
from types import SimpleNamespace

import pytest
from rclpy.duration import Duration

from py_controllers.controllers.gpio_command.commands import CommandRejectedError, CommandTable
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.resource_manager import ResourceManager
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from py_controllers.hardware_interface.types import LifecycleStateId as S
from py_controllers.testing import CONFIG

MS = 1_000_000  # ns
PERIOD = Duration(nanoseconds=10 * MS)
GPIO_URDF = (CONFIG / 'gpio_robot.urdf').read_text()


# --- commands ----------------------------------------------------------------------------
@pytest.fixture
def table():
    # claimed in this order: flange_io/do1 (0), flange_io/ao1 (1), tool_io/v (2)
    return CommandTable([('flange_io', 'do1'), ('flange_io', 'ao1'), ('tool_io', 'v')])


def group(names, values):
    return SimpleNamespace(interface_names=list(names), values=list(values))


def test_table_names_in_claim_order(table):
    assert table.names == ['flange_io/do1', 'flange_io/ao1', 'tool_io/v']
    assert table.gpios == ['flange_io', 'tool_io']


def test_any_subset_in_any_order_becomes_index_value_pairs(table):
    assert table.resolve(['flange_io'], [group(['do1', 'ao1'], [1.0, 4.2])]) == (
        (0, 1.0),
        (1, 4.2),
    )
    assert table.resolve(
        ['tool_io', 'flange_io'], [group(['v'], [3.0]), group(['ao1'], [-2.0])]
    ) == ((2, 3.0), (1, -2.0))
    assert table.resolve([], []) == ()  # nothing to write
    # named twice: both kept in order, so the last one is written last (as upstream)
    assert table.resolve(['flange_io'], [group(['do1', 'do1'], [1.0, 0.0])]) == (
        (0, 1.0),
        (0, 0.0),
    )


def test_nan_passes_as_upstream(table):
    ((index, value),) = table.resolve(['flange_io'], [group(['ao1'], [math.nan])])
    assert index == 1
    assert math.isnan(value)


@pytest.mark.parametrize(
    ('groups', 'values', 'kind', 'text'),
    [
        (
            ['flange_io', 'flange_io'],
            [group(['do1'], [1.0])],
            'group count',
            "2 interface_groups ['flange_io', 'flange_io'] but 1 interface_values",
        ),
        (
            ['flange_io', 'sensor_io'],
            [group(['do1'], [1.0]), group(['ai1'], [1.0])],
            'unknown gpio',
            "unknown gpio 'sensor_io' (commanded gpios: ['flange_io', 'tool_io'])",
        ),
        (
            ['flange_io'],
            [group(['do1', 'ao1'], [1.0])],
            'value count',
            "gpio 'flange_io': 2 interface_names ['do1', 'ao1'] but 1 values",
        ),
        (
            ['tool_io'],
            [group(['v', 'w'], [1.0, 2.0])],
            'unknown interface',
            "gpio 'tool_io' has no commanded interface 'w' (commanded: ['v'])",
        ),
        (
            ['flange_io'],
            [group(['do1', 'ao1'], [1.0, -math.inf])],
            'infinite value',
            "gpio 'flange_io' interface 'ao1': value -inf",
        ),
    ],
)
def test_faults_reject_the_whole_message(table, groups, values, kind, text):
    with pytest.raises(CommandRejectedError) as info:
        table.resolve(groups, values)
    assert info.value.kind == kind
    assert str(info.value) == text


# --- mock_components/GenericSystem -----------------------------------------------------------
def mock(urdf=GPIO_URDF):
    rm = ResourceManager(update_rate=100)
    rm.load_urdf(urdf)
    assert rm.set_component_state('GpioSystem', S.ACTIVE)
    return rm


def test_mock_exports_gpio_interfaces_and_loops_outputs_back():
    rm = mock()
    assert [n for n in rm.command_interfaces if '_io/' in n] == ['flange_io/do1', 'flange_io/ao1']
    assert [n for n in rm.state_interfaces if '_io/' in n] == [
        'flange_io/do1',
        'flange_io/ao1',
        'sensor_io/ai1',
    ]
    # as upstream: no initial_value, no command yet -> NaN (joints start at 0)
    assert math.isnan(rm.state_interfaces['flange_io/do1'].value)
    assert rm.state_interfaces['joint1/position'].value == 0.0
    assert rm.state_interfaces['sensor_io/ai1'].value == 1.25
    rm.command_interfaces['flange_io/do1'].value = 1.0
    assert rm.read(None, PERIOD) == []
    assert rm.state_interfaces['flange_io/do1'].value == 1.0
    assert math.isnan(rm.state_interfaces['flange_io/ao1'].value)
    rm.command_interfaces['flange_io/do1'].value = math.nan  # no command: state kept
    assert rm.read(None, PERIOD) == []
    assert rm.state_interfaces['flange_io/do1'].value == 1.0
    rm.command_interfaces['flange_io/ao1'].value = math.inf
    assert rm.read(None, PERIOD) == ['GpioSystem']


def test_mock_gpio_commands_make_every_gpio_state_commandable():
    urdf = GPIO_URDF.replace(
        '<plugin>mock_components/GenericSystem</plugin>',
        '<plugin>mock_components/GenericSystem</plugin>'
        '<param name="mock_gpio_commands">true</param>',
    )
    rm = mock(urdf)
    # one command per state interface, none twice for the outputs that have one already
    assert [n for n in rm.command_interfaces if '_io/' in n] == [
        'flange_io/do1',
        'flange_io/ao1',
        'sensor_io/ai1',
    ]
    assert rm.read(None, PERIOD) == []
    assert rm.state_interfaces['sensor_io/ai1'].value == 1.25  # NaN command: kept
    rm.command_interfaces['sensor_io/ai1'].value = 3.3
    rm.command_interfaces['flange_io/ao1'].value = 0.5
    assert rm.read(None, PERIOD) == []
    assert rm.state_interfaces['sensor_io/ai1'].value == 3.3
    assert rm.state_interfaces['flange_io/ao1'].value == 0.5


# --- py_controllers/SimulatedSystem -----------------------------------------------------------
SIM_URDF = """<?xml version="1.0"?>
<robot name="sim_gpio">
  <link name="base"/><link name="l1"/>
  <joint name="j1" type="continuous"><parent link="base"/><child link="l1"/></joint>
  <ros2_control name="Sim" type="system">
    <hardware><plugin>py_controllers/SimulatedSystem</plugin></hardware>
    <joint name="j1">
      <command_interface name="effort"/>
      <state_interface name="position"/>
    </joint>
    <gpio name="tool_io">
      <command_interface name="digital_output"/>
      <state_interface name="digital_output"/>
      <state_interface name="analog_input">
        <param name="initial_value">2.5</param>
        <param name="amplitude">0.5</param>
        <param name="frequency">0.25</param>
      </state_interface>
      <state_interface name="supply"><param name="initial_value">24.0</param></state_interface>
    </gpio>
  </ros2_control>
</robot>
"""


def sim(urdf=SIM_URDF, *, activate=True):
    (info,) = parse_control_resources_from_urdf(urdf)
    component = SimulatedSystem()
    assert component.on_init(info) == CallbackReturn.SUCCESS
    component.state_interfaces = {h.name: h for h in component.export_state_interfaces()}
    component.command_interfaces = {h.name: h for h in component.export_command_interfaces()}
    assert component.on_configure(S.UNCONFIGURED) == CallbackReturn.SUCCESS
    if activate:
        assert component.on_activate(S.INACTIVE) == CallbackReturn.SUCCESS
    return component


def run(component, cycles, period_ns=10 * MS):
    for _ in range(cycles):
        assert component.read(None, Duration(nanoseconds=period_ns)) == ReturnType.OK


def test_simulated_digital_output_follows_its_command_while_active():
    s = sim()
    assert s.get_state('tool_io/digital_output') == 0.0  # no initial_value: off
    run(s, 1)
    assert s.get_state('tool_io/digital_output') == 0.0  # NaN command: kept
    s.set_command('tool_io/digital_output', 1.0)
    run(s, 1)
    assert s.get_state('tool_io/digital_output') == 1.0
    s.set_command('tool_io/digital_output', math.nan)
    run(s, 1)
    assert s.get_state('tool_io/digital_output') == 1.0
    assert s.on_deactivate(S.ACTIVE) == CallbackReturn.SUCCESS
    s.set_command('tool_io/digital_output', 0.0)
    run(s, 1)
    assert s.get_state('tool_io/digital_output') == 1.0  # inactive: commands ignored
    assert s.on_activate(S.INACTIVE) == CallbackReturn.SUCCESS
    s.set_command('tool_io/digital_output', math.inf)
    assert s.read(None, PERIOD) == ReturnType.ERROR


def test_simulated_analog_input_is_a_function_of_simulated_time():
    s = sim(activate=False)  # inputs move on whether or not the component is active
    # 2.5 + 0.5 sin(2 pi 0.25 t): 2.5 at t = 0, 3.0 at t = 1 s, 2.5 at 2 s, 2.0 at 3 s
    assert s.get_state('tool_io/analog_input') == 2.5
    trace = []
    for _ in range(3):
        run(s, 100)  # 1 s in 10 ms periods
        trace.append(s.get_state('tool_io/analog_input'))
    assert trace == pytest.approx([3.0, 2.5, 2.0], abs=1e-12)
    run(s, 4, 125 * MS)  # 0.5 s more: t = 3.5 s, 2.5 + 0.5 sin(1.75 pi)
    assert s.get_state('tool_io/analog_input') == pytest.approx(2.5 - 0.5 * math.sqrt(0.5))
    assert s.get_state('tool_io/supply') == 24.0  # no amplitude: a constant


def test_simulated_gpio_parameters_must_be_finite_numbers():
    for bad in ('fast', 'inf'):
        (info,) = parse_control_resources_from_urdf(
            SIM_URDF.replace(
                '<param name="frequency">0.25</param>', f'<param name="frequency">{bad}</param>'
            )
        )
        assert SimulatedSystem().on_init(info) == CallbackReturn.ERROR
