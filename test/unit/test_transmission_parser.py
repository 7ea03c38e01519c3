"""`<transmission>` inside `<ros2_control>`: what the parser keeps for the loaders, after
upstream's component parser tests (multi-joint system, actuator-only, mismatches)."""

from __future__ import annotations

import pytest
from urdf_samples import PLUGIN, robot

from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.errors import ComponentParserError

POSITION_JOINT = (
    '<joint name="{}"><command_interface name="position"><param name="min">-1</param>'
    '<param name="max">1</param></command_interface><state_interface name="position"/></joint>'
)
DIFFERENTIAL = 'transmission_interface/DifferentialTransmission'
VELOCITY_JOINT = (
    '<joint name="{}"><command_interface name="velocity"/><state_interface name="velocity"/>'
    '</joint>'
)


def component(body: str, kind: str = 'system') -> str:
    """A robot without URDF joints (any joint name goes) and one `<ros2_control>` tag."""
    return robot(f'<ros2_control name="Hw" type="{kind}">{PLUGIN}{body}</ros2_control>', joints='')


def transmission(body: str, plugin: str = 'transmission_interface/SimpleTransmission') -> str:
    return f'<transmission name="t1"><plugin>{plugin}</plugin>{body}</transmission>'


def parse_one(urdf: str):
    (info,) = parse_control_resources_from_urdf(urdf)
    (result,) = info.transmissions
    return result


def test_multi_joint_system_transmission() -> None:
    t = parse_one(
        component(
            POSITION_JOINT.format('joint1')
            + POSITION_JOINT.format('joint2')
            + transmission(
                '<actuator name="joint1_motor" role="actuator1" read_only="true"/>'
                '<actuator name="joint2_motor" role="actuator2"/>'
                '<joint name="joint1" role="joint1"><mechanical_reduction>10</mechanical_reduction>'
                '<offset>0.5</offset></joint>'
                '<joint name="joint2" role="joint2" read_only="false">'
                '<mechanical_reduction>50</mechanical_reduction></joint>',
                DIFFERENTIAL,
            )
        )
    )
    assert (t.name, t.plugin, t.type) == ('t1', DIFFERENTIAL, DIFFERENTIAL)
    j1, j2 = t.joints
    assert (j1.name, j1.role, j1.mechanical_reduction, j1.offset, j1.read_only) == (
        'joint1',
        'joint1',
        10.0,
        0.5,
        False,
    )
    assert (j2.name, j2.role, j2.mechanical_reduction, j2.offset, j2.read_only) == (
        'joint2',
        'joint2',
        50.0,
        0.0,
        False,
    )
    # the interface names come from the component's <joint> of that name
    assert (j1.state_interfaces, j1.command_interfaces) == (['position'], ['position'])
    a1, a2 = t.actuators
    assert (a1.name, a1.role, a1.read_only, a1.mechanical_reduction) == (
        'joint1_motor',
        'actuator1',
        True,
        1.0,
    )
    assert (a2.name, a2.role, a2.read_only) == ('joint2_motor', 'actuator2', False)
    assert (a1.state_interfaces, a1.command_interfaces) == ([], [])


def test_actuator_component_gets_its_implicit_actuator() -> None:
    t = parse_one(
        component(
            VELOCITY_JOINT.format('joint1')
            + transmission(
                '<joint name="joint1" role="joint1"><mechanical_reduction>325.949'
                '</mechanical_reduction></joint><param name="additional_special_parameter">1337'
                '</param>',
                'transmission_interface/RotationToLinerTansmission',  # loaders judge plugins
            ),
            kind='actuator',
        )
    )
    (joint,) = t.joints
    assert (joint.mechanical_reduction, joint.offset) == (325.949, 0.0)
    assert (joint.state_interfaces, joint.command_interfaces) == (['velocity'], ['velocity'])
    (actuator,) = t.actuators
    assert (actuator.name, actuator.role, actuator.offset) == ('actuator1', 'actuator1', 0.0)
    assert (actuator.state_interfaces, actuator.command_interfaces) == (['velocity'], ['velocity'])
    assert t.parameters == {'additional_special_parameter': '1337'}


def test_actuator_component_keeps_a_declared_actuator_alone() -> None:
    """Upstream appends 'actuator1' beside it, leaving two actuators on a simple transmission."""
    t = parse_one(
        component(
            VELOCITY_JOINT.format('joint1')
            + transmission('<joint name="joint1" role="j"/><actuator name="motor" role="a"/>'),
            kind='actuator',
        )
    )
    assert [a.name for a in t.actuators] == ['motor']


def test_foreign_children_of_a_transmission_joint_are_allowed() -> None:
    t = parse_one(
        component(
            VELOCITY_JOINT.format('joint1')
            + transmission(
                '<joint name="joint1" role="j"><hardwareInterface>x</hardwareInterface>'
                '<mechanical_reduction> 2.5 </mechanical_reduction></joint>'
            )
        )
    )
    assert t.joints[0].mechanical_reduction == 2.5


@pytest.mark.parametrize(
    ('body', 'kind', 'message'),
    [
        (
            transmission('<joint name="joint31415" role="joint1"/>'),
            'actuator',
            "<transmission name='t1'> uses joint 'joint31415', which is not a <joint>",
        ),
        (
            transmission('<joint name="joint1" role="joint1"/><joint name="joint2" role="j2"/>'),
            'actuator',
            'an actuator component takes exactly one joint in a transmission, found 2',
        ),
        (
            transmission('<joint name="joint1"/>'),
            'system',
            "<transmission name='t1'> <joint name='joint1'>: missing 'role' attribute",
        ),
        (
            transmission('<joint name="joint1" role="j"/><actuator name="m"/>'),
            'system',
            "<actuator name='m'>: missing 'role' attribute",
        ),
        (
            transmission(
                '<joint name="joint1" role="j"><mechanical_reduction>fifty</mechanical_reduction>'
                '</joint>'
            ),
            'system',
            "<joint name='joint1'>: <mechanical_reduction> 'fifty' is not a finite number",
        ),
        (
            transmission('<joint name="joint1" role="j"><offset>three</offset></joint>'),
            'system',
            "<offset> 'three' is not a finite number",
        ),
        (
            transmission(
                '<joint name="joint1" role="j"/><actuator name="m" role="a">'
                '<mechanical_reduction>inf</mechanical_reduction></actuator>'
            ),
            'system',
            "<actuator name='m'>: <mechanical_reduction> 'inf' is not a finite number",
        ),
        (
            transmission('<joint name="joint1" role="j" read_only="maybe"/>'),
            'system',
            "read_only='maybe' is not a boolean",
        ),
    ],
)
def test_errors_name_the_fault(body: str, kind: str, message: str) -> None:
    joints = VELOCITY_JOINT.format('joint1')
    if 'joint2' in body:
        joints += VELOCITY_JOINT.format('joint2')
    with pytest.raises(ComponentParserError) as caught:
        parse_control_resources_from_urdf(component(joints + body, kind))
    assert message in str(caught.value)
