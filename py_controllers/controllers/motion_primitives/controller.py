"""``motion_primitives_controllers/MotionPrimitivesForwardController``.

Takes control_msgs/action/ExecuteMotionPrimitiveSequence goals on ``~/motion_sequence`` and
forwards their primitives, one row of 25 command values at a time, to hardware that executes
them itself (an industrial robot's controller). Interfaces, numbers and order:
:mod:`~.primitives`. As upstream:

* claims ``<tf_prefix>motion_primitive/{motion_type, q1..q6, pos_*, pos_via_*, blend_radius,
  velocity, acceleration, move_time}``, reads ``execution_status`` and
  ``ready_for_new_primitive``; all commands are NaN after activation and deactivation;
* one goal at a time (a second is rejected, also while a stop is under way); more than one
  primitive goes between MOTION_SEQUENCE_START (100) and MOTION_SEQUENCE_END (101);
* a row goes out in a cycle where the hardware reports READY;
* SUCCESS after EXECUTING ends the goal SUCCEEDED ("Motion primitives executed
  successfully"); a cancel sends STOP_MOTION (66) and drops the rows left; STOPPED ends the
  goal CANCELED and sends RESET_STOP (67); an unknown status or readiness fails the update.

Deliberate deviations: a goal is also rejected for more than six joint values (upstream would
write the seventh into pos_x), a non-finite value, or an unknown additional argument (upstream
warns and drops it); every row clears the values the primitive does not set (upstream leaves
the previous primitive's); SUCCESS ends the goal only once all its rows went out; feedback
(``current_primitive_index``, the primitive last handed to the hardware) goes out at 50 Hz of
loop time (upstream sends none); deactivation aborts the goal.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from control_msgs.action import ExecuteMotionPrimitiveSequence
from rclpy.action import GoalResponse

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controller_interface.goal_monitor import (
    CANCELED,
    SUCCEEDED,
    GoalServing,
    MonitoredGoal,
)
from py_controllers.controllers.motion_primitives import primitives as mp
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox

__all__ = ['MotionPrimitivesForwardController']

ACTION_MONITOR_RATE_HZ = 50.0  # upstream's action_monitor_period_: 20 ms
_Result = ExecuteMotionPrimitiveSequence.Result
_NAN_ROW = (float('nan'),) * len(mp.COMMAND_NAMES)
_KNOWN_STATUS = frozenset(range(6))


class _LoopCommand:
    """What the executor hands the loop: a goal's rows, or a stop (``rows`` None)."""

    __slots__ = ('goal', 'rows')

    def __init__(self, goal: MonitoredGoal | None, rows: list | None) -> None:
        self.goal = goal
        self.rows = rows


