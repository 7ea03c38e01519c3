"""RealtimeBox and RealtimePublisher: hand-over semantics, without ROS."""

import threading

from py_controllers.realtime_tools import RealtimeBox, RealtimePublisher


def test_box_latest_value_wins():
    box = RealtimeBox(None)
    assert box.get() is None
    for i in range(5):
        box.set((i, 2 * i))
    assert box.get() == (4, 8)


def test_box_concurrent_writer_never_tears_values():
    box = RealtimeBox((0, 0))
    stop = threading.Event()
    written = []

    def writer():
        i = 0
        while not stop.is_set():
            i += 1
            box.set((i, -i))
        written.append(i)

    t = threading.Thread(target=writer)
    t.start()
    for _ in range(20000):
        a, b = box.get()
        assert a == -b
    stop.set()
    t.join()
    assert box.get() == (written[0], -written[0])


class _GatedPublisher:
    """A stand-in for an rclpy publisher that blocks until released."""

    def __init__(self):
        self.gate = threading.Event()
        self.sent = []

    def publish(self, msg):
        self.gate.wait(5.0)
        self.sent.append(dict(msg))


def test_publisher_skips_while_previous_message_in_flight():
    inner = _GatedPublisher()
    rt = RealtimePublisher(inner, {'value': 0})
    assert rt.trylock()
    rt.msg['value'] = 1
    rt.unlock_and_publish()
    # the worker holds the message until the gate opens: the loop must skip
    assert not rt.trylock()
    assert not rt.try_publish()
    assert rt.skipped == 2
    inner.gate.set()
    assert rt.wait_idle(5.0)
    assert inner.sent == [{'value': 1}]
    assert rt.trylock()
    rt.msg['value'] = 2
    rt.unlock_and_publish()
    assert rt.wait_idle(5.0)
    assert inner.sent == [{'value': 1}, {'value': 2}]
    assert rt.published == 2


def test_publisher_error_releases_the_message():
    class Broken:
        def publish(self, msg):
            raise RuntimeError('context shut down')

    rt = RealtimePublisher(Broken(), {})
    assert rt.try_publish()
    assert rt.wait_idle(5.0)
    assert rt.errors == 1
    assert rt.trylock()
    rt.unlock()


def test_publisher_defers_messages_from_the_loop_thread_until_flushed():
    from py_controllers.realtime_tools import realtime_publisher

    inner = _GatedPublisher()
    inner.gate.set()
    rt = RealtimePublisher(inner, {'value': 3})
    realtime_publisher.defer_in_thread(threading.get_ident())
    try:
        assert rt.try_publish()
        assert not rt.wait_idle(0.05)  # held: not sent yet, still locked
        assert inner.sent == []
        realtime_publisher.flush_deferred()
        assert rt.wait_idle(5.0)
        assert inner.sent == [{'value': 3}]
    finally:
        realtime_publisher.defer_in_thread(None)


def test_two_loop_threads_defer_apart():
    """Two managers in one process: each loop flushes only what it handed over."""
    from py_controllers.realtime_tools import realtime_publisher

    inner_a, inner_b = _GatedPublisher(), _GatedPublisher()
    inner_a.gate.set()
    inner_b.gate.set()
    a, b = RealtimePublisher(inner_a, {'a': 1}), RealtimePublisher(inner_b, {'b': 2})
    handed_over = threading.Event()
    flush_b = threading.Event()

    def loop_b():
        realtime_publisher.defer_in_thread(threading.get_ident())
        try:
            assert b.try_publish()
            handed_over.set()
            flush_b.wait(5.0)
            realtime_publisher.flush_deferred()
        finally:
            realtime_publisher.defer_in_thread(None)

    realtime_publisher.defer_in_thread(threading.get_ident())
    thread = threading.Thread(target=loop_b)
    thread.start()
    try:
        assert handed_over.wait(5.0)
        assert a.try_publish()
        realtime_publisher.flush_deferred()  # this thread's: a only
        assert a.wait_idle(5.0)
        assert inner_a.sent == [{'a': 1}]
        assert not b.wait_idle(0.05)  # still held by the other loop
        assert inner_b.sent == []
        flush_b.set()
        thread.join(5.0)
        assert b.wait_idle(5.0) and inner_b.sent == [{'b': 2}]
    finally:
        realtime_publisher.defer_in_thread(None)


def test_drain_waits_for_what_was_handed_over():
    from py_controllers.realtime_tools import realtime_publisher

    out = _GatedPublisher()
    rt = RealtimePublisher(out, {'n': 0})
    assert rt.trylock()
    rt.msg['n'] = 1
    rt.unlock_and_publish()
    # the publish is stuck behind the gate: drain times out, nothing sent yet
    assert not realtime_publisher.drain(timeout_s=0.05)
    assert out.sent == []
    out.gate.set()
    assert realtime_publisher.drain(timeout_s=5.0)
    assert out.sent == [{'n': 1}] and rt.published == 1
