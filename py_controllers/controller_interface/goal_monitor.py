"""GoalMonitor: the non-realtime side of an action whose goals a control loop executes.

An action server's goals are executed by the control loop, which must never block, call rclpy
or touch a goal handle. The monitor keeps that rule for any controller that serves an action:
the ``JointTrajectoryController`` (FollowJointTrajectory), the gripper action controllers
(GripperCommand, ``controllers/gripper_action``) and the parallel gripper action controller
(ParallelGripperCommand, ``controllers/parallel_gripper``) all use it as it is. It knows
nothing about trajectories or grippers: the controller passes the action type and these
callbacks.

* ``validate_goal(request) -> GoalResponse``: accept or reject a goal request (executor
  thread; an exception rejects).
* ``goal_accepted(goal)``: a :class:`MonitoredGoal` was accepted; preempt the previous goal,
  convert the request and hand it to the loop (executor thread; an exception aborts the goal
  with an empty result).
* ``cancel_requested(goal)``: a client asked to cancel ``goal``; the monitor accepts every
  request, as upstream's trajectory and gripper controllers do. Stop the loop and record
  CANCELED (executor thread; an exception rejects the cancel request).
* ``make_result(details)``: the action's Result message for an outcome's details.
* ``following(goal)``: true while the loop still executes ``goal`` (read without locks).

Threads, and who does what:

* Anyone (the loop, or a controller callback in the executor thread) records how a goal ended
  with :meth:`GoalMonitor.record_outcome`: a list append and a guard condition trigger, never
  blocking. The first recorded outcome wins. ``details`` is what ``make_result`` turns into the
  Result message off the loop (or a ready Result message).
* The monitor itself runs only in the executor thread, woken by that guard condition. It
  logs the lines the loop handed over (:meth:`GoalMonitor.log_rt`) and, once a goal has an
  outcome and the loop no longer follows it, calls ``goal_handle.execute()``. rclpy then
  runs the action server's execute callback as a task of the same executor: it sets the
  terminal state (``succeed()``, ``abort()``, or ``canceled()`` after a client's cancel
  request) and returns the Result, which rclpy sends to the client. A CANCELED result thus
  tells the client that the robot no longer follows the goal.
* Feedback never wakes the executor: at ``feedback_rate_hz`` of loop time the loop fills the
  goal's Feedback message (:meth:`MonitoredGoal.take_feedback_rt`) and hands it to the
  realtime publishing thread (:meth:`MonitoredGoal.send_feedback_rt`), which publishes it
  through the goal handle after the cycle, like any realtime-published message.
* The execute callback never waits, so no task stays pending in the executor. (A coroutine
  awaiting the outcome would: rclpy up to Kilted re-runs a pending task at the start of every
  round of ``wait_for_ready_callbacks`` and starts a new round whenever the arguments of
  ``spin_once`` change, so alternating timeouts, as our test harness uses, would run nothing
  but that task; ros2/rclpy#1159.) The price: a goal reads ACCEPTED, not EXECUTING, while
  the loop executes it, and EXECUTING only on its way to the terminal state.
* :meth:`GoalMonitor.close` (cleanup) finishes every open goal at once, so none is left without
  a terminal state, and rejects new goals; the action server stays until
  :meth:`GoalMonitor.destroy` (the next configure, or the controller's unload), as upstream's
  controllers keep theirs. Destroyed at once, its status writer could go before a remote
  client had the ABORTED status (seen once under load), and a result request would never
  be answered.

Only public rclpy API is used (ActionServer, ServerGoalHandle.execute/succeed/abort/canceled/
publish_feedback/is_active/is_cancel_requested, guard conditions), as in Humble, Jazzy and
Kilted.
"""

from __future__ import annotations

import collections
import contextlib
import threading
from collections.abc import Callable
from typing import Any

from rclpy.action import ActionServer, CancelResponse, GoalResponse

from py_controllers.callback_guard import refusing
from py_controllers.realtime_tools.deferred import log_at
from py_controllers.realtime_tools.realtime_publisher import RealtimePublisher

__all__ = ['ABORTED', 'CANCELED', 'SUCCEEDED', 'GoalMonitor', 'MonitoredGoal']

# How a goal ended: the terminal state its execute callback sets.
SUCCEEDED, ABORTED, CANCELED = 'succeeded', 'aborted', 'canceled'


