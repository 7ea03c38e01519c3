"""RequestHandoff (the diff drive's ~/set_odometry box): no request is ever lost."""

from py_controllers.controllers.diff_drive.request_handoff import RequestHandoff
from py_controllers.realtime_tools import RealtimeBox


class InterruptedBox(RealtimeBox):
    """A box whose reader is interrupted right after its read: `writer()` runs there once.

    This is the service callback running between the loop's read of the request and
    whatever the loop does next (the old code cleared the box there).
    """

    def __init__(self) -> None:
        super().__init__(None)
        self.writer = None

    def get(self):
        value = super().get()
        writer, self.writer = self.writer, None
        if writer is not None:
            writer()
        return value


def test_a_request_put_between_the_loops_read_and_its_next_step_is_taken_next_cycle():
    box = InterruptedBox()
    requests = RequestHandoff(box=box)
    requests.put((1.0, 2.0, 0.0))
    box.writer = lambda: requests.put((5.0, 6.0, 0.5))  # arrives mid-take
    assert requests.take_rt() == (1.0, 2.0, 0.0)  # cycle k: the first request
    assert requests.take_rt() == (5.0, 6.0, 0.5)  # cycle k+1: the one that arrived mid-take
    assert requests.take_rt() is None  # each request once


def test_each_request_is_taken_once_and_equal_requests_count_twice():
    requests = RequestHandoff()
    assert requests.take_rt() is None
    requests.put((0.0, 0.0, 0.0))
    assert requests.take_rt() == (0.0, 0.0, 0.0)
    assert requests.take_rt() is None
    # the same pose again (reset the odometry twice): a new request, applied again
    requests.put((0.0, 0.0, 0.0))
    assert requests.take_rt() == (0.0, 0.0, 0.0)
    assert requests.take_rt() is None


def test_between_two_cycles_the_newest_request_wins():
    requests = RequestHandoff()
    requests.put((1.0, 0.0, 0.0))
    requests.put((2.0, 0.0, 0.0))
    assert requests.take_rt() == (2.0, 0.0, 0.0)
    assert requests.take_rt() is None


def test_discard_drops_what_is_pending():
    requests = RequestHandoff()
    requests.put((1.0, 0.0, 0.0))
    requests.discard_rt()
    assert requests.take_rt() is None
    requests.put((3.0, 0.0, 0.0))
    assert requests.take_rt() == (3.0, 0.0, 0.0)
