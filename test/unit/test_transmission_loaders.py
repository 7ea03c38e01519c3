"""The loaders, from `<transmission>` tags to transmissions, after upstream's
simple/differential/four_bar transmission_loader_test.cpp; plugins by upstream name."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest
from urdf_samples import PLUGIN, robot

from py_controllers import plugins
from py_controllers.hardware_interface.component_info import TransmissionInfo
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.transmission_interface import (
    TRANSMISSIONS_GROUP,
    DifferentialTransmission,
    FourBarLinkageTransmission,
    SimpleTransmission,
    Transmission,
    TransmissionError,
    TransmissionLoader,
    load_transmission,
)

SIMPLE = 'transmission_interface/SimpleTransmission'
DIFFERENTIAL = 'transmission_interface/DifferentialTransmission'
FOUR_BAR = 'transmission_interface/FourBarLinkageTransmission'
JOINT = '<joint name="{}"><command_interface name="{}"/><state_interface name="{}"/></joint>'


def actuator_test_hardware() -> str:
    """Upstream's TestActuatorHardware and TestSystemHardware transmissions."""
    pair = (
        '<actuator name="joint2_motor" role="actuator1"><mechanical_reduction>50'
        '</mechanical_reduction></actuator>'
        '<actuator name="joint3_motor" role="actuator2"><mechanical_reduction>-50'
        '</mechanical_reduction></actuator>'
        '<joint name="joint2" role="joint1"><offset>0.5</offset>'
        '<mechanical_reduction>2.0</mechanical_reduction></joint>'
        '<joint name="joint3" role="joint2"><offset>-0.5</offset>'
        '<mechanical_reduction>-2.0</mechanical_reduction></joint>'
    )
    return robot(
        '<ros2_control name="TestActuatorHardware" type="actuator">' + PLUGIN
        + JOINT.format('joint1', 'position', 'position')
        + f'<transmission name="simple"><plugin>{SIMPLE}</plugin>'
        '<joint name="joint1" role="joint1"><mechanical_reduction>325.949'
        '</mechanical_reduction></joint></transmission></ros2_control>'
        '<ros2_control name="TestSystemHardware" type="system">' + PLUGIN
        + JOINT.format('joint2', 'velocity', 'position')
        + JOINT.format('joint3', 'velocity', 'position')
        + f'<transmission name="differential"><plugin>{DIFFERENTIAL}</plugin>{pair}'
        '</transmission>'
        f'<transmission name="four_bar"><plugin>{FOUR_BAR}</plugin>{pair}</transmission>'
        '</ros2_control>',
        joints='',
    )  # fmt: skip


def one(plugin: str, body: str, kind: str = 'system', joints: int = 1) -> TransmissionInfo:
    """The transmission `body` of `plugin` in a component with joints joint1..joint<joints>."""
    declared = ''.join(
        JOINT.format(f'joint{i}', 'velocity', 'velocity') for i in range(1, joints + 1)
    )
    urdf = robot(
        f'<ros2_control name="Hw" type="{kind}">{PLUGIN}{declared}'
        f'<transmission name="t1"><plugin>{plugin}</plugin>{body}</transmission></ros2_control>',
        joints='',
    )
    (info,) = parse_control_resources_from_urdf(urdf)
    return info.transmissions[0]


def two_by_two(actuator_children=('', ''), joint_children=('', '')) -> str:
    return ''.join(
        f'<actuator name="joint{i + 1}_motor" role="actuator{i + 1}">{actuator_children[i]}'
        '</actuator>'
        for i in range(2)
    ) + ''.join(
        f'<joint name="joint{i + 1}" role="joint{i + 1}">{joint_children[i]}</joint>'
        for i in range(2)
    )


TWO_JOINTS = '<joint name="joint1" role="a"/><joint name="joint2" role="b"/>'


def reduction(value: object) -> str:
    return f'<mechanical_reduction>{value}</mechanical_reduction>'


# --- plugins ------------------------------------------------------------------------------
def test_loaders_are_entry_points_under_upstream_names() -> None:
    names = {ep.name for ep in entry_points(group=TRANSMISSIONS_GROUP)}
    assert {SIMPLE, DIFFERENTIAL, FOUR_BAR} <= names


