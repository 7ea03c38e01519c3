"""ComponentTransmissions: a component's `<transmission>` tags wired between its joint
values and actuator values it owns (ros2_control_demos example 8 is the first case)."""

from __future__ import annotations

import math

import pytest
from urdf_samples import PLUGIN, robot

from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.transmission_interface import (
    ActuatorHandle,
    ComponentTransmissions,
    JointHandle,
    SimpleTransmissionLoader,
    TransmissionError,
)

SIMPLE = 'transmission_interface/SimpleTransmission'


def joint(name: str, commands=('position',), states=('position',)) -> str:
    return (
        f'<joint name="{name}">'
        + ''.join(f'<command_interface name="{c}"/>' for c in commands)
        + ''.join(f'<state_interface name="{s}"/>' for s in states)
        + '</joint>'
    )


def simple(name: str, joint_name: str, actuator: str | None, n: float, offset: float = 0.0) -> str:
    act = f'<actuator name="{actuator}" role="actuator1"/>' if actuator else ''
    return (
        f'<transmission name="{name}"><plugin>{SIMPLE}</plugin>{act}'
        f'<joint name="{joint_name}" role="joint1"><mechanical_reduction>{n}'
        f'</mechanical_reduction><offset>{offset}</offset></joint></transmission>'
    )


def info_of(body: str, kind: str = 'system'):
    urdf = robot(f'<ros2_control name="Hw" type="{kind}">{PLUGIN}{body}</ros2_control>', joints='')
    (info,) = parse_control_resources_from_urdf(urdf)
    return info


EXAMPLE_8 = info_of(
    joint('joint1')
    + joint('joint2')
    + simple('transmission1', 'joint1', 'actuator1', 2.0)
    + simple('transmission2', 'joint2', 'actuator2', 4.0)
)


def test_example_8_with_plain_dicts() -> None:
    gears = ComponentTransmissions(EXAMPLE_8)
    states = {'joint1/position': math.nan, 'joint2/position': math.nan}
    commands = {'joint1/position': 1.0, 'joint2/position': 0.5}
    gears.configure(states, commands)
    assert sorted(gears.actuator_commands) == ['actuator1/position', 'actuator2/position']
    gears.joint_to_actuator()
    assert gears.actuator_commands['actuator1/position'].value == 2.0  # 1.0 rad * 2
    assert gears.actuator_commands['actuator2/position'].value == 2.0  # 0.5 rad * 4
    gears.actuator_states['actuator1/position'].value = 3.0
    gears.actuator_states['actuator2/position'].value = -2.0
    gears.actuator_to_joint()
    assert states == {'joint1/position': 1.5, 'joint2/position': -0.5}
    assert commands == {'joint1/position': 1.0, 'joint2/position': 0.5}  # never written


def test_component_handles_and_mirrored_actuator_interfaces() -> None:
    info = info_of(
        joint('joint1', commands=('velocity',), states=('position', 'velocity', 'temperature'))
        + simple('t', 'joint1', 'motor', -10.0, offset=0.1)
    )
    states = {
        f'joint1/{i}': StateInterface('joint1', i) for i in ('position', 'velocity', 'temperature')
    }
    commands = {'joint1/velocity': CommandInterface('joint1', 'velocity', 0.5)}
    gears = ComponentTransmissions(info)
    gears.configure(states, commands)
    # the actuator has the joint's interfaces the transmission maps; temperature is the component's
    assert sorted(gears.actuator_states) == ['motor/position', 'motor/velocity']
    assert sorted(gears.actuator_commands) == ['motor/velocity']
    gears.actuator_states['motor/position'].value = 20.0
    gears.actuator_states['motor/velocity'].value = 5.0
    states['joint1/temperature'].value = 40.0
    gears.actuator_to_joint()
    assert states['joint1/position'].value == pytest.approx(20.0 / -10.0 + 0.1)
    assert states['joint1/velocity'].value == -0.5
    assert states['joint1/temperature'].value == 40.0
    gears.joint_to_actuator()
    assert gears.actuator_commands['motor/velocity'].value == -5.0


def test_actuator_component_uses_its_implicit_actuator() -> None:
    info = info_of(
        joint('joint1', ('velocity',), ('velocity',)) + simple('t', 'joint1', None, 3.0), 'actuator'
    )
    gears = ComponentTransmissions(info)
    commands = {'joint1/velocity': 2.0}
    gears.configure({'joint1/velocity': 0.0}, commands)
    gears.joint_to_actuator()
    assert gears.actuator_commands['actuator1/velocity'].value == 6.0


