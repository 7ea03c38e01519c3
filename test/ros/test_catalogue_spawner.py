"""Every controller type of the catalogue through `spawner` against `ros2_control_node`, as
a user runs it with the example configurations in config/."""

import pytest

from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

CASES = [
    ('gpio_controllers.yaml', 'gpio_robot.urdf', ['gpio_command_controller']),
    (
        'sensor_controllers.yaml',
        'sensor_robot.urdf',
        [
            'imu_sensor_broadcaster',
            'force_torque_sensor_broadcaster',
            'range_sensor_broadcaster',
            'pose_broadcaster',
        ],
    ),
    # the position and parallel grippers share a joint: one at a time
    ('gripper_controllers.yaml', 'gripper_robot.urdf', ['gripper_controller']),
    ('gripper_controllers.yaml', 'gripper_robot.urdf', ['parallel_gripper_controller']),
    ('gripper_controllers.yaml', 'gripper_robot.urdf', ['effort_gripper_controller']),
    ('mobile_bases.yaml', 'mecanum_base.urdf', ['mecanum_drive_controller']),
    ('mobile_bases.yaml', 'omni_base.urdf', ['omni_wheel_drive_controller']),
    ('mobile_bases.yaml', 'tricycle_base.urdf', ['tricycle_controller']),
]


@pytest.mark.parametrize(('params', 'urdf', 'controllers'), CASES)
def test_spawner_activates_the_catalogue(params, urdf, controllers):
    with (
        ManagerProcess([CONFIG / params], CONFIG / urdf) as manager,
        RosHarness('catalogue_spawner') as ros,
    ):
        result = run_tool('spawner', *controllers, '--controller-manager-timeout', '30')
        assert result.returncode == 0, result.stdout + result.stderr + manager.output()
        states = {c.name: (c.state, c.type) for c in ros.manager().list_controllers()}
        for name in controllers:
            assert states[name][0] == 'active', states
        assert manager.alive
