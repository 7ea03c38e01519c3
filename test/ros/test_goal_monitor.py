"""The goal monitor (goal_monitor.py) on its own, serving GripperCommand as the gripper action
controllers do, with a thread standing in for the loop; real action client and server."""

import threading

import pytest
import rclpy
from action_msgs.msg import GoalStatus
from control_msgs.action import GripperCommand
from rclpy.action import ActionClient, GoalResponse

from py_controllers.controller_interface.goal_monitor import (
    ABORTED,
    CANCELED,
    SUCCEEDED,
    GoalMonitor,
)
from py_controllers.testing import RosHarness


class _Gripper:
    """A GoalMonitor serving GripperCommand, as a gripper action controller would, with a
    'loop' thread that records outcomes and fills feedback. The test spins with alternating
    spin_once timeouts: with a task pending in the executor (a coroutine awaiting the
    outcome) rclpy would then run nothing but that task (ros2/rclpy#1159)."""

    def __init__(self):
        self.harness = RosHarness('goal_monitor_test')
        self.server = rclpy.create_node('gripper', context=self.harness.context)
        self.harness.executor.add_node(self.server)
        self.accepted, self.canceled, self.consulted = [], [], []
        self.following = set()
        self.monitor = GoalMonitor(
            self.server,
            GripperCommand,
            '~/gripper_cmd',
            validate_goal=self.validate,
            goal_accepted=self.accepted.append,
            cancel_requested=self.cancel,
            make_result=lambda d: GripperCommand.Result(position=d[0], reached_goal=d[1]),
            feedback_rate_hz=100.0,
            following=self.follows,
        )
        self.client = ActionClient(self.harness.node, GripperCommand, '/gripper/gripper_cmd')
        assert self.client.wait_for_server(timeout_sec=10.0)
        self._flip = False

    def validate(self, request):
        return GoalResponse.ACCEPT if request.command.max_effort >= 0.0 else GoalResponse.REJECT

    def cancel(self, goal):
        self.canceled.append(goal)
        self.monitor.record_outcome(goal, CANCELED, (0.01, False))

    def follows(self, goal):
        self.consulted.append(goal.goal_id)
        return goal.goal_id in self.following

    def spin_until(self, predicate):
        def alternating():
            self._flip = not self._flip
            self.harness.executor.spin_once(timeout_sec=0.0 if self._flip else 0.02)
            return predicate()

        return predicate() or self.harness.spin_until(alternating)

    def send(self, position, max_effort=1.0, feedback=None):
        goal = GripperCommand.Goal()
        goal.command.position, goal.command.max_effort = position, max_effort
        future = self.client.send_goal_async(goal, feedback_callback=feedback)
        assert self.spin_until(future.done)
        return future.result()

    def in_loop(self, fn):
        """Run `fn` on another thread, as the control loop would."""
        thread = threading.Thread(target=fn)
        thread.start()
        thread.join()

    def close(self):
        self.monitor.destroy()
        self.server.destroy_node()
        self.harness.close()


@pytest.fixture
def gripper():
    rig = _Gripper()
    yield rig
    rig.close()