def test_unknown_plugin_is_refused_naming_it_and_the_known_ones() -> None:
    info = one(
        'transmission_interface/RotationToLinerTansmission', '<joint name="joint1" role="j"/>'
    )
    with pytest.raises(TransmissionError) as caught:
        load_transmission(info)
    text = str(caught.value)
    assert "transmission 't1': unknown transmission plugin " in text
    assert "'transmission_interface/RotationToLinerTansmission'" in text
    known = text.partition('(known: ')[2]
    assert all(name in known for name in (SIMPLE, DIFFERENTIAL, FOUR_BAR))
    assert '\n' not in text


def test_a_misspelt_plugin_gets_a_suggestion() -> None:
    info = one('transmission_interface/SimpleTansmission', '<joint name="joint1" role="j"/>')
    with pytest.raises(TransmissionError, match=f"did you mean '{SIMPLE}'"):
        load_transmission(info)


@pytest.fixture
def registered(monkeypatch):
    """Register a loader for one test only."""
    monkeypatch.setitem(plugins._registered, TRANSMISSIONS_GROUP, {})
    return lambda name, cls: plugins.register(TRANSMISSIONS_GROUP, name, cls)


class GearPairLoader(TransmissionLoader):
    """A third party's loader: a simple transmission with the ratio in a `<param>`."""

    def load(self, transmission_info: TransmissionInfo) -> Transmission:
        return SimpleTransmission(float(transmission_info.parameters['ratio']))


def test_a_third_party_loader_is_found_by_its_name(registered) -> None:
    registered('my_robot/GearPair', GearPairLoader)
    info = one('my_robot/GearPair', '<joint name="joint1" role="j"/><param name="ratio">3</param>')
    loaded = load_transmission(info)
    assert isinstance(loaded, SimpleTransmission)
    assert loaded.get_actuator_reduction() == 3.0


def test_a_third_party_loader_failure_names_the_transmission(registered) -> None:
    registered('my_robot/GearPair', GearPairLoader)
    info = one('my_robot/GearPair', '<joint name="joint1" role="j"/>')  # no 'ratio' param
    with pytest.raises(TransmissionError) as caught:
        load_transmission(info)
    assert str(caught.value) == (
        "transmission 't1': plugin 'my_robot/GearPair' failed to load it: KeyError('ratio')"
    )
    info = one('my_robot/GearPair', '<joint name="joint1" role="j"/><param name="ratio">0</param>')
    with pytest.raises(TransmissionError) as caught:
        load_transmission(info)
    assert str(caught.value) == (
        "transmission 't1' (my_robot/GearPair): transmission reduction ratio cannot be zero"
    )


def test_a_plugin_that_is_not_a_loader_is_refused(registered) -> None:
    registered('my_robot/NotALoader', SimpleTransmission)
    info = one('my_robot/NotALoader', '<joint name="joint1" role="j"/>')
    with pytest.raises(TransmissionError, match='not a TransmissionLoader'):
        load_transmission(info)


# --- full descriptions --------------------------------------------------------------------
def test_full_spec() -> None:
    actuator_hw, system_hw = parse_control_resources_from_urdf(actuator_test_hardware())
    simple = load_transmission(actuator_hw.transmissions[0])
    assert isinstance(simple, SimpleTransmission)
    assert actuator_hw.transmissions[0].joints[0].role == 'joint1'
    assert (simple.get_actuator_reduction(), simple.get_joint_offset()) == (325.949, 0.0)
    differential, four_bar = (load_transmission(t) for t in system_hw.transmissions)
    assert isinstance(differential, DifferentialTransmission)
    assert isinstance(four_bar, FourBarLinkageTransmission)
    for loaded in (differential, four_bar):
        assert loaded.get_actuator_reduction() == [50.0, -50.0]
        assert loaded.get_joint_reduction() == [2.0, -2.0]
        assert loaded.get_joint_offset() == [0.5, -0.5]


