"""RealtimePublisher over a real rclpy publisher: a message nobody subscribes to is not
filled or sent, and a subscriber that comes later gets messages."""

from std_msgs.msg import Float64

from py_controllers.realtime_tools import RealtimePublisher
from py_controllers.testing import RosHarness


def test_a_message_is_taken_for_filling_only_while_someone_subscribes():
    with RosHarness('rt_listeners') as ros:
        pub = ros.node.create_publisher(Float64, '/rt_listeners', 10)
        rt = RealtimePublisher(pub, Float64(), listener_check_s=0.0, heard_check_s=0.0)
        assert not rt.trylock()
        assert not rt.try_publish()
        assert (rt.unheard, rt.skipped, rt.published) == (2, 0, 0)

        received: list = []
        sub = ros.node.create_subscription(Float64, '/rt_listeners', received.append, 10)
        assert ros.spin_until(lambda: pub.get_subscription_count() == 1)
        assert rt.trylock()
        rt.msg.data = 2.5
        rt.unlock_and_publish()
        assert ros.spin_for_messages(received, 1)
        assert [m.data for m in received] == [2.5]
        assert rt.wait_idle() and rt.published == 1

        ros.node.destroy_subscription(sub)
        assert ros.spin_until(lambda: pub.get_subscription_count() == 0)
        assert not rt.trylock()
        assert rt.unheard == 3


def test_the_subscriber_count_is_asked_once_per_check_interval():
    """The loop pays for asking the middleware once per interval, not once per message."""
    with RosHarness('rt_listeners_cached') as ros:
        pub = ros.node.create_publisher(Float64, '/rt_listeners_cached', 10)
        rt = RealtimePublisher(pub, Float64(), listener_check_s=3600.0)
        assert not rt.trylock()
        ros.node.create_subscription(Float64, '/rt_listeners_cached', lambda _m: None, 10)
        assert ros.spin_until(lambda: pub.get_subscription_count() == 1)
        assert not rt.trylock()  # the answer from the first check still holds
        assert rt.unheard == 2


def test_a_heard_topic_is_asked_again_only_after_the_longer_interval():
    """While somebody listens the loop asks less often: a subscriber that leaves goes on
    being sent messages until the heard interval is over, one that comes is seen at once."""
    with RosHarness('rt_listeners_heard') as ros:
        pub = ros.node.create_publisher(Float64, '/rt_listeners_heard', 10)
        rt = RealtimePublisher(pub, Float64(), listener_check_s=0.0, heard_check_s=3600.0)
        assert not rt.trylock()
        sub = ros.node.create_subscription(Float64, '/rt_listeners_heard', lambda _m: None, 10)
        assert ros.spin_until(lambda: pub.get_subscription_count() == 1)
        assert rt.try_publish()  # unheard: asked again at once
        ros.node.destroy_subscription(sub)
        assert ros.spin_until(lambda: pub.get_subscription_count() == 0)
        assert rt.wait_idle() and rt.try_publish()  # heard: the answer holds for the hour
        assert rt.wait_idle()
        assert (rt.unheard, rt.published) == (1, 2)
