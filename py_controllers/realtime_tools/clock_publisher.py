"""ClockPublisher: /clock from the control loop, ahead of the messages stamped with its time.

The loop hands the cycle's simulation time over before update() (see
`ControlLoop.simulated_cycle`), so in the publishing thread's queue /clock comes before
every message the controllers stamp with that time. It never skips a time as a try-lock
publisher would while the previous sample is on its way: the loop only stores the time,
and the one queued sample sends the latest stored when its turn comes (the flag is
cleared before the time is read, so a time stored after the read queues a new sample).
The stamp is written into serialized bytes by the publishing thread, never by the loop.
"""

from __future__ import annotations

from typing import Any

from rosgraph_msgs.msg import Clock

from py_controllers.realtime_tools import realtime_publisher
from py_controllers.realtime_tools.serialized_message import SerializedMessage
from py_controllers.ros_conversions import set_stamp


class ClockPublisher:
    """Publishes rosgraph_msgs/Clock with the latest time handed to `publish()`."""

    def __init__(self, publisher: Any) -> None:
        self.publisher = publisher
        self._message = SerializedMessage(Clock())
        self._stamp = self._message.time(self._message.msg.clock)
        self._latest_ns = 0
        self._queued = False
        self.published = 0
        self.errors = 0

    def publish(self, now_ns: int) -> None:
        """Hand `now_ns` over (loop thread; never blocks)."""
        self._latest_ns = now_ns
        if not self._queued:
            self._queued = True
            realtime_publisher.hand_over(self)

    def _publish_and_unlock(self) -> None:
        """Send the latest time (publishing thread)."""
        self._queued = False
        set_stamp(self._stamp, self._latest_ns)
        try:
            self.publisher.publish(self._message.payload())
            self.published += 1
        except Exception:  # context shut down or publisher destroyed: drop the sample
            self.errors += 1
