"""RealtimePublisher: publish from the control loop without ever blocking it.

The loop takes the message with `trylock()`, fills it in place and calls
`unlock_and_publish()`. One shared worker thread does the rclpy publish and then
unlocks; if the previous message is still on its way, `trylock()` fails and the loop
skips that sample, exactly like realtime_tools' try-lock publisher.

Publishing holds the GIL, so a worker woken in the middle of a cycle would steal time
from it. The control loop therefore registers its thread with `defer_in_thread()`:
messages handed over from that thread wait until it calls `flush_deferred()` at the
end of the cycle, and are published while the loop sleeps. The registration is per loop
thread (with that loop's gate), so two managers in one process keep apart; the worker
thread is shared, as publishing is.

A message nobody subscribes to is not filled at all: `trylock()` fails (counted as
`unheard`) while the topic has no subscriber. Asking the middleware costs the loop 9-18 us
after a 10 ms sleep, so it is asked at most every `LISTENER_CHECK_S` while nobody listens (a
new subscriber gets messages within that time of being matched; discovery itself takes
longer), and every `HEARD_CHECK_S` while somebody does (after the last one leaves, messages
go on being sent to nobody for at most that long).
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Generic, TypeVar

from py_controllers.realtime_tools.cycle_gate import CycleGate
from py_controllers.realtime_tools.serialized_message import SerializedMessage

MsgT = TypeVar('MsgT')

LISTENER_CHECK_S = 0.1
HEARD_CHECK_S = 1.0


class _PublishWorker:
    """One daemon thread that publishes on behalf of every realtime publisher."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[
            tuple[RealtimePublisher, CycleGate | None] | threading.Event | None
        ] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name='rt_publisher', daemon=True)
        self._thread.start()

    def submit(self, pub: RealtimePublisher, gate: CycleGate | None = None) -> None:
        self._queue.put((pub, gate))

    def drain(self, timeout_s: float) -> bool:
        """Wait until everything submitted so far has been published; False on timeout."""
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout_s)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if isinstance(item, threading.Event):
                item.set()
                continue
            pub, gate = item
            if gate is not None:  # the loop whose message this is: keep out of its way
                gate.wait_clear()
            pub._publish_and_unlock()


_worker: _PublishWorker | None = None
_worker_lock = threading.Lock()
# loop thread id -> (its gate, the publishers it handed over this cycle)
_deferrals: dict[int, tuple[CycleGate | None, list[RealtimePublisher]]] = {}


def defer_in_thread(thread_id: int | None, gate: CycleGate | None = None) -> None:
    """Hold messages handed over from `thread_id` until it calls flush_deferred(); with
    `gate`, the worker keeps out of that loop's way while a cycle is due. None: the calling
    thread stops deferring (what it holds goes out)."""
    if thread_id is None:
        flush_deferred()
        _deferrals.pop(threading.get_ident(), None)
    else:
        _deferrals[thread_id] = (gate, [])


def flush_deferred() -> None:
    """Submit the messages the calling thread holds (call from that thread)."""
    entry = _deferrals.get(threading.get_ident())
    if entry is not None and entry[1]:
        gate, held = entry
        worker = _get_worker()
        for pub in held:
            worker.submit(pub, gate)
        held.clear()


def hand_over(pub: Any) -> None:
    """Queue `pub._publish_and_unlock()` for the publishing thread, in hand-over order: held
    until flush_deferred() when the calling thread defers, else submitted now."""
    entry = _deferrals.get(threading.get_ident())
    if entry is not None:
        entry[1].append(pub)
    else:
        (_worker or _get_worker()).submit(pub)


def drain(timeout_s: float = 1.0) -> bool:
    """Wait until the publishing thread has sent what was handed to it so far (not what a
    loop thread still holds back); for benchmarks and tests. False on timeout."""
    return _get_worker().drain(timeout_s)


def _get_worker() -> _PublishWorker:
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = _PublishWorker()
        return _worker


class RealtimePublisher(Generic[MsgT]):
    """Wraps an rclpy publisher and one preallocated message (or a `SerializedMessage`,
    whose bytes are sent). A publisher without `get_subscription_count` (an action's
    feedback) is always taken as heard."""

    def __init__(
        self,
        publisher: Any,
        msg: MsgT,
        *,
        listener_check_s: float = LISTENER_CHECK_S,
        heard_check_s: float = HEARD_CHECK_S,
    ) -> None:
        self.publisher = publisher
        self.msg = msg
        self._serialized = msg if isinstance(msg, SerializedMessage) else None
        self._lock = threading.Lock()
        self._worker = _get_worker()
        self._count_listeners = getattr(publisher, 'get_subscription_count', None)
        self._check_ns = int(listener_check_s * 1e9)
        self._heard_check_ns = int(heard_check_s * 1e9)
        self._next_check_ns = 0
        self._heard = True
        self.published = 0
        self.skipped = 0
        self.unheard = 0
        self.errors = 0

    def trylock(self) -> bool:
        """Take the message for filling; False while nobody subscribes (counted as
        unheard) or while the previous one is being sent (counted as skipped)."""
        if self._count_listeners is not None and not self._is_heard():
            self.unheard += 1
            return False
        if self._lock.acquire(False):  # positional: a keyword costs the call a dict
            return True
        self.skipped += 1
        return False

    def _is_heard(self) -> bool:
        now_ns = time.monotonic_ns()
        if now_ns >= self._next_check_ns:
            try:
                self._heard = self._count_listeners() > 0
            except Exception:  # publisher destroyed or context shut down: nothing to send to
                self._heard = False
            self._next_check_ns = now_ns + (self._heard_check_ns if self._heard else self._check_ns)
        return self._heard

    def unlock_and_publish(self) -> None:
        """Hand the filled message to the publishing thread; it unlocks when sent."""
        hand_over(self)

    def unlock(self) -> None:
        """Give the message back without publishing."""
        self._lock.release()

    def try_publish(self) -> bool:
        """Publish `msg` as it is now, if no previous publish is pending."""
        if not self.trylock():
            return False
        self.unlock_and_publish()
        return True

    def _publish_and_unlock(self) -> None:
        try:
            serialized = self._serialized
            self.publisher.publish(self.msg if serialized is None else serialized.payload())
            self.published += 1
        except Exception:  # context shut down or publisher destroyed: drop the sample
            self.errors += 1
        finally:
            self._lock.release()

    def wait_idle(self, timeout_s: float = 1.0) -> bool:
        """Block until the pending message (if any) is sent; for shutdown and tests."""
        if self._lock.acquire(timeout=timeout_s):
            self._lock.release()
            return True
        return False

    def describe(self) -> str:
        """The topic, the counters, the listeners and whether a message is on its way."""
        topic = getattr(self.publisher, 'topic_name', '?')
        try:
            listeners: Any = self._count_listeners() if self._count_listeners else 'n/a'
        except Exception as exc:  # destroyed publisher, shut-down context
            listeners = type(exc).__name__
        payload = '' if self._serialized is None else f', {self._serialized.check()}'
        return (
            f'{topic}: published {self.published}, skipped {self.skipped}, unheard '
            f'{self.unheard}, errors {self.errors}, listeners {listeners}, '
            f'pending {self._lock.locked()}{payload}; {worker_state()}'
        )


def worker_state() -> str:
    """Whether the publishing thread lives and how much waits for it."""
    worker = _worker
    if worker is None:
        return 'no publishing thread yet'
    alive = 'alive' if worker._thread.is_alive() else 'DEAD'
    return f'publishing thread {alive}, {worker._queue.qsize()} queued'