class MotionPrimitivesForwardController(GoalServing, ControllerInterface):
    """Forwards motion primitive goals to hardware through command interfaces."""

    SCHEMA = Path(__file__).parent / 'motion_primitives_forward_controller_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        self.tf_prefix = ''
        self._monitor = None
        self._box: RealtimeBox[_LoopCommand | None] = RealtimeBox(None)
        self._reset_loop_state()
        self._goal: MonitoredGoal | None = None
        self._stopping = False  # executor side: a cancel is under way until STOPPED
        self._active = False
        return CallbackReturn.SUCCESS

    def _reset_loop_state(self) -> None:
        self._taken: _LoopCommand | None = None
        self._active_goal: MonitoredGoal | None = None
        self._rows: list = []
        self._next = 0
        self._index = -1
        self._was_executing = False
        self._stop_sent = False
        self._error_reported = False

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        self.tf_prefix = str(params.tf_prefix)
        self._serve_goals(
            ExecuteMotionPrimitiveSequence, '~/motion_sequence', ACTION_MONITOR_RATE_HZ
        )
        return CallbackReturn.SUCCESS

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(
            mp.interface_names(self.tf_prefix, mp.COMMAND_NAMES)
        )

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(mp.interface_names(self.tf_prefix, mp.STATE_NAMES))

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        self._box.set(None)
        self._reset_loop_state()
        self._goal = None
        self._stopping = False
        self._write_row(_NAN_ROW)
        self._active = True
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        self._active = False
        self._goal = None
        self._stopping = False
        monitor = self._monitor
        if monitor is not None:
            monitor.abort_all_rt(_Result(error_string='controller deactivated'))
        self._box.set(None)
        self._reset_loop_state()
        self._write_row(_NAN_ROW)
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: Any) -> CallbackReturn:
        self._active = False
        self._goal = None
        return CallbackReturn.SUCCESS

    # --- the goal monitor's callbacks (executor thread) ---------------------------------
    def _validate_goal(self, request: Any) -> GoalResponse:
        log = self.get_node().get_logger()
        log.info('Received new action goal')
        if not self._active:
            log.error("Can't accept new trajectories. Controller is not running.")
            return GoalResponse.REJECT
        if self._goal is not None and not self._goal.finished:
            log.warning('Already has an active goal, rejecting new goal request.')
            return GoalResponse.REJECT
        if self._stopping:
            log.warning('Robot requested to stop. Discarding the new command.')
            return GoalResponse.REJECT
        problem = mp.goal_problem(request.trajectory.motions)
        if problem:
            log.error(f'Goal rejected: {problem}')
            return GoalResponse.REJECT
        for index, primitive in enumerate(request.trajectory.motions):
            log.info(f'Primitive {index}: {mp.TYPE_NAMES[primitive.type]}')
        log.info('Accepted new action goal')
        return GoalResponse.ACCEPT

    def _goal_accepted(self, goal: MonitoredGoal) -> None:
        motions = goal.request.trajectory.motions
        self._goal = goal
        self._box.set(_LoopCommand(goal, mp.goal_rows(motions)))
        self.get_node().get_logger().info(f'Accepted goal with {len(motions)} motion primitives.')

    def _cancel_requested(self, goal: MonitoredGoal) -> None:
        """Stop the robot; CANCELED goes out once the hardware reports STOPPED."""
        self.get_node().get_logger().info('Got request to cancel goal')
        if goal is self._goal and not goal.finished:
            self._stopping = True
            self._box.set(_LoopCommand(goal, None))

    def _make_result(self, details: Any) -> Any:
        return details

    def _closing_details(self) -> Any:
        return _Result(error_string='controller cleaned up')

    def _loop_follows(self, goal: MonitoredGoal) -> bool:
        return self._active and self._active_goal is goal

    # --- the loop -----------------------------------------------------------------------
    def _write_row(self, row: tuple[float, ...]) -> None:
        for handle, value in zip(self.command_interfaces, row, strict=False):
            handle.value = value

    def update(self, time: Any, period: Any) -> ReturnType:
        """Take the newest command, follow the hardware's status, send the next row."""
        command = self._box.get()
        if command is not self._taken:
            self._taken = command
            if command is not None:
                self._install_rt(command)
        status_value = self.state_interfaces[0].value
        ready_value = self.state_interfaces[1].value
        if not (math.isfinite(status_value) and math.isfinite(ready_value)):
            return RETURN_OK  # no status from the hardware yet: nothing can go out
        status = round(status_value)
        if status not in _KNOWN_STATUS:
            self._log_rt('error', f'Error: Unknown execution status: {status}')
            return ReturnType.ERROR
        self._follow_status_rt(status)
        ready = round(ready_value)
        if ready not in (mp.NOT_READY, mp.READY):
            self._log_rt('error', f'Error: Unknown state for ready_for_new_primitive: {ready}')
            return ReturnType.ERROR
        if ready == mp.READY and not self._stop_sent and self._next < len(self._rows):
            index, row = self._rows[self._next]
            self._next += 1
            self._write_row(row)
            if index >= 0:
                self._index = index
        goal = self._active_goal
        if goal is not None and self._index >= 0 and not goal.finished:
            feedback = goal.take_feedback_rt(time.nanoseconds)
            if feedback is not None:
                feedback.current_primitive_index = self._index
                goal.send_feedback_rt()
        return RETURN_OK

    def _install_rt(self, command: _LoopCommand) -> None:
        self._active_goal = command.goal
        if command.rows is None:  # cancel: stop now, drop what was not sent
            self._rows, self._next = [], 0
            self._write_row(_NAN_ROW)
            self.command_interfaces[0].value = float(mp.STOP_MOTION)
            self._stop_sent = True
            self._log_rt('info', 'Cancel requested, stopping execution.')
            return
        self._rows, self._next, self._index = command.rows, 0, -1
        self._was_executing = False

    def _follow_status_rt(self, status: int) -> None:
        goal = self._active_goal
        if status != mp.ERROR:
            self._error_reported = False
        if status == mp.EXECUTING:
            self._was_executing = True
        elif status == mp.SUCCESS:
            done = self._next >= len(self._rows) and not self._stop_sent
            if goal is not None and self._was_executing and done:
                self._finish_rt(goal, SUCCEEDED, 'Motion primitives executed successfully')
        elif status in (mp.STOPPING, mp.STOPPED, mp.ERROR):
            self._was_executing = False
            if status == mp.ERROR and not self._error_reported:
                self._error_reported = True
                self._log_rt('error', 'Execution state: ERROR')
            if status == mp.STOPPED and self._stop_sent:
                if goal is not None:
                    self._finish_rt(goal, CANCELED, 'Motion primitives execution canceled')
                self._write_row(_NAN_ROW)
                self.command_interfaces[0].value = float(mp.RESET_STOP)
                self._stop_sent = False
                self._stopping = False
                self._log_rt('info', 'Robot stopped, ready for new motion primitives.')

    def _finish_rt(self, goal: MonitoredGoal, status: str, text: str) -> None:
        self._active_goal = None
        self._was_executing = False
        monitor = self._monitor
        if monitor is not None:
            result = _Result(error_code=_Result.SUCCESSFUL, error_string=text)
            monitor.record_outcome(goal, status, result)
            monitor.log_rt('info', text + '.')
