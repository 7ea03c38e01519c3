"""The executor-thread side of the joint trajectory controller: what comes in over ROS.

``TrajectoryInputs`` is a mixin of :class:`~.controller.JointTrajectoryController`. Its
callbacks run in the executor thread: they validate, convert to a
:class:`~.trajectory.Trajectory` on the loop's time axis, and hand over through the
RealtimeBox ``_box`` (a :class:`~.loop.LoopCommand`; the latest wins). ``_goal`` is the goal the
executor side considers active (the loop has its own ``_active_goal``); action goals reach the
callbacks here through the
:class:`~py_controllers.controller_interface.goal_monitor.GoalMonitor` ``_monitor``, which
alone finishes them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import SpeedScalingFactor
from rclpy.action import GoalResponse
from trajectory_msgs.msg import JointTrajectory

from py_controllers.controller_interface.goal_monitor import (
    ABORTED,
    CANCELED,
    MonitoredGoal,
)
from py_controllers.controllers.joint_trajectory.conversions import NS, ns_of, points_of
from py_controllers.controllers.joint_trajectory.loop import GoalData, LoopCommand
from py_controllers.controllers.joint_trajectory.points import InterpolationMethod, SampleResult
from py_controllers.controllers.joint_trajectory.tolerances import tolerances_from_goal
from py_controllers.controllers.joint_trajectory.trajectory import Trajectory
from py_controllers.controllers.joint_trajectory.validation import (
    PointData,
    TrajectoryRules,
    fill_omitted_joints,
    to_controller_order,
    upsample_positions,
    validate_trajectory,
)
from py_controllers.ros_conversions import duration_to_s

__all__ = ['TrajectoryInputs']

_Result = FollowJointTrajectory.Result


class TrajectoryInputs:
    """Topic, speed scaling, query_state and goal callbacks of the controller (a mixin)."""

    # --- ~/joint_trajectory and ~/speed_scaling_input --------------------------------
    def _rules(self, params: Any) -> TrajectoryRules:
        return TrajectoryRules(
            tuple(self.joints),
            bool(params.allow_partial_joints_goal),
            bool(params.allow_nonzero_velocity_at_trajectory_end),
            bool(params.allow_integration_in_goal_trajectories),
            self.has_eff_cmd,
        )

    def _now_ns(self) -> int:
        return self.get_node().get_clock().now().nanoseconds

    def _to_trajectory(
        self, msg: JointTrajectory, points: list[PointData], params: Any
    ) -> Trajectory:
        """A validated message as a Trajectory on the loop's time axis (raises ValueError)."""
        ordered, commanded = to_controller_order(msg.joint_names, points, self.joints)
        stamp_ns = ns_of(msg.header.stamp)
        epoch = self._epoch_ns
        start_s = (stamp_ns - epoch) / NS if stamp_ns != 0 else None
        if not commanded.all():
            previous = self._trajectory if params.allow_trajectory_replacement else None
            # Where the new trajectory starts: its stamp, else about now on the loop's axis.
            if start_s is not None:
                estimate_s = start_s
            else:
                estimate_s = (self._traj_time_ns - epoch) / NS if self._traj_time_ns else 0.0
            ordered = fill_omitted_joints(
                ordered,
                commanded,
                self._hold_positions(),
                previous=previous,
                start_time_s=estimate_s,
                interpolation=self._interpolation,
            )
        return Trajectory(ordered, start_s, copy=False)

    def _hold_positions(self) -> np.ndarray:
        """Where omitted joints rest: their position command, else their measured position."""
        positions = np.array([h.value for h in self._state_pos], dtype=float)
        if self._cmd_pos:
            for k, j in enumerate(self._cmd_index):
                value = self._cmd_pos[k].value
                if value == value:
                    positions[j] = value
        return positions

    def _on_trajectory(self, msg: JointTrajectory) -> None:
        if not self._active:
            return
        log = self.get_node().get_logger()
        params = self.parameters.latest()
        points = points_of(msg)
        if params.positions_upsampling.enable and self._interpolation != InterpolationMethod.NONE:
            points = upsample_positions(points, float(params.positions_upsampling.policy_frequency))
        reason = validate_trajectory(
            msg.joint_names,
            points,
            self._rules(params),
            stamp_ns=ns_of(msg.header.stamp),
            now_ns=self._now_ns(),
            empty_means_stop=True,
        )
        if reason:
            log.error(f'Trajectory rejected: {reason}', throttle_duration_sec=1.0)
            return
        if not points:
            log.info(
                'Empty trajectory received on ~/joint_trajectory: stopping and holding position'
            )
            self._stop_goal_by_topic()
            self._box.set(LoopCommand(None, None))
            return
        try:
            trajectory = self._to_trajectory(msg, points, params)
        except ValueError as exc:
            log.error(f'Trajectory rejected: {exc}', throttle_duration_sec=1.0)
            return
        goal = self._goal
        self._box.set(
            LoopCommand(trajectory, goal if goal is not None and not goal.finished else None)
        )

    def _on_scaling(self, msg: SpeedScalingFactor) -> None:
        log = self.get_node().get_logger()
        factor = float(msg.factor)
        if not factor >= 0.0 or math.isinf(factor):
            log.warning('Scaling factor has to be greater or equal to 0.0 - Ignoring input!')
            return
        if factor != self._scaling:
            log.info(f'New scaling factor will be {factor:f}')
        self._scaling = factor
        if (
            self._params.speed_scaling.state_interface
            and not self._params.speed_scaling.command_interface
        ):
            log.warning(
                'Setting the scaling factor while only one-way communication with the hardware '
                'is setup. This will likely get overwritten by the hardware again.',
                once=True,
            )
        else:
            self._scaling_cmd_value = factor

    # --- ~/follow_joint_trajectory: the callbacks of the goal monitor ----------------------
    def _validate_goal(self, goal: Any) -> GoalResponse:
        log = self.get_node().get_logger()
        log.info('Received new action goal')
        if not self._active:
            log.error("Can't accept new action goals. Controller is not running.")
            return GoalResponse.REJECT
        params = self.parameters.latest()
        reason = validate_trajectory(
            goal.trajectory.joint_names,
            points_of(goal.trajectory),
            self._rules(params),
            stamp_ns=ns_of(goal.trajectory.header.stamp),
            now_ns=self._now_ns(),
        )
        if reason:
            log.error(f'Goal rejected: {reason}')
            return GoalResponse.REJECT
        log.info('Accepted new action goal')
        return GoalResponse.ACCEPT

    def _goal_accepted(self, goal: MonitoredGoal) -> None:
        """Preempt the active goal, then hand this one's trajectory to the loop."""
        log = self.get_node().get_logger()
        request = goal.request
        params = self.parameters.latest()
        self._preempt_active_goal()
        tolerances, problem = tolerances_from_goal(
            self._default_tolerances,
            self.joints,
            [(t.name, t.position, t.velocity, t.acceleration) for t in request.path_tolerance],
            [(t.name, t.position, t.velocity, t.acceleration) for t in request.goal_tolerance],
            duration_to_s(request.goal_time_tolerance),
        )
        if problem:
            log.error(problem)
        goal.data = GoalData(tolerances, self._bind_feedback(goal.feedback))
        try:
            trajectory = self._to_trajectory(
                request.trajectory, points_of(request.trajectory), params
            )
        except Exception as exc:  # never leave an accepted goal without a result
            self._monitor.record_outcome(
                goal, ABORTED, (_Result.INVALID_GOAL, f'Invalid trajectory: {exc}')
            )
            return
        self._goal = goal
        self._box.set(LoopCommand(trajectory, goal))

    def _cancel_requested(self, goal: MonitoredGoal) -> None:
        """Stop and hold (or brake); CANCELED goes out once the loop stopped following."""
        log = self.get_node().get_logger()
        log.info('Got request to cancel goal')
        if goal is self._goal:
            log.info('Canceling active action goal because cancel callback received.')
            self._goal = None
            self._monitor.record_outcome(goal, CANCELED, (_Result.SUCCESSFUL, ''))
            self._box.set(LoopCommand(None, None))

    def _stop_goal_by_topic(self) -> None:
        """An empty trajectory on the topic stops the active goal: ABORTED (rclpy lets only a
        client's cancel request end a goal CANCELED)."""
        self._abort_active_goal('Goal stopped by an empty trajectory on the topic')

    def _preempt_active_goal(self) -> None:
        self._abort_active_goal('Current goal preempted by new incoming action.')

    def _abort_active_goal(self, text: str) -> None:
        goal = self._goal
        if goal is not None:
            self._goal = None
            self._monitor.record_outcome(goal, ABORTED, (_Result.INVALID_GOAL, text))

    @staticmethod
    def _make_result(details: tuple[int, str]) -> Any:
        code, text = details
        return _Result(error_code=code, error_string=text)

    # --- query_state -------------------------------------------------------------------
    def _on_query_state(self, request: Any, response: Any) -> Any:
        log = self.get_node().get_logger()
        response.success = False
        if not self._active:
            response.message = "Can't sample trajectory. Controller is not active."
            log.error(response.message)
            return response
        response.name = list(self.joints)
        response.position = self._cur_pos.tolist()
        response.velocity = self._cur_vel.tolist() if self.has_vel_state else []
        response.acceleration = self._cur_acc.tolist() if self.has_acc_state else []
        trajectory = self._trajectory
        if trajectory is None:
            response.message = 'Currently there is no valid trajectory instance.'
            log.error(response.message)
            return response
        t_s = (ns_of(request.time) - self._epoch_ns) / NS
        sample = trajectory.sample(
            t_s, self._interpolation, advance=False, out=SampleResult(self.n)
        )
        if sample is None:
            response.message = (
                'Requested sample time is earlier than the current trajectory start time.'
            )
        elif not sample.before_last_point:
            response.message = 'Requested sample time is after the current trajectory end time.'
        else:
            response.success = True
            response.position = sample.positions.tolist()
            response.velocity = sample.velocities.tolist()
            response.acceleration = sample.accelerations.tolist()
            return response
        log.error(response.message)
        return response
