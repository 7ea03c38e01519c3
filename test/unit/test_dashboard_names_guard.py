"""The dashboard's name resolution for namespaced managers, its web gate, and the
server-side limits on what a page asks for."""

import logging
import math

import pytest

from py_controllers.dashboard.bases import BASES, pad_limits
from py_controllers.dashboard.guard import ClientGoneFilter, host_name, refusal, same_origin
from py_controllers.dashboard.model import (
    DIFF_DRIVE_TYPE,
    JointRange,
    Velocity,
    clamp_positions,
    limit_twist,
    session_allowed,
    speed_limit,
    token_digest,
)
from py_controllers.dashboard.motion import (
    follow_joint_trajectory_action,
    gripper_action,
    gripper_goal,
    twist_topic,
)
from py_controllers.dashboard.names import (
    LIST_CONTROLLERS_TYPE,
    controller_node,
    in_namespace,
    managers_from_services,
    namespace_of,
)

LOOPBACK = ('127.0.0.1', 'localhost', '::1')
DIFF_DRIVE = BASES[DIFF_DRIVE_TYPE]


def test_names_follow_the_managers_namespace():
    assert namespace_of('/controller_manager') == ''
    assert namespace_of('/r1/controller_manager') == '/r1'
    assert namespace_of('/fleet/r2/cm') == '/fleet/r2'
    assert twist_topic('/controller_manager', 'diff_drive_controller', DIFF_DRIVE) == (
        '/diff_drive_controller/cmd_vel'
    )
    assert twist_topic('/r1/controller_manager', 'base', DIFF_DRIVE) == '/r1/base/cmd_vel'
    assert follow_joint_trajectory_action('/r2/controller_manager', 'arm') == (
        '/r2/arm/follow_joint_trajectory'
    )
    assert in_namespace('/r1/controller_manager', 'joint_states') == '/r1/joint_states'
    assert in_namespace('/controller_manager', 'robot_description') == '/robot_description'
    assert controller_node('/r1/controller_manager', 'gpio') == '/r1/gpio'


def test_managers_are_the_nodes_offering_list_controllers():
    services = [
        ('/r1/controller_manager/list_controllers', [LIST_CONTROLLERS_TYPE]),
        ('/r2/cm/list_controllers', [LIST_CONTROLLERS_TYPE]),
        ('/r1/controller_manager/switch_controller', ['controller_manager_msgs/srv/Switch']),
        ('/impostor/list_controllers', ['std_srvs/srv/Trigger']),  # the name alone is not enough
        ('/list_controllers', [LIST_CONTROLLERS_TYPE]),
    ]
    assert managers_from_services(services) == ['/r1/controller_manager', '/r2/cm']


def test_host_header_parsing_keeps_ipv6_addresses():
    assert host_name('[::1]:8080') == '::1'
    assert host_name('[::1]') == '::1'
    assert host_name('127.0.0.1:8080') == '127.0.0.1'
    assert host_name('LocalHost') == 'localhost'
    assert refusal('[::1]:8080', None, LOOPBACK) is None
    assert refusal('[::1]:8080', 'http://[::1]:8080', LOOPBACK) is None
    assert refusal('attacker.example:8080', None, LOOPBACK) == (400, 'Invalid host header')
    assert refusal('attacker.example', None, None) is None  # beyond loopback: the token guards


def test_cross_origin_is_refused():
    assert same_origin('http://127.0.0.1:8080', '127.0.0.1:8080')
    assert not same_origin('http://127.0.0.1:8081', '127.0.0.1:8080')
    assert not same_origin('http://evil.example', '127.0.0.1:8080')
    assert not same_origin('null', '127.0.0.1:8080')
    assert refusal('127.0.0.1:8080', 'http://evil.example', LOOPBACK)[0] == 403


def test_goals_are_clamped_to_the_joint_ranges():
    ranges = [JointRange(-3.1, 3.1, 1.0), JointRange(-1.0, 2.0, None)]
    assert clamp_positions([10.0, -5.0], ranges) == [3.1, -1.0]
    assert clamp_positions([0.5, 1.5], ranges) == [0.5, 1.5]
    with pytest.raises(ValueError):
        clamp_positions([math.nan, 0.0], ranges)


def test_steering_speeds_are_limited():
    top = Velocity(1.0, 0.0, 3.0)  # a diff drive: nothing sideways
    assert limit_twist(Velocity(100.0, 0.0, -100.0), top) == (1.0, 0.0, -3.0)
    assert limit_twist(Velocity(0.4, 0.0, 0.2), top) == (0.4, 0.0, 0.2)
    assert limit_twist(Velocity(0.4, 0.7, 0.2), top) == (0.4, 0.0, 0.2)
    assert limit_twist(Velocity(0.4, -0.7, 0.2), top._replace(lateral=0.5)) == (0.4, -0.5, 0.2)
    assert limit_twist(Velocity(math.inf, 0.0, 0.2), top) == (0.0, 0.0, 0.0)
    assert limit_twist(Velocity(0.1, math.nan, 0.2), top) == (0.0, 0.0, 0.0)
    assert speed_limit(2.0, 1.0) == 1.0  # the diffbot's linear.x.max_velocity
    assert speed_limit(4.0, 3.0) == 3.0
    assert speed_limit(2.0, math.nan) == 2.0  # upstream's NaN: unlimited
    assert speed_limit(2.0, None) == 2.0
    assert speed_limit(2.0, 5.0) == 2.0


