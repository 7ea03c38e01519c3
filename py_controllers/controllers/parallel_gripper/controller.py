"""``parallel_gripper_action_controller/GripperActionController``: a parallel gripper.

``~/gripper_cmd`` (control_msgs/action/ParallelGripperCommand: a sensor_msgs/JointState
command) drives one joint. Behaviour follows upstream's ``parallel_gripper_controller``
(rolling); the goal handling is shared with the single-joint gripper controllers
(:mod:`py_controllers.controllers.gripper_action.base`), the success and stall test too.

* Claims ``<joint>/position`` and, when ``max_effort_interface`` / ``max_velocity_interface``
  name one (a full interface name, e.g. ``gripper_joint/max_effort``), that command interface
  too; reads the ``state_interfaces`` of the joint (position and velocity at least).
* Every cycle writes the target position and, where claimed, the velocity and effort limits:
  the goal's ``velocity[0]`` / ``effort[0]`` when given, else ``max_velocity`` /
  ``max_effort``. After activation and a cancel the target is the measured position at the
  default limits.
* Result ``state``: ``name`` [joint], ``position`` (measured), ``velocity`` (measured),
  ``effort`` (the effort limit in force); ``stalled``, ``reached_goal`` as the single-joint
  controllers.

Deliberate deviations from upstream (see also :mod:`~.command` for the goal checks and
:mod:`py_controllers.controllers.gripper_action.base`): ``state_interfaces`` without position
and velocity fails at configure (upstream fails at activation); the result's ``effort`` is the
effort limit in force (upstream reports a value it never sets) and ``name`` and ``velocity``
are filled; feedback (the same JointState) goes out at ``action_monitor_rate``; a preempted or
deactivated goal ends ABORTED (upstream leaves it without a result).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from control_msgs.action import ParallelGripperCommand

from py_controllers.controller_interface.controller_interface import CallbackReturn
from py_controllers.controller_interface.goal_monitor import MonitoredGoal
from py_controllers.controllers.gripper_action.base import GoalEnd, GripperActionBase
from py_controllers.controllers.parallel_gripper.command import (
    ParallelTarget,
    parallel_command_problem,
    parallel_target,
)

__all__ = ['ParallelGripperActionController']

_HERE = Path(__file__).parent


class ParallelGripperActionController(GripperActionBase):
    """Executes ParallelGripperCommand goals on one joint, with optional limit interfaces."""

    action_type = ParallelGripperCommand
    SCHEMA = _HERE / 'parallel_gripper_action_controller_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self._effort_interface = ''
        self._velocity_interface = ''
        self._state_interface_names: list[str] = []
        self._cmd_pos: Any = None
        self._cmd_vel: Any = None
        self._cmd_eff: Any = None
        return super().on_init()

    def _configure_joint(self, params: Any) -> CallbackReturn:
        states = list(params.state_interfaces)
        missing = [name for name in ('position', 'velocity') if name not in states]
        if missing:
            self.get_node().get_logger().error(
                f"'state_interfaces' must contain position and velocity; missing {missing}"
            )
            return CallbackReturn.ERROR
        self._state_interface_names = states
        self._effort_interface = str(params.max_effort_interface)
        self._velocity_interface = str(params.max_velocity_interface)
        return CallbackReturn.SUCCESS

    def _command_names(self) -> list[str]:
        names = [f'{self.joint}/position']
        names += [self._effort_interface] if self._effort_interface else []
        names += [self._velocity_interface] if self._velocity_interface else []
        return names

    def _state_names(self) -> list[str]:
        return [f'{self.joint}/{name}' for name in self._state_interface_names]

    def _resolve_commands(self, commands: dict[str, Any]) -> CallbackReturn:
        log = self.get_node().get_logger()
        self._cmd_pos = commands.get(f'{self.joint}/position')
        if self._cmd_pos is None:
            log.error(f"Expected 1 position command interface for joint '{self.joint}'")
            return CallbackReturn.ERROR
        self._cmd_eff = self._cmd_vel = None
        for attr, name, what in (
            ('_cmd_eff', self._effort_interface, 'effort'),
            ('_cmd_vel', self._velocity_interface, 'velocity'),
        ):
            if not name:
                continue
            handle = commands.get(name)
            if handle is None:
                log.error(f'Expected max {what} command interface `{name}` not found')
                return CallbackReturn.FAILURE
            setattr(self, attr, handle)
        return CallbackReturn.SUCCESS

    def _goal_problem(self, request: Any) -> str:
        command = request.command
        return parallel_command_problem(
            self.joint, command.name, command.position, command.velocity, command.effort
        )

    def _target_of(self, request: Any, params: Any) -> ParallelTarget:
        command = request.command
        return parallel_target(
            command.position,
            command.velocity,
            command.effort,
            default_velocity=float(params.max_velocity),
            default_effort=float(params.max_effort),
            velocity_claimed=bool(self._velocity_interface),
            effort_claimed=bool(self._effort_interface),
        )

    def _hold_target(self, position: float, params: Any) -> ParallelTarget:
        return ParallelTarget(position, float(params.max_velocity), float(params.max_effort))

    def _write_commands_rt(
        self, target: ParallelTarget, error: float, velocity: float, dt_s: float
    ) -> float:
        self._cmd_pos.value = target.position
        if self._cmd_vel is not None:
            self._cmd_vel.value = target.velocity
        if self._cmd_eff is not None:
            self._cmd_eff.value = target.effort
        return target.effort

    def _prepare_goal(self, goal: MonitoredGoal) -> None:
        """Size the feedback's JointState once, so the loop only sets elements."""
        state = goal.feedback.state
        state.name = [self.joint]
        state.position = [0.0]
        state.velocity = [0.0]
        state.effort = [0.0]

    def _fill_feedback_rt(self, feedback: Any, position: float, velocity: float) -> None:
        state = feedback.state
        state.position[0] = position
        state.velocity[0] = velocity
        state.effort[0] = self._effort

    def _make_result(self, end: GoalEnd) -> Any:
        result = ParallelGripperCommand.Result(stalled=end.stalled, reached_goal=end.reached_goal)
        result.state.name = [self.joint]
        result.state.position = [end.position]
        result.state.velocity = [end.velocity]
        result.state.effort = [end.effort]
        return result