class _GoalFeedback:
    """Publishes one goal's feedback through its goal handle (the publisher a
    RealtimePublisher needs)."""

    __slots__ = ('_goal_handle',)

    def __init__(self, goal_handle: Any) -> None:
        self._goal_handle = goal_handle

    def publish(self, feedback: Any) -> None:
        # rclpy ignores a goal handle destroyed meanwhile; a destroyed action server raises,
        # which the publishing thread counts as a dropped sample
        self._goal_handle.publish_feedback(feedback)


class MonitoredGoal:
    """One accepted goal, shared by the loop and the executor thread.

    * ``request``: the goal message (read-only everywhere).
    * ``outcomes``: ``(status, details)`` entries, the first one wins (see
      :meth:`GoalMonitor.record_outcome`); ``finished`` is true once there is one (loop-safe).
    * ``feedback``: the action's Feedback message, filled by the loop between
      :meth:`take_feedback_rt` and :meth:`send_feedback_rt`.
    * ``data``: the controller's own per-goal state (the JTC keeps tolerances and views of the
      feedback arrays there).
    """

    __slots__ = (
        '_feedback_due_ns',
        '_feedback_period_ns',
        '_feedback_rt',
        'data',
        'feedback',
        'goal_id',
        'outcomes',
        'request',
    )

    def __init__(
        self,
        request: Any,
        goal_id: bytes,
        feedback: Any,
        goal_handle: Any,
        feedback_period_ns: int,
    ) -> None:
        self.request = request
        self.goal_id = goal_id
        self.outcomes: list[tuple[str, Any]] = []
        self.feedback = feedback
        self.data: Any = None
        self._feedback_rt = RealtimePublisher(_GoalFeedback(goal_handle), feedback)
        self._feedback_period_ns = feedback_period_ns
        self._feedback_due_ns: int | None = None

    @property
    def finished(self) -> bool:
        """True once an outcome is recorded (loop-safe)."""
        return bool(self.outcomes)

    def take_feedback_rt(self, now_ns: int) -> Any | None:
        """The Feedback message to fill if feedback is due at loop time ``now_ns`` and the
        previous one has gone out, else None (loop-safe, never blocks)."""
        due = self._feedback_due_ns
        period = self._feedback_period_ns
        if due is not None and 0 < due - now_ns <= period:
            return None  # not due yet
        if not self._feedback_rt.trylock():
            return None
        if due is None or not 0 <= now_ns - due < period:
            # the first feedback, or after a pause or a jump of loop time: due from now on
            due = now_ns
        self._feedback_due_ns = due + period
        return self.feedback

    def send_feedback_rt(self) -> None:
        """Publish the Feedback taken with :meth:`take_feedback_rt` (after the cycle)."""
        self._feedback_rt.unlock_and_publish()


def _never_following(goal: MonitoredGoal) -> bool:
    return False