def test_a_session_from_before_a_token_change_is_refused():
    remembered = token_digest('first')
    assert session_allowed('first', remembered)
    assert not session_allowed('second', remembered)
    assert not session_allowed('first', None)
    assert session_allowed(None, None)


def test_every_twist_base_gets_a_pad_on_its_own_topic():
    topics = {t: twist_topic('/r1/controller_manager', 'base', b) for t, b in BASES.items()}
    assert topics[DIFF_DRIVE_TYPE] == '/r1/base/cmd_vel'
    assert topics['tricycle_controller/TricycleController'] == '/r1/base/cmd_vel'
    assert topics['omni_wheel_drive_controller/OmniWheelDriveController'] == '/r1/base/cmd_vel'
    assert topics['mecanum_drive_controller/MecanumDriveController'] == '/r1/base/reference'
    for kind in ('ackermann', 'bicycle', 'tricycle'):
        type_ = f'{kind}_steering_controller/{kind.capitalize()}SteeringController'
        assert topics[type_] == '/r1/base/reference'
    holonomic = sorted(t for t, b in BASES.items() if b.holonomic)
    assert holonomic == [
        'mecanum_drive_controller/MecanumDriveController',
        'omni_wheel_drive_controller/OmniWheelDriveController',
    ]


def test_pad_limits_are_each_controllers_own():
    mecanum = BASES['mecanum_drive_controller/MecanumDriveController']
    values = {
        'linear.x.max_velocity': 0.8,
        'linear.y.max_velocity': 0.3,
        'angular.z.max_velocity': math.nan,  # upstream's unlimited
    }
    assert mecanum.limit_parameters == [
        'angular.z.max_velocity',
        'linear.x.max_velocity',
        'linear.y.max_velocity',
    ]
    assert pad_limits(mecanum, values, 2.0, 4.0) == (0.8, 0.3, 4.0)
    diff_drive = BASES[DIFF_DRIVE_TYPE]
    limits = {'linear.x.max_velocity': 1.0, 'angular.z.max_velocity': 3.0}
    assert pad_limits(diff_drive, limits, 2.0, 4.0) == (1.0, 0.0, 3.0)  # never sideways
    # a tricycle's traction limit is rad/s of its wheel: 5 rad/s * 0.1 m = 0.5 m/s
    tricycle = BASES['tricycle_controller/TricycleController']
    wheel = {'traction.max_velocity': 5.0, 'wheel_radius': 0.1}
    assert pad_limits(tricycle, wheel, 2.0, 4.0) == (0.5, 0.0, 4.0)
    assert pad_limits(tricycle, {'traction.max_velocity': 5.0}, 2.0, 4.0) == (2.0, 0.0, 4.0)
    omni = BASES['omni_wheel_drive_controller/OmniWheelDriveController']
    assert omni.limit_parameters == []
    assert pad_limits(omni, {}, 2.0, 4.0) == (2.0, 2.0, 4.0)  # the pad's range, sideways too
    ackermann = BASES['ackermann_steering_controller/AckermannSteeringController']
    assert pad_limits(ackermann, {}, 2.0, 4.0) == (2.0, 0.0, 4.0)


def test_gripper_goals_and_action_names():
    assert gripper_action('/r1/controller_manager', 'gripper_controller') == (
        '/r1/gripper_controller/gripper_cmd'
    )
    goal = gripper_goal('GripperCommand', 'gripper', 0.012, 1.0)
    assert (goal.command.position, goal.command.max_effort) == (0.012, 1.0)
    with pytest.raises(ValueError, match='max_effort'):
        gripper_goal('GripperCommand', 'gripper', 0.012, None)  # never a 0 effort by default
    goal = gripper_goal('ParallelGripperCommand', 'gripper', 0.5, None)
    assert (list(goal.command.name), list(goal.command.position)) == (['gripper'], [0.5])
    assert list(goal.command.effort) == []  # the controller's own max_effort


def test_a_client_that_left_before_its_answer_is_not_reported_as_an_error():
    def record(exc: BaseException | None) -> logging.LogRecord:
        info = (type(exc), exc, None) if exc is not None else None
        return logging.LogRecord('uvicorn.error', logging.ERROR, 'x', 1, 'Exception', (), info)

    gone = ClientGoneFilter()
    assert not gone.filter(record(RuntimeError('No response returned.')))
    assert gone.filter(record(RuntimeError('something else')))
    assert gone.filter(record(ValueError('No response returned.')))
    assert gone.filter(record(None))
