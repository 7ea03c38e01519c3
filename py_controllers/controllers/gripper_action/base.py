"""What every gripper action controller shares: goals in, the loop, results out.

:class:`GripperActionBase` is the ROS glue of upstream's ``gripper_action_controller`` and
``parallel_gripper_action_controller`` (the same design, one joint, one action on
``~/gripper_cmd``); the subclasses add the action type, the commands they write and the
messages they fill. The action's non-realtime side is the controller-agnostic
:class:`~py_controllers.controller_interface.goal_monitor.GoalMonitor`, as in the joint
trajectory controller.

Executor thread (goal callbacks of the monitor):

* a goal request is checked by the subclass (``_goal_problem``) and rejected with a logged
  reason, or while the controller is not active;
* an accepted goal preempts the active one, which ends ABORTED with the gripper's state at
  that moment (rclpy allows CANCELED only after a client's cancel request), and goes to the
  loop through a RealtimeBox as a :class:`LoopCommand` (its target, the goal);
* a cancel of the active goal ends it CANCELED and sends the loop a hold at the position
  measured now (as upstream's ``set_hold_position``), at the default effort (and velocity)
  limits; the result goes out once the loop no longer follows the goal.

The results of goals ended there (and by deactivation) report the state at that moment.

Loop (``update``, ``_rt`` methods; no rclpy calls, no logging, lines go to the monitor):

* the newest command from the box is installed; a new goal starts the stall clock at this
  cycle's time;
* while a goal is active, :class:`~.goal_check.GoalCheck` decides: reached (SUCCEEDED), stalled
  (SUCCEEDED with ``allow_stalling``, else ABORTED) or running (feedback is filled). The
  result carries the measured position and the effort computed in the *previous* cycle, as
  upstream (it checks before it computes). After either end the target stays: a stalled
  gripper keeps squeezing at its effort limit, as upstream;
* then the subclass writes its commands for the target (``_write_commands_rt``).

Deactivation ends the goal ABORTED (upstream leaves it hanging); the commands stay as they are
(the manager sets a released effort or velocity command to 0). Cleanup closes the monitor,
which finishes every open goal. Until a state interface holds a number (NaN), the loop writes
nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from rclpy.action import GoalResponse

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controller_interface.goal_monitor import (
    ABORTED,
    CANCELED,
    SUCCEEDED,
    GoalServing,
    MonitoredGoal,
)
from py_controllers.controllers.gripper_action.goal_check import RUNNING, STALLED, GoalCheck
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox

__all__ = ['GoalEnd', 'GripperActionBase', 'LoopCommand']

_NAN = float('nan')


class GoalEnd(NamedTuple):
    """The state a goal ended in: what its Result reports."""

    position: float
    velocity: float
    effort: float
    stalled: bool
    reached_goal: bool


class LoopCommand:
    """What the loop should do next: go to ``target``, for ``goal`` (None: no goal)."""

    __slots__ = ('goal', 'target')

    def __init__(self, target: Any, goal: MonitoredGoal | None) -> None:
        self.target = target
        self.goal = goal


class GripperActionBase(GoalServing, ControllerInterface):
    """One gripper joint driven by the goals of an action on ``~/gripper_cmd``.

    Subclasses set ``action_type`` and ``SCHEMA`` (which must declare ``joint``,
    ``action_monitor_rate``, ``goal_tolerance``, ``allow_stalling``,
    ``stall_velocity_threshold`` and ``stall_timeout``) and fill in the hooks below. A target
    is any object with a ``position`` attribute.
    """

    action_type: Any = None
    SCHEMA: Path

    # --- hooks --------------------------------------------------------------------------
    def _configure_joint(self, params: Any) -> CallbackReturn:
        """More configuration once ``self.joint`` is known (executor thread)."""
        return CallbackReturn.SUCCESS

    def _command_names(self) -> list[str]:
        raise NotImplementedError

    def _state_names(self) -> list[str]:
        return [f'{self.joint}/position', f'{self.joint}/velocity']

    def _resolve_commands(self, commands: dict[str, Any]) -> CallbackReturn:
        """Take the claimed command handles (by name) at activation."""
        raise NotImplementedError

    def _goal_problem(self, request: Any) -> str:
        """Why the goal request cannot be executed ('' when it can; executor thread)."""
        raise NotImplementedError

    def _target_of(self, request: Any, params: Any) -> Any:
        """The target of an accepted, checked goal request (executor thread)."""
        raise NotImplementedError

    def _hold_target(self, position: float, params: Any) -> Any:
        """The target that holds ``position`` at the default limits (any thread)."""
        raise NotImplementedError

    def _write_commands_rt(self, target: Any, error: float, velocity: float, dt_s: float) -> float:
        """Write the commands for ``target``; the effort to report in results (loop)."""
        raise NotImplementedError

    def _reset_rt(self) -> None:
        """Forget the loop's history (activation)."""

    def _refresh_rt(self) -> None:
        """Pick up run-time changes beyond the controller parameters (every cycle)."""

    def _prepare_goal(self, goal: MonitoredGoal) -> None:
        """Allocate what the loop fills in ``goal.feedback`` (executor thread)."""

    def _fill_feedback_rt(self, feedback: Any, position: float, velocity: float) -> None:
        """Fill ``feedback`` with the current state (the loop holds its lock)."""
        raise NotImplementedError

    def _make_result(self, end: GoalEnd) -> Any:
        """The action's Result message for how a goal ended (executor thread)."""
        raise NotImplementedError

    # --- lifecycle ----------------------------------------------------------------------
    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        self.joint = ''
        self._monitor = None
        self._box: RealtimeBox[LoopCommand | None] = RealtimeBox(None)
        self._taken: LoopCommand | None = None
        self._goal: MonitoredGoal | None = None  # the executor side's active goal
        self._active_goal: MonitoredGoal | None = None  # the loop's
        self._active = False
        self._check = GoalCheck()
        self._pos: Any = None
        self._vel: Any = None
        self._target: Any = None
        self._effort = 0.0
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        log.info(f'Action status changes will be monitored at {params.action_monitor_rate:f} Hz.')
        if not params.joint:
            log.error('Joint name cannot be empty')
            return CallbackReturn.ERROR
        self.joint = str(params.joint)
        log.info(f'Joint name is : {self.joint}')
        result = self._configure_joint(params)
        if result != CallbackReturn.SUCCESS:
            return result
        self._serve_goals(self.action_type, '~/gripper_cmd', float(params.action_monitor_rate))
        return CallbackReturn.SUCCESS

    def _closing_details(self) -> Any:
        return self.action_type.Result()

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(self._command_names())

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(self._state_names())

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        log = self.get_node().get_logger()
        states = {h.name: h for h in self.state_interfaces}
        self._pos = states.get(f'{self.joint}/position')
        self._vel = states.get(f'{self.joint}/velocity')
        if self._pos is None:
            log.error(f"Expected 1 position state interface for joint '{self.joint}'")
            return CallbackReturn.ERROR
        if self._vel is None:
            log.error(f"Expected 1 velocity state interface for joint '{self.joint}'")
            return CallbackReturn.ERROR
        result = self._resolve_commands({h.name: h for h in self.command_interfaces})
        if result != CallbackReturn.SUCCESS:
            return result
        self._box.set(None)
        self._taken = None
        self._goal = self._active_goal = None
        # hold where the gripper is (a NaN position is resolved by the first cycle that
        # measures one)
        self._target = self._hold_target(self._pos.value, self.parameters.latest())
        self._effort = 0.0
        self._reset_rt()
        self._active = True
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        self._active = False
        # deactivation may come from the loop (a failure): the monitor finishes the goals
        self._goal = self._active_goal = None
        monitor = self._monitor
        if monitor is not None:
            monitor.abort_all_rt(self._end_now())
        self._box.set(None)
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: Any) -> CallbackReturn:
        self._active = False
        self._goal = self._active_goal = None
        return CallbackReturn.SUCCESS

    # --- the goal monitor's callbacks (executor thread) ---------------------------------
    def _validate_goal(self, request: Any) -> GoalResponse:
        log = self.get_node().get_logger()
        log.info('Received new action goal')
        if not self._active:
            log.error("Can't accept new action goals. Controller is not running.")
            return GoalResponse.REJECT
        problem = self._goal_problem(request)
        if problem:
            log.error(f'Goal rejected: {problem}')
            return GoalResponse.REJECT
        log.info('Received & accepted new action goal')
        return GoalResponse.ACCEPT

    def _goal_accepted(self, goal: MonitoredGoal) -> None:
        """Preempt the active goal, then hand this one's target to the loop."""
        target = self._target_of(goal.request, self.parameters.latest())
        self._prepare_goal(goal)
        previous = self._goal
        if previous is not None and not previous.finished:
            self.get_node().get_logger().info('Current goal preempted by new incoming action.')
            self._monitor.record_outcome(previous, ABORTED, self._end_now())
        self._goal = goal
        self._box.set(LoopCommand(target, goal))

    def _cancel_requested(self, goal: MonitoredGoal) -> None:
        """Hold the current position; CANCELED goes out once the loop stopped following."""
        log = self.get_node().get_logger()
        log.info('Got request to cancel goal')
        if goal is self._goal and not goal.finished:
            log.info('Canceling active action goal because cancel callback received.')
            self._goal = None
            end = self._end_now()
            self._monitor.record_outcome(goal, CANCELED, end)
            self._box.set(
                LoopCommand(self._hold_target(end.position, self.parameters.latest()), None)
            )

    def _end_now(self) -> GoalEnd:
        """The gripper's state now, for a goal ended outside the loop."""
        pos, vel = self._pos, self._vel
        return GoalEnd(
            pos.value if pos is not None else _NAN,
            vel.value if vel is not None else _NAN,
            self._effort,
            False,
            False,
        )

    def _loop_follows(self, goal: MonitoredGoal) -> bool:
        """True while the loop executes ``goal`` (read by the monitor in the executor)."""
        return self._active and self._active_goal is goal

    # --- the loop -----------------------------------------------------------------------
    def update(self, time: Any, period: Any) -> ReturnType:
        """Take the newest command, judge the active goal, write the commands."""
        self.parameters.try_update_rt()
        params = self.parameters.params
        self._refresh_rt()
        pos = self._pos.value
        vel = self._vel.value
        if pos != pos or vel != vel:  # no measurement yet: write nothing, as upstream
            return RETURN_OK
        now_ns = time.nanoseconds
        command = self._box.get()
        if command is not self._taken:
            self._taken = command
            if command is not None:
                self._install_rt(command, now_ns)
        goal = self._active_goal
        if goal is not None and goal.outcomes:  # finished elsewhere (canceled, preempted)
            goal = self._active_goal = None
            self._wake_monitor_rt()  # no longer followed: its result may go out
        target = self._target
        if target.position != target.position:  # activated before the first measurement
            target = self._target = self._hold_target(pos, params)
        error = target.position - pos
        if goal is not None:
            self._judge_rt(goal, error, pos, vel, now_ns, params)
        self._effort = self._write_commands_rt(target, error, vel, period.nanoseconds * 1e-9)
        return RETURN_OK

    def _install_rt(self, command: LoopCommand, now_ns: int) -> None:
        self._target = command.target
        previous = self._active_goal
        self._active_goal = command.goal
        if command.goal is not None:
            self._check.start(now_ns)
        if previous is not None and previous is not command.goal:
            self._wake_monitor_rt()  # no longer followed: its result may go out

    def _judge_rt(
        self, goal: MonitoredGoal, error: float, pos: float, vel: float, now_ns: int, params: Any
    ) -> None:
        verdict = self._check.check(
            error,
            vel,
            now_ns,
            goal_tolerance=params.goal_tolerance,
            stall_velocity_threshold=params.stall_velocity_threshold,
            stall_timeout_s=params.stall_timeout,
        )
        if verdict == RUNNING:
            feedback = goal.take_feedback_rt(now_ns)
            if feedback is not None:
                self._fill_feedback_rt(feedback, pos, vel)
                goal.send_feedback_rt()
            return
        stalled = verdict == STALLED
        if not stalled:
            status, text = SUCCEEDED, 'Successfully moved to goal.'
        elif params.allow_stalling:
            status, text = SUCCEEDED, 'Stall detected moving to goal. Returning success.'
        else:
            status, text = ABORTED, 'Stall detected moving to goal. Aborting action!'
        self._active_goal = None
        monitor = self._monitor
        if monitor is not None:  # None only once cleanup has finished every goal
            monitor.record_outcome(
                goal, status, GoalEnd(pos, vel, self._effort, stalled, not stalled)
            )
            monitor.log_rt('info', text)