class GoalMonitor:
    """Serves ``action_type`` on ``action_name`` for goals a control loop executes.

    Created in the controller's configure, closed in its cleanup. Used by the joint trajectory
    controller and the gripper action controllers as it is: see the module docstring for the
    contract and the threads.

    :param following: loop-safe predicate, true while the loop still executes ``goal``; a
        goal's result goes out only when it is false (default: never following).
    :param make_result: ``details`` of an outcome to the action's Result message (executor
        thread). A Result message passed as details is used as it is.
    :param feedback_rate_hz: how often (in loop time) the loop fills and sends feedback.
    """

    def __init__(
        self,
        node: Any,
        action_type: Any,
        action_name: str,
        *,
        validate_goal: Callable[[Any], GoalResponse],
        goal_accepted: Callable[[MonitoredGoal], None],
        cancel_requested: Callable[[MonitoredGoal], None],
        make_result: Callable[[Any], Any],
        feedback_rate_hz: float,
        following: Callable[[MonitoredGoal], bool] = _never_following,
    ) -> None:
        self._node = node
        self._log = node.get_logger()
        self._action_type = action_type
        self._goal_accepted = goal_accepted
        self._cancel_requested = cancel_requested
        self._make_result = make_result
        self._following = following
        self._lock = threading.Lock()
        # accepted goals not handed to rclpy's execute callback yet, in acceptance order
        self._open: dict[bytes, tuple[MonitoredGoal, Any]] = {}
        # handed over, their execute callback not run yet
        self._executing: dict[bytes, tuple[MonitoredGoal, Any]] = {}
        self._loop_log: collections.deque[tuple[str, str]] = collections.deque(maxlen=64)
        self._closed = False
        self._feedback_period_ns = round(1e9 / float(feedback_rate_hz))
        self._validate_goal = validate_goal
        self._server = ActionServer(
            node,
            action_type,
            action_name,
            execute_callback=self._execute,
            goal_callback=refusing(self._validate, self._log, GoalResponse.REJECT),
            handle_accepted_callback=self._on_accepted,
            cancel_callback=refusing(self._on_cancel, self._log, CancelResponse.REJECT),
        )
        # the loop wakes the monitor when it has logs or an outcome; nothing else does
        self._wake = node.create_guard_condition(self._poll)

    # --- any thread, never blocking ------------------------------------------------------
    def record_outcome(self, goal: MonitoredGoal, status: str, details: Any) -> None:
        """Record how ``goal`` ended (first wins) and wake the monitor (loop-safe)."""
        goal.outcomes.append((status, details))
        self.wake_rt()

    def abort_all_rt(self, details: Any) -> None:
        """Record an abort for every open goal (loop-safe: a short lock, no I/O)."""
        with self._lock:
            goals = [goal for goal, _ in self._open.values()]
        for goal in goals:
            goal.outcomes.append((ABORTED, details))
        self.wake_rt()

    def log_rt(self, level: str, text: str) -> None:
        """Hand a log line ('error', 'warning', 'info') to the monitor (loop-safe)."""
        self._loop_log.append((level, text))
        self.wake_rt()

    def wake_rt(self) -> None:
        """Wake the monitor in the executor thread (loop-safe)."""
        wake = self._wake
        if wake is not None:
            # close() may destroy the guard condition meanwhile
            with contextlib.suppress(Exception):
                wake.trigger()

    # --- action server callbacks (executor thread) ---------------------------------------
    def _validate(self, request: Any) -> GoalResponse:
        if self._closed:
            self._log.error('goal rejected: the controller is not configured')
            return GoalResponse.REJECT
        return self._validate_goal(request)

    def _on_accepted(self, goal_handle: Any) -> None:
        goal_id = bytes(goal_handle.goal_id.uuid)
        goal = MonitoredGoal(
            goal_handle.request,
            goal_id,
            self._action_type.Feedback(),
            goal_handle,
            self._feedback_period_ns,
        )
        with self._lock:
            self._open[goal_id] = (goal, goal_handle)
        try:
            self._goal_accepted(goal)
        except Exception as exc:  # never leave an accepted goal without a result
            self._log.error(f'accepting the goal failed: {exc!r}')
            self.record_outcome(goal, ABORTED, self._action_type.Result())

    def _on_cancel(self, goal_handle: Any) -> CancelResponse:
        entry = self._open.get(bytes(goal_handle.goal_id.uuid))
        if entry is not None:
            self._cancel_requested(entry[0])
        return CancelResponse.ACCEPT

    def _execute(self, goal_handle: Any) -> Any:
        """rclpy's execute callback, run once the outcome is known: state, then the result."""
        with self._lock:
            entry = self._executing.pop(bytes(goal_handle.goal_id.uuid), None)
        if entry is None:  # not handed over by this monitor (cannot happen)
            self._set_terminal_state(goal_handle, ABORTED)
            return self._action_type.Result()
        goal = entry[0]
        status, details = goal.outcomes[0]
        self._set_terminal_state(goal_handle, status)
        return self._result_of(details)

    # --- the monitor (executor thread) ---------------------------------------------------
    def _poll(self) -> None:
        """Loop logs, then the finished goals the loop no longer follows."""
        self._drain_loop_log()
        with self._lock:
            goals = [goal for goal, _ in self._open.values()]
        for goal in goals:
            if goal.outcomes and not self._following(goal):
                self._hand_over(goal)

    def _hand_over(self, goal: MonitoredGoal) -> None:
        """Once: let rclpy run the execute callback, which delivers the first outcome."""
        with self._lock:
            entry = self._open.pop(goal.goal_id, None)
            if entry is None:
                return
            self._executing[goal.goal_id] = entry
        # EXECUTING (unless a cancel request made it CANCELING), and rclpy schedules
        # self._execute as a task of this executor
        entry[1].execute()

    def _set_terminal_state(self, goal_handle: Any, status: str) -> None:
        if not goal_handle.is_active:  # finished by close() already
            return
        try:
            if status == SUCCEEDED:
                goal_handle.succeed()
            elif status == CANCELED and goal_handle.is_cancel_requested:
                goal_handle.canceled()
            else:  # rclpy allows CANCELED only after a client's cancel request
                goal_handle.abort()
        except Exception as exc:  # an illegal transition must not kill the executor
            self._log.error(f'could not finish goal: {exc!r}')

    def _result_of(self, details: Any) -> Any:
        if isinstance(details, self._action_type.Result):
            return details
        return self._make_result(details)

    def _drain_loop_log(self) -> None:
        while self._loop_log:
            level, text = self._loop_log.popleft()
            log_at(self._log, level, text)

    # --- cleanup (executor thread) -------------------------------------------------------
    def close(self, details: Any) -> None:
        """Abort every open goal (a recorded outcome still wins), finish all now, and reject
        new goals from now on.

        The terminal states are set here, so the goal status shows at once how each goal
        ended; the execute callbacks then send the results in the executor's next rounds.
        """
        if self._closed:
            return
        self._closed = True
        with self._lock:
            open_goals = [goal for goal, _ in self._open.values()]
        for goal in open_goals:
            goal.outcomes.append((ABORTED, details))
            self._hand_over(goal)
        with self._lock:
            entries = list(self._executing.values())
        for goal, goal_handle in entries:
            self._set_terminal_state(goal_handle, goal.outcomes[0][0])
        self._drain_loop_log()
        wake, self._wake = self._wake, None
        if wake is not None:
            self._node.destroy_guard_condition(wake)

    def destroy(self) -> None:
        """Close (if not yet), then destroy the action server (its name is free again)."""
        self.close(self._action_type.Result())
        server, self._server = self._server, None
        if server is not None:
            server.destroy()


