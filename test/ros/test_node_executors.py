"""NodeExecutors: each controller node served by a thread of its own (real rclpy, real DDS)."""

import threading
import time

import pytest
import rclpy
from rclpy.executors import SingleThreadedExecutor
from std_msgs.msg import String

from py_controllers.controller_manager import node_executors
from py_controllers.controller_manager.node_executors import BetweenCycles, NodeExecutors
from py_controllers.realtime_tools.cycle_gate import CycleGate
from py_controllers.testing import RosHarness

GATE = CycleGate()  # no loop announced: callbacks never wait


class Log:
    def __init__(self):
        self.errors = []

    def error(self, text):
        self.errors.append(text)


@pytest.fixture
def ros():
    with RosHarness('node_executors_test') as harness:
        yield harness


def served_node(ros, name, topic, seen, fail_first=False):
    node = rclpy.create_node(name, context=ros.context)

    def on_message(msg):
        seen.append((threading.current_thread().name, msg.data))
        if fail_first and len(seen) == 1:
            raise RuntimeError('a bad message')

    node.create_subscription(String, topic, on_message, 10)
    return node


def publish_until(ros, pub, seen, count):
    """Publish (the test's executor spins only its own node) until `seen` holds `count`."""
    k = 0

    def more():
        nonlocal k
        if len(seen) >= count:
            return True
        k += 1
        pub.publish(String(data=str(k)))
        return False

    return ros.spin_until(more, 20.0)


def test_each_node_is_served_by_its_own_thread(ros):
    executors = NodeExecutors(lambda: GATE, Log())
    seen_a, seen_b = [], []
    a = served_node(ros, 'node_a', 'topic_a', seen_a)
    b = served_node(ros, 'node_b', 'topic_b', seen_b)
    executors.add(a)
    executors.add(b)
    assert len(executors) == 2
    try:
        assert publish_until(ros, ros.node.create_publisher(String, 'topic_a', 10), seen_a, 3)
        assert publish_until(ros, ros.node.create_publisher(String, 'topic_b', 10), seen_b, 3)
        assert {name for name, _ in seen_a} == {'executor:node_a'}
        assert {name for name, _ in seen_b} == {'executor:node_b'}
    finally:
        executors.stop_all()
        a.destroy_node()
        b.destroy_node()
    assert len(executors) == 0


def test_remove_ends_the_thread_without_waiting_out_the_idle_timeout(ros, monkeypatch):
    # With an hour of idle timeout, only the wake-up on removal can end the thread before
    # remove()'s join gives up (5 s).
    monkeypatch.setattr(node_executors, 'IDLE_WAKE_S', 3600.0)
    executors = NodeExecutors(lambda: GATE, Log())
    node = rclpy.create_node('node_removed', context=ros.context)
    executors.add(node)
    thread = executors._threads[id(node)].thread
    assert thread.is_alive()
    executors.remove(node)
    assert not thread.is_alive()
    node.destroy_node()


def test_a_failing_callback_is_logged_and_the_node_still_served(ros):
    log = Log()
    executors = NodeExecutors(lambda: GATE, log)
    seen = []
    node = served_node(ros, 'node_failing', 'topic_f', seen, fail_first=True)
    executors.add(node)
    try:
        assert publish_until(ros, ros.node.create_publisher(String, 'topic_f', 10), seen, 3)
    finally:
        executors.stop_all()
        node.destroy_node()
    assert len(log.errors) == 1
    assert "callback of 'node_failing' failed" in log.errors[0]
    assert 'a bad message' in log.errors[0]


def test_work_is_measured_and_waits_when_it_would_run_into_the_window(ros):
    """BetweenCycles learns how long the executor's wait-set work and callbacks hold the
    interpreter, and asks the gate with those lengths: with the window an hour away,
    work known to take longer is held back (bounded), work that fits is not."""
    node = rclpy.create_node('between_cycles', context=ros.context)
    ran = []
    guard = node.create_guard_condition(lambda: ran.append(sum(range(20_000))))
    executor = SingleThreadedExecutor(context=ros.context)
    executor.add_node(node)
    gate = CycleGate(guard_ns=0)
    gate.next_deadline(time.monotonic_ns() + 3_600 * 10**9)
    spinner = BetweenCycles(executor)
    try:
        guard.trigger()
        spinner.spin_once(gate, 5.0)
        assert ran and gate.waits == 0
        assert spinner.waiting.ns > 0 and spinner.callback.ns > 0  # measured

        spinner.waiting.ns = spinner.callback.ns = 2 * 3_600 * 10**9  # as if two hours long
        guard.trigger()
        spinner.spin_once(gate, 5.0)
        assert len(ran) == 2
        assert gate.waits == 2  # the wait-set work, then the callback
    finally:
        executor.shutdown(timeout_sec=0.0)
        node.destroy_node()
