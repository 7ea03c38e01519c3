"""The interface packages built from interfaces/: field-for-field shape and DDS round trips."""

import importlib

import pytest
from ament_index_python import get_resource
from builtin_interfaces.msg import Duration, Time
from control_msgs.action import FollowJointWrenchTrajectory
from control_msgs.msg import (
    JointJog,
    JointTolerance,
    JointWrenchTrajectory,
    JointWrenchTrajectoryPoint,
    WrenchFramed,
)
from control_msgs.srv import QueryCalibrationState
from geometry_msgs.msg import Vector3, Wrench
from interface_table import (  # test/ is on sys.path (its conftest.py)
    CONSTANTS,
    DEFAULTS,
    EXPECTED,
)
from rclpy.action import ActionClient, ActionServer
from rclpy.action.server import GoalResponse
from std_msgs.msg import Header
from trajectory_msgs.msg import JointTrajectoryPoint

from py_controllers.testing import RosHarness


def load(key: str):
    """'pkg/kind/Name[/Part]' -> the generated class."""
    pkg, kind, name, *part = key.split('/')
    cls = getattr(importlib.import_module(f'{pkg}.{kind}'), name)
    for p in part:
        cls = getattr(cls, p)
    return cls


@pytest.mark.parametrize('key', sorted(EXPECTED))
def test_fields_match_upstream(key):
    assert load(key).get_fields_and_field_types() == EXPECTED[key]


@pytest.mark.parametrize('key', sorted(CONSTANTS))
def test_constants_match_upstream(key):
    cls = load(key)
    for name, value in CONSTANTS[key].items():
        assert getattr(cls, name) == value, name
        assert type(getattr(cls, name)) is type(value), name


PARTS = {'msg': [], 'srv': ['Request', 'Response'], 'action': ['Goal', 'Result', 'Feedback']}


def installed(pkg: str) -> set[str]:
    """Every 'pkg/kind/Name' of a package, as the ament index and the Python modules see it."""
    index = {
        f'{pkg}/{entry.removesuffix(".idl")}'
        for entry in get_resource('rosidl_interfaces', pkg)[0].splitlines()
        if entry.endswith('.idl')
    }
    modules = set()
    for kind in PARTS:
        try:
            module = importlib.import_module(f'{pkg}.{kind}')
        except ModuleNotFoundError:
            continue
        # Generated helpers carry an underscore (Name_Request, Name_SendGoal_Event, _name).
        modules |= {f'{pkg}/{kind}/{n}' for n in dir(module) if '_' not in n}
    assert index == modules, 'ament index and Python modules disagree'
    return index


@pytest.mark.parametrize('pkg', sorted({key.split('/')[0] for key in EXPECTED}))
def test_table_lists_exactly_the_installed_types(pkg):
    """A type missing from the build, or built but missing from the table, fails here."""
    types = installed(pkg)
    keys = set()
    for name in types:
        parts = PARTS[name.split('/')[1]]
        keys |= {f'{name}/{part}' for part in parts} if parts else {name}
    assert sorted(keys) == sorted(k for k in EXPECTED if k.startswith(pkg + '/'))


def test_control_msgs_is_upstreams_full_set():
    """All 49 interface files of control_msgs master: 38 messages, 3 services, 8 actions."""
    kinds = [name.split('/')[1] for name in installed('control_msgs')]
    assert (kinds.count('msg'), kinds.count('srv'), kinds.count('action')) == (38, 3, 8)


ZERO = {'boolean': False, 'string': '', 'wstring': '', 'octet': b'\x00'}


@pytest.mark.parametrize('key', sorted(EXPECTED))
def test_default_values_match_upstream(key):
    """Fields with an upstream default carry it; every other plain field starts at zero."""
    msg = load(key)()
    defaults = DEFAULTS.get(key, {})
    for name, type_ in EXPECTED[key].items():
        value = getattr(msg, name)
        if name in defaults:
            assert value == defaults[name], name
        elif type_.startswith('sequence<'):
            assert len(value) == 0, name
        elif '/' not in type_ and '[' not in type_:
            assert value == ZERO.get(type_, 0), name
    assert set(defaults) <= set(EXPECTED[key])


@pytest.fixture(scope='module')
def ros():
    with RosHarness('interface_roundtrip') as harness:
        yield harness


def messages() -> list[str]:
    return sorted(k for k in EXPECTED if k.split('/')[1] == 'msg')


def services() -> list[str]:
    return sorted({'/'.join(k.split('/')[:3]) for k in EXPECTED if k.split('/')[1] == 'srv'})


def actions() -> list[str]:
    return sorted({'/'.join(k.split('/')[:3]) for k in EXPECTED if k.split('/')[1] == 'action'})


@pytest.mark.parametrize('key', messages())
def test_message_round_trip(ros, key):
    cls = load(key)
    topic = 'roundtrip_' + key.replace('/', '_')
    received = ros.subscribe(cls, topic)
    pub = ros.node.create_publisher(cls, topic, 10)
    sent = cls()
    assert ros.spin_until(lambda: pub.publish(sent) or bool(received))
    assert received[0] == sent
    ros.node.destroy_publisher(pub)


