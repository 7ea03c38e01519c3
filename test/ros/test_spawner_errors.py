"""What a newcomer reads when a name is wrong: the real spawner prints the manager's reason
(read from /rosout, as LoadController answers only `ok`), and an unknown controller type or
hardware plugin gets the closest registered names."""

import pytest

from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

MISSPELT = 'joint_trajectory_controller/JointTrajectoryControler'
MEANT = 'joint_trajectory_controller/JointTrajectoryController'


@pytest.fixture(scope='class')  # gone before the hardware test starts a manager of its own
def manager():
    with ManagerProcess([CONFIG / 'minimal_controllers.yaml'], CONFIG / 'minimal_robot.urdf') as m:
        yield m
        assert m.alive, m.output()


def spawn(*args: str):
    return run_tool('spawner', *args, '--controller-manager-timeout', '30')


class TestSpawner:
    def test_a_misspelt_type_gets_the_reason_and_a_suggestion(self, manager):
        result = spawn('arm_controller', '-t', MISSPELT)
        assert result.returncode == 1
        failed = [line for line in result.stderr.splitlines() if 'failed to load' in line]
        assert len(failed) == 1, result.stderr + manager.output()
        assert f"unknown type '{MISSPELT}'" in failed[0]
        assert f"did you mean '{MEANT}'?" in failed[0]
        assert 'list_controller_types' in failed[0]
        assert 'diff_drive_controller' not in failed[0]  # not the list of every type

    def test_a_failed_configure_gets_the_controllers_reason(self, manager):
        # a forward command controller without its `joints` parameter loads, then refuses
        result = spawn('no_joints', '-t', 'forward_command_controller/ForwardCommandController')
        assert result.returncode == 1
        failed = [line for line in result.stderr.splitlines() if 'failed to configure' in line]
        assert len(failed) == 1, result.stderr + manager.output()
        assert "parameter 'joints' must not be empty" in failed[0]


def test_an_unknown_hardware_plugin_gets_a_suggestion(tmp_path):
    urdf = (CONFIG / 'minimal_robot.urdf').read_text()
    assert urdf.count('<plugin>mock_components/GenericSystem</plugin>') == 1
    misspelt = tmp_path / 'robot.urdf'
    misspelt.write_text(urdf.replace('GenericSystem</plugin>', 'GenericSytem</plugin>'))
    with (
        ManagerProcess([CONFIG / 'minimal_controllers.yaml'], misspelt) as manager,
        RosHarness('hardware_suggestion') as ros,
    ):
        rosout = ros.subscribe_rosout()
        rosout.wait_for(
            ros.spin_until,
            "unknown type 'mock_components/GenericSytem'",
            "did you mean 'mock_components/GenericSystem'?",
        )
        assert "did you mean 'mock_components/GenericSystem'?" in manager.output()
        assert manager.alive  # waiting for a better robot description
