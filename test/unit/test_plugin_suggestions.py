"""An unknown plug-in name gets the closest registered names, not the whole list."""

import pytest

from py_controllers import plugins

KNOWN = [
    'diff_drive_controller/DiffDriveController',
    'effort_controllers/JointPositionController',
    'joint_trajectory_controller/JointTrajectoryController',
    'position_controllers/JointGroupPositionController',
    'position_controllers/JointPositionController',
    'velocity_controllers/JointPositionController',
    'velocity_controllers/JointVelocityController',
]


@pytest.mark.parametrize(
    ('name', 'suggested'),
    [
        # one letter off: the one answer, not the three nearest
        (
            'joint_trajectory_controller/JointTrajectoryControler',
            ['joint_trajectory_controller/JointTrajectoryController'],
        ),
        ('diff_drive_controller/DiffDrive', ['diff_drive_controller/DiffDriveController']),
        # the package left out: the class part decides, each package that has it
        (
            'JointPositionController',
            [
                'effort_controllers/JointPositionController',
                'position_controllers/JointPositionController',
                'velocity_controllers/JointPositionController',
            ],
        ),
        ('JointTrajectoryController', ['joint_trajectory_controller/JointTrajectoryController']),
        # two near ones, best first
        (
            'position_controllers/JointGroupPositionControler',
            [
                'position_controllers/JointGroupPositionController',
                'position_controllers/JointPositionController',
            ],
        ),
        ('nothing/Similar', []),
    ],
)
def test_close_names(name, suggested):
    assert plugins.close_names(name, KNOWN) == suggested


@pytest.fixture
def group():
    name = 'py_controllers.test_suggestions'
    for known in KNOWN:
        plugins.register(name, known, object)
    yield name
    plugins._registered.pop(name)


def test_unknown_type_suggests_and_says_where_the_list_is(group):
    with pytest.raises(plugins.PluginError) as err:
        plugins.load(group, 'velocity_controllers/JointVelocityControler', object)
    message = str(err.value)
    assert "did you mean 'velocity_controllers/JointVelocityController'?" in message
    assert f"7 known: see entry-point group '{group}'" in message
    assert 'diff_drive_controller' not in message  # the full list is left out


def test_controller_types_point_to_list_controller_types():
    message = plugins.unknown_type_message(plugins.CONTROLLERS_GROUP, 'x/Y')
    assert '`ros2 control list_controller_types`' in message
