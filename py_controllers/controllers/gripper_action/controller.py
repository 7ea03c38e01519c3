"""``position_controllers/GripperActionController``, ``effort_controllers/GripperActionController``.

A single-joint gripper driven by ``~/gripper_cmd`` (control_msgs/action/GripperCommand).
Behaviour follows upstream's ``gripper_controllers`` (jazzy, the last release that has them;
kilted and rolling removed them in favour of ``parallel_gripper_action_controller/
GripperActionController``, so loading one logs a deprecation warning as jazzy does). The goal
handling shared with the parallel gripper is in :mod:`~.base`, the success and stall test in
:mod:`~.goal_check`.

* Claims ``<joint>/position`` (position variant) or ``<joint>/effort`` (effort variant) and
  reads ``<joint>/position`` and ``<joint>/velocity``.
* Position variant: writes the target position every cycle; the effort it reports is the
  target's max_effort.
* Effort variant: a PID on the position error (``gains.<joint>.p/i/d/i_clamp``, the derivative
  on ``-velocity``), its output clamped to ``+-|max_effort|`` of the target, written every
  cycle (on deactivation the manager sets the released effort to 0). A goal whose position
  times p overflows is rejected; should the PID still get a non-finite error (an infinite
  measured position or velocity), nothing is written that cycle and the last effort stays.
* Result: ``position`` (measured), ``effort`` (computed in the previous cycle), ``stalled``,
  ``reached_goal``. After activation and a cancel the target is the measured position at the
  ``max_effort`` parameter.

Deliberate deviations from upstream (see also :mod:`~.base`): a goal with a non-finite
position or a NaN max_effort is rejected (upstream commands it); feedback (position, effort)
goes out at ``action_monitor_rate`` (upstream sends none); a preempted goal ends ABORTED and a
deactivation aborts the active goal (upstream's are left without a result); the results of
preempted, canceled and aborted goals carry the position and effort at that moment (upstream
sends an empty result); the PID runs on the controller's period (upstream measures wall time
since the previous update, which makes the first step span the time since the epoch) and is
reset on activation.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, NamedTuple

from control_msgs.action import GripperCommand

from py_controllers.control_toolbox.pid import Pid
from py_controllers.control_toolbox.pid_parameters import gains_from_parameters, gains_problem
from py_controllers.controller_interface.controller_interface import CallbackReturn
from py_controllers.controllers.gripper_action.base import GoalEnd, GripperActionBase
from py_controllers.controllers.gripper_action.goal_check import (
    clamp_effort,
    gripper_command_problem,
)
from py_controllers.parameters.errors import ParameterError
from py_controllers.parameters.listener import ParamListener

__all__ = [
    'EffortGripperActionController',
    'GripperActionController',
    'GripperTarget',
    'PositionGripperActionController',
]

_HERE = Path(__file__).parent
_GAINS_SCHEMA = _HERE / 'effort_gains_parameters.yaml'
_GAINS_PREFIX = 'gains.{joint}.'
_DEPRECATED = (
    '[Deprecated]: the `position_controllers/GripperActionController` and '
    '`effort_controllers/GripperActionController` controllers are removed upstream since '
    "kilted: use 'parallel_gripper_action_controller/GripperActionController' instead"
)


class GripperTarget(NamedTuple):
    """Where the gripper should go, and the effort it may use."""

    position: float
    max_effort: float


class GripperActionController(GripperActionBase):
    """The single-joint gripper action controller; ``interface`` picks the command."""

    action_type = GripperCommand
    SCHEMA = _HERE / 'gripper_action_controller_parameters.yaml'
    interface = ''

    def on_init(self) -> CallbackReturn:
        self.get_node().get_logger().warning(_DEPRECATED)
        self._cmd: Any = None
        return super().on_init()

    def _command_names(self) -> list[str]:
        return [f'{self.joint}/{self.interface}']

    def _resolve_commands(self, commands: dict[str, Any]) -> CallbackReturn:
        self._cmd = commands.get(f'{self.joint}/{self.interface}')
        if self._cmd is None:
            self.get_node().get_logger().error(
                f"Expected 1 {self.interface} command interface for joint '{self.joint}'"
            )
            return CallbackReturn.ERROR
        return CallbackReturn.SUCCESS

    def _goal_problem(self, request: Any) -> str:
        return gripper_command_problem(request.command.position, request.command.max_effort)

    def _target_of(self, request: Any, params: Any) -> GripperTarget:
        return GripperTarget(float(request.command.position), float(request.command.max_effort))

    def _hold_target(self, position: float, params: Any) -> GripperTarget:
        return GripperTarget(position, float(params.max_effort))

    def _fill_feedback_rt(self, feedback: Any, position: float, velocity: float) -> None:
        feedback.position = position
        feedback.effort = self._effort

    def _make_result(self, end: GoalEnd) -> Any:
        return GripperCommand.Result(
            position=end.position,
            effort=end.effort,
            stalled=end.stalled,
            reached_goal=end.reached_goal,
        )


class PositionGripperActionController(GripperActionController):
    """``position_controllers/GripperActionController``: forwards the goal position."""

    interface = 'position'

    def _write_commands_rt(
        self, target: GripperTarget, error: float, velocity: float, dt_s: float
    ) -> float:
        self._cmd.value = target.position
        return target.max_effort


class EffortGripperActionController(GripperActionController):
    """``effort_controllers/GripperActionController``: a position PID writes the effort."""

    interface = 'effort'
    PREFIXED_SCHEMAS = ((_GAINS_SCHEMA, _GAINS_PREFIX),)  # the tuning page shows them

    def on_init(self) -> CallbackReturn:
        self._gains_listener: ParamListener | None = None
        self._gains: Any = None
        self._pid: Pid | None = None
        return super().on_init()

    def _configure_joint(self, params: Any) -> CallbackReturn:
        """Declare ``gains.<joint>.*`` (once per joint name) and build the PID from them."""
        log = self.get_node().get_logger()
        prefix = _GAINS_PREFIX.format(joint=self.joint)
        listener = self._gains_listener
        try:
            if listener is None or listener.prefix != prefix:
                if listener is not None:
                    listener.close()
                    self._gains_listener = None
                listener = ParamListener(
                    self.get_node(),
                    _GAINS_SCHEMA,
                    prefix=prefix,
                    consistency=lambda group: gains_problem({prefix: group}),
                )
                self._gains_listener = listener
            listener.validate_all()
            self._gains = listener.get_params()
            self._pid = Pid.from_gains(gains_from_parameters(self._gains, prefix=prefix))
        except (ParameterError, ValueError) as exc:
            log.error(f'invalid PID gains: {exc}')
            return CallbackReturn.ERROR
        if self._gains.i != 0.0 and self._gains.i_clamp == 0.0:
            log.warning(
                f"'{prefix}i' has no effect while '{prefix}i_clamp' is 0 (the integral term is "
                'bounded to +-|i_clamp|)'
            )
        return CallbackReturn.SUCCESS

    def _goal_problem(self, request: Any) -> str:
        problem = super()._goal_problem(request)
        p = float(self._pid.get_gains().p)
        position = float(request.command.position)
        if not problem and not math.isfinite(p * position):
            problem = f'command.position {position} overflows the PID: p {p} times it is not finite'
        return problem

    def _reset_rt(self) -> None:
        self._pid.reset()

    def _refresh_rt(self) -> None:
        """New gains accepted by ``ros2 param set`` (one box read when there are none)."""
        gains = self._gains_listener.get_params()
        if gains is self._gains:
            return
        self._gains = gains
        prefix = _GAINS_PREFIX.format(joint=self.joint)
        try:
            ok = self._pid.set_gains(gains_from_parameters(gains, prefix=prefix))
            reason = self._pid.last_gains_error
        except ValueError as exc:
            ok, reason = False, str(exc)
        if not ok:
            self._log_rt('error', f'new PID gains ignored: {reason}')

    def _write_commands_rt(
        self, target: GripperTarget, error: float, velocity: float, dt_s: float
    ) -> float:
        effort = clamp_effort(
            self._pid.compute_command(error, dt_s, error_dot=-velocity), target.max_effort
        )
        if effort != effort:  # no finite error: the last effort stays, and is reported
            return self._effort
        self._cmd.value = effort
        return effort
