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
            'gps_sensor_broadcaster',
            'magnetometer_broadcaster',
            'battery_state_broadcaster',
            'state_interfaces_broadcaster',
        ],
    ),
    # the position and parallel grippers share a joint: one at a time
    ('gripper_controllers.yaml', 'gripper_robot.urdf', ['gripper_controller']),
    ('gripper_controllers.yaml', 'gripper_robot.urdf', ['parallel_gripper_controller']),
    ('gripper_controllers.yaml', 'gripper_robot.urdf', ['effort_gripper_controller']),
    (
        'chained_filter.yaml',
        'chained_filter_robot.urdf',
        ['chained_filter', 'filtered_state_broadcaster', 'wheel_position_controller'],
    ),
    # ackermann and tricycle share the rear wheels: one at a time; bicycle has its own joints
    (
        'steering_controllers.yaml',
        'steering_robot.urdf',
        ['ackermann_steering_controller', 'bicycle_steering_controller'],
    ),
    ('steering_controllers.yaml', 'steering_robot.urdf', ['tricycle_steering_controller']),
    ('motion_primitives.yaml', 'motion_primitives_robot.urdf', ['motion_primitive_controller']),
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
