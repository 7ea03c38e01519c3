"""The simulated sensors refuse descriptions they cannot simulate (no ROS): the DiffBot's
IMU, the arm's sensors."""

from __future__ import annotations

from typing import Any

import pytest

from py_controllers.hardware.diffbot_system import DiffBotSystem
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.types import CallbackReturn
from py_controllers.testing import CONFIG


def component(urdf: str, name: str) -> Any:
    return next(i for i in parse_control_resources_from_urdf(urdf) if i.name == name)


def assert_refused(system: type, name: str, old: str, new: str) -> None:
    """Component `name` of the sensor robot initializes as it is, and fails to with `old`
    replaced by `new`."""
    urdf = (CONFIG / 'sensor_robot.urdf').read_text()
    assert urdf.count(old) == 1
    assert system().on_init(component(urdf, name)) == CallbackReturn.SUCCESS
    assert system().on_init(component(urdf.replace(old, new), name)) == CallbackReturn.ERROR


@pytest.mark.parametrize(
    ('old', 'new', 'reason'),
    [
        ('<param name="wheel_radius">0.05</param>', '', "'wheel_radius' must be a number > 0"),
        (
            '<param name="wheel_separation">0.4</param>',
            '<param name="wheel_separation">0</param>',
            "'wheel_separation'",
        ),
        (
            '<param name="left_wheel_name">left_wheel_joint</param>',
            '<param name="left_wheel_name">caster</param>',
            "'left_wheel_name'",
        ),
        (
            '<state_interface name="linear_acceleration.z"/>',
            '<state_interface name="temperature"/>',
            "'temperature' is not simulated",
        ),
    ],
    ids=['no_radius', 'zero_separation', 'unknown_wheel', 'not_an_imu'],
)
def test_diffbot_refuses_an_imu_it_cannot_simulate(caplog, old, new, reason):
    assert_refused(DiffBotSystem, 'Base', old, new)
    assert reason in caplog.text


def test_diffbot_wheels_default_to_the_first_and_second_joint():
    urdf = (CONFIG / 'sensor_robot.urdf').read_text()
    for side in ('left', 'right'):
        urdf = urdf.replace(f'<param name="{side}_wheel_name">{side}_wheel_joint</param>', '')
    hw = DiffBotSystem()
    assert hw.on_init(component(urdf, 'Base')) == CallbackReturn.SUCCESS
    assert (hw.imu_model.left, hw.imu_model.right) == (0, 1)


@pytest.mark.parametrize(
    ('old', 'new', 'reason'),
    [
        (
            '<param name="joint">wrist_joint</param>',
            '<param name="joint">elbow</param>',
            "'joint' must name",
        ),
        (
            '<param name="tool_mass">0.5</param>',
            '<param name="tool_mass">-1</param>',
            "'tool_mass'",
        ),
        (
            '<state_interface name="torque.z"/>',
            '<state_interface name="temperature"/>',
            "'temperature' is not simulated",
        ),
    ],
    ids=['unknown_joint', 'negative_mass', 'not_force_torque'],
)
def test_simulated_system_refuses_a_sensor_it_cannot_simulate(caplog, old, new, reason):
    assert_refused(SimulatedSystem, 'Arm', old, new)
    assert reason in caplog.text