def test_differential_through_the_helper() -> None:
    info = info_of(
        joint('joint1')
        + joint('joint2')
        + '<transmission name="wrist"><plugin>transmission_interface/DifferentialTransmission'
        '</plugin><actuator name="m1" role="actuator1"><mechanical_reduction>10'
        '</mechanical_reduction></actuator><actuator name="m2" role="actuator2">'
        '<mechanical_reduction>-20</mechanical_reduction></actuator>'
        '<joint name="joint1" role="joint1"><mechanical_reduction>-2</mechanical_reduction>'
        '<offset>-2</offset></joint><joint name="joint2" role="joint2">'
        '<mechanical_reduction>4</mechanical_reduction><offset>4</offset></joint></transmission>'
    )
    gears = ComponentTransmissions(info)
    states = {'joint1/position': 0.0, 'joint2/position': 0.0}
    commands = {'joint1/position': -2.0125, 'joint2/position': 4.06875}
    gears.configure(states, commands)
    gears.actuator_states['m1/position'].value = 3.0
    gears.actuator_states['m2/position'].value = 5.0
    gears.actuator_to_joint()
    assert [states['joint1/position'], states['joint2/position']] == pytest.approx(
        [-2.0125, 4.06875]
    )
    gears.joint_to_actuator()
    assert [gears.actuator_commands[f'm{i}/position'].value for i in (1, 2)] == pytest.approx(
        [3, 5]
    )


def test_state_only_joint_maps_states_only() -> None:
    info = info_of(joint('joint1', commands=()) + simple('t', 'joint1', 'motor', 2.0))
    gears = ComponentTransmissions(info)
    gears.configure({'joint1/position': 0.0}, {})
    assert (sorted(gears.actuator_states), gears.actuator_commands) == (['motor/position'], {})
    gears.joint_to_actuator()  # nothing to map, nothing refused


def test_unknown_plugin_refused_when_built() -> None:
    info = info_of(
        joint('joint1') + '<transmission name="t"><plugin>my/Belt</plugin>'
        '<joint name="joint1" role="j"/><actuator name="m" role="a"/></transmission>'
    )
    with pytest.raises(
        TransmissionError, match="transmission 't': unknown transmission plugin 'my/Belt'"
    ):
        ComponentTransmissions(info)


def test_a_joint_in_two_transmissions_is_refused() -> None:
    info = info_of(
        joint('joint1') + simple('t1', 'joint1', 'm1', 2.0) + simple('t2', 'joint1', 'm2', 3.0)
    )
    with pytest.raises(TransmissionError, match="joint 'joint1' is in transmissions 't1' and 't2'"):
        ComponentTransmissions(info)


def test_a_missing_joint_value_is_refused() -> None:
    gears = ComponentTransmissions(EXAMPLE_8)
    with pytest.raises(TransmissionError) as caught:
        gears.configure({'joint1/position': 0.0}, {'joint1/position': 0.0, 'joint2/position': 0.0})
    assert str(caught.value) == (
        "transmission 'transmission2': the joint state values have no 'joint2/position', which "
        'the <joint> declares'
    )


def test_handles_a_transmission_refuses_are_reported_with_its_name() -> None:
    info = info_of(
        joint('joint1', states=('position', 'velocity'))
        + joint('joint2')
        + '<transmission name="wrist"><plugin>transmission_interface/FourBarLinkageTransmission'
        '</plugin><actuator name="m1" role="a1"/><actuator name="m2" role="a2"/>'
        '<joint name="joint1" role="j1"/><joint name="joint2" role="j2"/></transmission>'
    )
    gears = ComponentTransmissions(info)
    states = {'joint1/position': 0.0, 'joint1/velocity': 0.0, 'joint2/position': 0.0}
    with pytest.raises(
        TransmissionError,
        match=r"transmission 'wrist', state interfaces: not enough valid joint velocity "
        r"handles: \['joint1'\]",
    ):
        gears.configure(states, {'joint1/position': 0.0, 'joint2/position': 0.0})


def test_mapping_before_configure_is_refused() -> None:
    gears = ComponentTransmissions(EXAMPLE_8)
    with pytest.raises(TransmissionError, match='configure'):
        gears.actuator_to_joint()
    with pytest.raises(TransmissionError, match='configure'):
        gears.joint_to_actuator()


def test_example_8_by_hand_as_upstream() -> None:
    """The demo's own way: one loader per `<transmission>`, a JointHandle and an
    ActuatorHandle holding the values that pass through."""
    joints, actuators, commanded = {}, {}, {}
    for info in EXAMPLE_8.transmissions:
        assert info.type == SIMPLE
        (joint_info,) = info.joints
        assert (joint_info.state_interfaces, joint_info.command_interfaces) == (
            ['position'],
            ['position'],
        )
        transmission = SimpleTransmissionLoader().load(info)
        joint = joints[joint_info.name] = JointHandle(joint_info.name, 'position')
        actuator = actuators[info.actuators[0].name] = ActuatorHandle(
            info.actuators[0].name, 'position'
        )
        transmission.configure([joint], [actuator])
        joint.value = 1.0
        transmission.joint_to_actuator()
        commanded[actuator.prefix_name] = actuator.value
        actuator.value = 4.0
        transmission.actuator_to_joint()
    assert commanded == {'actuator1': 2.0, 'actuator2': 4.0}  # joint 1.0 through 2 and 4
    assert {name: j.value for name, j in joints.items()} == {'joint1': 2.0, 'joint2': 1.0}