@pytest.mark.parametrize('key', services())
def test_service_round_trip(ros, key):
    srv = load(key)
    name = 'roundtrip_' + key.replace('/', '_')
    server = ros.node.create_service(srv, name, lambda req, res: res)
    client = ros.node.create_client(srv, name)
    assert ros.spin_until(client.service_is_ready)
    future = client.call_async(srv.Request())
    assert ros.spin_until(future.done)
    assert isinstance(future.result(), srv.Response)
    ros.node.destroy_client(client)
    ros.node.destroy_service(server)


@pytest.mark.parametrize('key', actions())
def test_action_round_trip(ros, key):
    action = load(key)
    name = 'roundtrip_' + key.replace('/', '_')

    def execute(goal_handle):
        goal_handle.publish_feedback(action.Feedback())
        goal_handle.succeed()
        return action.Result()

    server = ActionServer(
        ros.node, action, name, execute, goal_callback=lambda g: GoalResponse.ACCEPT
    )
    client = ActionClient(ros.node, action, name)
    assert ros.spin_until(client.server_is_ready)
    feedback = []
    send = client.send_goal_async(action.Goal(), feedback_callback=feedback.append)
    assert ros.spin_until(send.done)
    goal_handle = send.result()
    assert goal_handle.accepted
    result = goal_handle.get_result_async()
    assert ros.spin_until(result.done)
    assert isinstance(result.result().result, action.Result)
    client.destroy()
    server.destroy()


# Round trips with content: the new interfaces a user's own nodes talk with.


def test_joint_jog_topic_round_trip(ros):
    received = ros.subscribe(JointJog, 'roundtrip_joint_jog')
    pub = ros.node.create_publisher(JointJog, 'roundtrip_joint_jog', 10)
    sent = JointJog(
        header=Header(stamp=Time(sec=12, nanosec=5), frame_id='base_link'),
        joint_names=['shoulder', 'elbow'],
        displacements=[0.1, -0.25],
        velocities=[0.5, -1.5],
        duration=0.2,
    )
    assert ros.spin_until(lambda: pub.publish(sent) or bool(received))
    assert received[0] == sent
    assert list(received[0].velocities) == [0.5, -1.5]
    ros.node.destroy_publisher(pub)


def test_query_calibration_state_service_round_trip(ros):
    def answer(request, response):
        response.is_calibrated = True
        return response

    name = 'roundtrip_query_calibration_state'
    server = ros.node.create_service(QueryCalibrationState, name, answer)
    client = ros.node.create_client(QueryCalibrationState, name)
    assert ros.spin_until(client.service_is_ready)
    future = client.call_async(QueryCalibrationState.Request())
    assert ros.spin_until(future.done)
    assert future.result().is_calibrated is True
    ros.node.destroy_client(client)
    ros.node.destroy_service(server)


def test_follow_joint_wrench_trajectory_action_round_trip(ros):
    points = [
        JointWrenchTrajectoryPoint(
            point=JointTrajectoryPoint(
                positions=[0.1 * i, -0.1 * i], time_from_start=Duration(sec=i)
            ),
            wrench=WrenchFramed(
                frame_id='tool0', wrench=Wrench(force=Vector3(z=-5.0 * i), torque=Vector3(x=0.5))
            ),
        )
        for i in (1, 2)
    ]
    goal = FollowJointWrenchTrajectory.Goal(
        trajectory=JointWrenchTrajectory(joint_names=['a', 'b'], points=points),
        path_tolerance=[JointTolerance(name='a', position=0.05)],
        goal_time_tolerance=Duration(nanosec=500_000_000),
    )
    received = []

    def execute(goal_handle):
        request = goal_handle.request
        received.append(request)
        last = request.trajectory.points[-1]
        goal_handle.publish_feedback(
            FollowJointWrenchTrajectory.Feedback(
                joint_names=request.trajectory.joint_names, desired=last, index=1
            )
        )
        goal_handle.abort()
        return FollowJointWrenchTrajectory.Result(
            error_code=FollowJointWrenchTrajectory.Result.TRAJECTORY_ABORTED, error_string='stopped'
        )

    name = 'roundtrip_follow_joint_wrench_trajectory'
    server = ActionServer(ros.node, FollowJointWrenchTrajectory, name, execute)
    client = ActionClient(ros.node, FollowJointWrenchTrajectory, name)
    assert ros.spin_until(client.server_is_ready)
    feedback = []
    send = client.send_goal_async(goal, feedback_callback=feedback.append)
    assert ros.spin_until(send.done)
    assert send.result().accepted
    result = send.result().get_result_async()
    assert ros.spin_until(lambda: result.done() and bool(feedback))
    assert received[0] == goal
    assert feedback[0].feedback.desired == points[-1]
    assert list(feedback[0].feedback.joint_names) == ['a', 'b']
    assert result.result().result.error_code == -6
    assert result.result().result.error_string == 'stopped'
    client.destroy()
    server.destroy()
