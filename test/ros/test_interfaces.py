"""The interface packages built from interfaces/: field-for-field shape and DDS round trips."""

import importlib

import pytest
from interface_table import CONSTANTS, EXPECTED  # test/ is on sys.path (its conftest.py)
from rclpy.action import ActionClient, ActionServer
from rclpy.action.server import GoalResponse

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
