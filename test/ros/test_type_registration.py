"""type_registration: what the demo and the dashboard register before their nodes exist, so
that kilted's type-lookup race (docs/install.md) cannot drop a manager's writer for them.
The race itself is measured by scripts/type_lookup_race.py (a few starts in a hundred lose a
writer; none with `--register-first`): too rare for a test here."""

import os

from control_msgs.msg import DynamicInterfaceGroupValues
from geometry_msgs.msg import TwistStamped
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from py_controllers.testing import RosHarness
from py_controllers.type_registration import (
    NODE_NAME,
    TOPIC_PREFIX,
    message_types,
    register_message_types,
    registering_node,
)


def test_the_types_of_a_controllers_reader_and_writer_pairs_are_registered():
    """The pairs a manager offers in one type: a GPIO controller's commands and states, the
    diff drive's cmd_vel and cmd_vel_out, a topic-based robot's joint commands and states."""
    types = message_types()
    for cls in (DynamicInterfaceGroupValues, TwistStamped, JointState, Float64MultiArray):
        assert cls in types
    assert len(types) == len(set(types))


def test_registration_leaves_nothing_behind_and_this_process_keeps_working():
    some = message_types(['std_msgs', 'control_msgs'])
    assert register_message_types(some) == len(some)
    with RosHarness('type_registration_check') as ros:
        # this process's own rclpy works after the short-lived context: a round trip of the
        # type a GPIO controller uses
        heard = ros.subscribe(DynamicInterfaceGroupValues, '/type_registration_check')
        pub = ros.node.create_publisher(DynamicInterfaceGroupValues, '/type_registration_check', 10)
        sent = DynamicInterfaceGroupValues(interface_groups=['tool_io'])
        assert ros.spin_until(lambda: pub.publish(sent) or bool(heard))
        assert list(heard[-1].interface_groups) == ['tool_io']

        def gone() -> bool:
            nodes = ros.node.get_node_names()
            topics = [name for name, _ in ros.node.get_topic_names_and_types()]
            return NODE_NAME not in nodes and not any(t.startswith(TOPIC_PREFIX) for t in topics)

        assert ros.spin_until(gone)


def test_the_registering_participant_is_discovered_by_nobody(monkeypatch):
    """Nobody can ask it for its types while it goes away (with discovery on, deleting its
    publishers crashed the process now and then: Fast DDS answering a lookup); not either
    where the deprecated ROS_LOCALHOST_ONLY, which overrides the discovery range, is set."""
    monkeypatch.setenv('ROS_LOCALHOST_ONLY', '1')
    with (
        RosHarness('registration_look') as ros,
        registering_node(),
        RosHarness('registration_visible'),  # started after it: seen, where it is not
    ):
        assert ros.spin_until(lambda: 'registration_visible' in ros.node.get_node_names())
        # absence has no event to await: a node that can be discovered shows within this
        # bound here (with discovery on, in well under a second), generous for a loaded host
        assert not ros.spin_until(lambda: NODE_NAME in ros.node.get_node_names(), 3.0)


def test_registration_gives_the_environment_back(monkeypatch):
    monkeypatch.setenv('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    monkeypatch.setenv('ROS_STATIC_PEERS', '127.0.0.1')
    monkeypatch.delenv('ROS_LOCALHOST_ONLY', raising=False)
    register_message_types(message_types(['std_msgs']))
    assert os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] == 'LOCALHOST'
    assert os.environ['ROS_STATIC_PEERS'] == '127.0.0.1'
    assert 'ROS_LOCALHOST_ONLY' not in os.environ