def test_goal_monitor_delivers_success_and_abort_recorded_by_the_loop(gripper):
    feedback = []
    handle = gripper.send(0.04, feedback=feedback.append)
    assert handle.accepted
    assert gripper.spin_until(lambda: gripper.accepted)
    goal = gripper.accepted[0]
    assert goal.request.command.position == 0.04

    def fill_feedback(now_ns, position):
        def fill():
            message = goal.take_feedback_rt(now_ns)
            taken.append(message is not None)
            if message is not None:
                message.position = position
                goal.send_feedback_rt()

        gripper.in_loop(fill)

    # feedback every 10 ms of loop time (100 Hz), published by the realtime publishing
    # thread with no spinning of the server's executor
    taken = []
    fill_feedback(0, 0.02)
    assert gripper.spin_until(lambda: feedback)
    fill_feedback(9_999_999, 0.03)  # not due yet
    fill_feedback(10_000_000, 0.04)
    assert gripper.spin_until(lambda: len(feedback) == 2)
    fill_feedback(15_000_000, 0.05)  # due at 20 ms
    fill_feedback(1_000_000_000, 0.06)  # after a pause: due at once, then every 10 ms
    assert gripper.spin_until(lambda: len(feedback) == 3)
    fill_feedback(1_009_000_000, 0.07)
    fill_feedback(1_010_000_000, 0.08)
    assert gripper.spin_until(lambda: len(feedback) == 4)
    fill_feedback(5_000_000, 0.09)  # loop time jumped back: due at once, not in a second
    assert gripper.spin_until(lambda: len(feedback) == 5)
    assert taken == [True, False, True, False, True, False, True, True]
    assert [m.feedback.position for m in feedback] == [0.02, 0.04, 0.06, 0.08, 0.09]
    result = handle.get_result_async()
    gripper.in_loop(lambda: gripper.monitor.record_outcome(goal, SUCCEEDED, (0.04, True)))
    assert gripper.spin_until(result.done)
    assert result.result().status == GoalStatus.STATUS_SUCCEEDED
    assert result.result().result.position == 0.04 and result.result().result.reached_goal

    handle = gripper.send(0.0)
    assert gripper.spin_until(lambda: len(gripper.accepted) == 2)
    result = handle.get_result_async()
    gripper.in_loop(
        lambda: gripper.monitor.record_outcome(gripper.accepted[1], ABORTED, (0.03, False))
    )
    assert gripper.spin_until(result.done)
    assert result.result().status == GoalStatus.STATUS_ABORTED
    assert result.result().result.position == 0.03 and not result.result().result.reached_goal

    assert not gripper.send(0.0, max_effort=-1.0).accepted
    assert len(gripper.accepted) == 2


def test_goal_monitor_delivers_cancel_once_the_loop_stops_following(gripper):
    handle = gripper.send(0.04)
    assert gripper.spin_until(lambda: gripper.accepted)
    goal = gripper.accepted[0]
    gripper.following.add(goal.goal_id)
    result = handle.get_result_async()
    cancel = handle.cancel_goal_async()
    assert gripper.spin_until(cancel.done)
    assert len(cancel.result().goals_canceling) == 1 and gripper.canceled == [goal]
    # woken by the outcome, the monitor held the result back: the loop follows the goal;
    # woken again while it still does, it holds it again
    assert gripper.spin_until(lambda: gripper.consulted.count(goal.goal_id) == 1)
    gripper.in_loop(gripper.monitor.wake_rt)
    assert gripper.spin_until(lambda: gripper.consulted.count(goal.goal_id) == 2)
    assert not result.done()

    def stop_following():
        gripper.following.discard(goal.goal_id)
        gripper.monitor.wake_rt()

    gripper.in_loop(stop_following)
    assert gripper.spin_until(result.done)
    assert result.result().status == GoalStatus.STATUS_CANCELED
    assert result.result().result.position == 0.01


def test_goal_monitor_close_finishes_open_goals_and_answers_their_result_requests(gripper):
    """close() aborts the open goal; a result request made before it is answered (as MoveIt
    waits for one); new goals are rejected until destroy() takes the server away."""
    handle = gripper.send(0.04)
    assert gripper.spin_until(lambda: gripper.accepted)
    result = handle.get_result_async()
    gripper.monitor.close((0.0, False))
    assert gripper.spin_until(lambda: handle.status == GoalStatus.STATUS_ABORTED)
    assert gripper.spin_until(result.done)
    assert result.result().status == GoalStatus.STATUS_ABORTED
    assert result.result().result.position == 0.0
    assert not gripper.send(0.02).accepted
    assert gripper.client.server_is_ready()
    gripper.monitor.destroy()
    assert gripper.spin_until(lambda: not gripper.client.server_is_ready())
