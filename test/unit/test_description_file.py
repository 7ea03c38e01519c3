"""robot_description_file: a URDF as it is, a .xacro file expanded by xacro (the PyPI package)
with robot_description_xacro_args, `$(find py_controllers)` through the ament index."""

from pathlib import Path

import pytest

from py_controllers.controller_manager.description_file import (
    DescriptionFileError,
    check_description_file,
    read_description_file,
    xacro_arguments,
)
from py_controllers.controller_manager.startup_parameters import StartupParameterError
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf

CONFIG = Path(__file__).resolve().parents[2] / 'config'
XACRO = str(CONFIG / 'minimal_robot.urdf.xacro')


def joints_of(urdf: str) -> list[str]:
    (system,) = parse_control_resources_from_urdf(urdf)
    return [j.name for j in system.joints]


def test_xacro_expands_with_its_macro_arguments_and_find_include():
    urdf = read_description_file(XACRO, check_description_file(XACRO, ['prefix:=left_']))
    # the <ros2_control> tag comes from the file included with $(find py_controllers)
    assert joints_of(urdf) == ['left_joint1', 'left_joint2', 'left_joint3']
    # the arm_link macro: three links and joints, each named with the prefix
    assert urdf.count('<link name="left_link') == 3
    assert '<limit effort="50" lower="-2.0" upper="2.0" velocity="2.0"/>' in urdf
    assert joints_of(read_description_file(XACRO)) == ['joint1', 'joint2', 'joint3']


def hardware(urdf: str) -> list[tuple]:
    return [
        (h.name, h.plugin, h.hardware_parameters, h.joints)
        for h in parse_control_resources_from_urdf(urdf)
    ]


def test_the_xacro_file_is_the_minimal_robot():
    plain = (CONFIG / 'minimal_robot.urdf').read_text()
    assert hardware(read_description_file(XACRO)) == hardware(plain)
    dynamic = read_description_file(XACRO, {'calculate_dynamics': 'true'})
    assert hardware(dynamic)[0][2] == {'calculate_dynamics': 'true'}


def test_a_plain_urdf_is_read_as_it_is():
    path = str(CONFIG / 'minimal_robot.urdf')
    assert read_description_file(path) == Path(path).read_text()


@pytest.mark.parametrize(
    ('value', 'expected'),
    [
        (None, []),
        ('prefix:=left_ use_mock_hardware:=true', ['prefix:=left_', 'use_mock_hardware:=true']),
        ("name:='two words'", ['name:=two words']),
        (['prefix:=left_', 'name:=two words'], ['prefix:=left_', 'name:=two words']),
    ],
)
def test_xacro_arguments_a_list_or_a_command_line(value, expected):
    assert xacro_arguments(value) == expected


@pytest.mark.parametrize(
    ('path', 'args', 'message'),
    [
        ('robot.urdf', ['prefix:=a'], "'robot.urdf' is not a .xacro file"),
        ('', ['prefix:=a'], "'robot_description_file' is unset"),
        ('robot.urdf.xacro', ['prefix'], "'prefix' is not of the form name:=value"),
        ('robot.urdf.xacro', [':=a'], "':=a' is not of the form name:=value"),
    ],
)
def test_xacro_arguments_that_cannot_apply_are_refused(path, args, message):
    with pytest.raises(StartupParameterError, match='robot_description_xacro_args') as err:
        check_description_file(path, args)
    assert message in str(err.value)


def test_xacro_arguments_of_the_wrong_type_are_refused():
    with pytest.raises(StartupParameterError, match="list of 'name:=value' strings"):
        xacro_arguments([1, 2])


def test_xacro_errors_name_the_problem(tmp_path):
    broken = tmp_path / 'broken.urdf.xacro'
    broken.write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r">'
        '<xacro:include filename="$(find no_such_package)/x.xacro"/></robot>'
    )
    with pytest.raises(DescriptionFileError, match=r'xacro failed: .*no_such_package'):
        read_description_file(str(broken))
    undefined = tmp_path / 'undefined.urdf.xacro'
    undefined.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="${nope}"/>')
    with pytest.raises(DescriptionFileError, match=r'xacro failed: .*nope'):
        read_description_file(str(undefined))
    with pytest.raises(DescriptionFileError, match='no such file'):
        read_description_file(str(tmp_path / 'missing.urdf.xacro'))
    with pytest.raises(DescriptionFileError, match='cannot be read'):
        read_description_file(str(tmp_path / 'missing.urdf'))