class GoalServing:
    """The controller side of a :class:`GoalMonitor`, for a controller that serves one action
    executed by its loop (joint trajectory and gripper action controllers).

    The controller provides the monitor's callbacks as methods (``_validate_goal``,
    ``_goal_accepted``, ``_cancel_requested``, ``_make_result``, ``_loop_follows``) and the
    details of the goals still open at cleanup (``_closing_details``); it calls
    :meth:`_serve_goals` in on_configure.
    """

    _monitor: GoalMonitor | None = None
    _closed_monitor: GoalMonitor | None = None
    _goal: MonitoredGoal | None = None

    def _serve_goals(self, action_type: Any, action_name: str, feedback_rate_hz: float) -> None:
        """Open the action server; it closes (open goals aborted, new ones rejected) with the
        configuration, and goes with the next configure or with the controller's node."""
        node = self.get_node()
        self._destroy_closed_monitor()
        self._monitor = GoalMonitor(
            node,
            action_type,
            action_name,
            validate_goal=self._validate_goal,
            goal_accepted=self._goal_accepted,
            cancel_requested=self._cancel_requested,
            make_result=self._make_result,
            feedback_rate_hz=feedback_rate_hz,
            following=self._loop_follows,
        )
        # goes first (newest first) when the configured entities go: no goal without a result
        node.destroy_on_cleanup(self._close_monitor)
        node.destroy_with_node(self._destroy_closed_monitor)

    def _close_monitor(self) -> None:
        self._goal = None
        monitor, self._monitor = self._monitor, None
        if monitor is not None:
            monitor.close(self._closing_details())
            self._closed_monitor = monitor

    def _destroy_closed_monitor(self) -> None:
        monitor, self._closed_monitor = self._closed_monitor, None
        if monitor is not None:
            monitor.destroy()

    def _log_rt(self, level: str, text: str) -> None:
        """Hand a log line to the monitor (the loop never logs itself)."""
        monitor = self._monitor
        if monitor is not None:
            monitor.log_rt(level, text)

    def _wake_monitor_rt(self) -> None:
        monitor = self._monitor
        if monitor is not None:
            monitor.wake_rt()