@pytest.mark.parametrize(
    ('children', 'expected'),
    [
        (reduction('50'), (50.0, 0.0)),
        ('', (1.0, 0.0)),
        (reduction('-2') + '<offset>0.25</offset>', (-2.0, 0.25)),
    ],
)
def test_simple_reduction_and_offset(children: str, expected) -> None:
    loaded = load_transmission(
        one(SIMPLE, f'<joint name="joint1" role="joint1">{children}</joint>', kind='actuator')
    )
    assert isinstance(loaded, SimpleTransmission)
    assert (loaded.get_actuator_reduction(), loaded.get_joint_offset()) == expected


@pytest.mark.parametrize('plugin', [DIFFERENTIAL, FOUR_BAR])
def test_two_by_two_only_reductions_given(plugin: str) -> None:
    body = two_by_two((reduction('50'), reduction('-50')), (reduction('1.0'), reduction('1.0')))
    loaded = load_transmission(one(plugin, body, joints=2))
    assert loaded.get_actuator_reduction() == [50.0, -50.0]  # type: ignore[attr-defined]
    assert loaded.get_joint_reduction() == [1.0, 1.0]  # type: ignore[attr-defined]
    assert loaded.get_joint_offset() == [0.0, 0.0]  # type: ignore[attr-defined]


@pytest.mark.parametrize('plugin', [DIFFERENTIAL, FOUR_BAR])
def test_two_by_two_nothing_given(plugin: str) -> None:
    loaded = load_transmission(one(plugin, two_by_two(), joints=2))
    assert loaded.get_actuator_reduction() == [1.0, 1.0]  # type: ignore[attr-defined]
    assert loaded.get_joint_reduction() == [1.0, 1.0]  # type: ignore[attr-defined]
    assert loaded.get_joint_offset() == [0.0, 0.0]  # type: ignore[attr-defined]


def test_simple_zero_reduction_refused() -> None:
    info = one(SIMPLE, f'<joint name="joint1" role="joint1">{reduction("0")}</joint>', 'actuator')
    with pytest.raises(TransmissionError) as caught:
        load_transmission(info)
    assert str(caught.value) == (
        f"transmission 't1' ({SIMPLE}): transmission reduction ratio cannot be zero"
    )


@pytest.mark.parametrize('plugin', [DIFFERENTIAL, FOUR_BAR])
def test_two_by_two_zero_reduction_refused(plugin: str) -> None:
    body = two_by_two((reduction('0'), reduction('0')), (reduction('0'), reduction('0')))
    with pytest.raises(TransmissionError, match='actuator reduction 1 cannot be zero'):
        load_transmission(one(plugin, body, joints=2))


# --- what upstream's loaders would silently take ------------------------------------------
@pytest.mark.parametrize(
    ('plugin', 'body', 'joints', 'message'),
    [
        (
            SIMPLE,
            TWO_JOINTS + '<actuator name="m" role="a"/>',
            2,
            "connects 1 joint(s), the description has 2: ['joint1', 'joint2']",
        ),
        (
            SIMPLE,
            '<joint name="joint1" role="a"/>',
            1,
            'connects 1 actuator(s), the description has 0',
        ),
        (
            DIFFERENTIAL,
            TWO_JOINTS + '<actuator name="m" role="a"/>',
            2,
            "connects 2 actuator(s), the description has 1: ['m']",
        ),
        (
            SIMPLE,
            '<joint name="joint1" role="a"/>'
            f'<actuator name="m" role="a">{reduction(50)}</actuator>',
            1,
            "<actuator name='m'> has <mechanical_reduction> 50.0, which this transmission does not",
        ),
        (
            FOUR_BAR,
            two_by_two(('<offset>0.1</offset>', '')),
            2,
            "<actuator name='joint1_motor'> has <offset> 0.1, which this transmission does not use",
        ),
    ],
)
def test_descriptions_the_loader_would_misread_are_refused(plugin, body, joints, message) -> None:
    with pytest.raises(TransmissionError) as caught:
        load_transmission(one(plugin, body, joints=joints))
    assert message in str(caught.value)
    assert "transmission 't1'" in str(caught.value)
