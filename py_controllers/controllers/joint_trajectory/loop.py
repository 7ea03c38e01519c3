"""The loop side of the joint trajectory controller: update() and everything it calls.

``TrajectoryLoop`` is a mixin of :class:`~.controller.JointTrajectoryController`. Every
method here that the loop calls ends in ``_rt``: no rclpy calls, no logging (lines go to the
goal monitor), no waiting; the outgoing state message and each goal's feedback are built
once (activate, goal accepted) and only filled in place here. The loop reads and writes the
attributes the controller sets in ``on_configure`` / ``on_activate`` (joints, handles,
preallocated arrays, the configuration flags) and these, which are its own:

* ``_trajectory``, ``_holding``, ``_traj_time_ns``, ``_last_cmd_time_ns``: what it follows;
* ``_settled``, ``_settled_end_s``: the trajectory whose last point ``_desired`` and ``_next``
  hold because both were sampled past its end (then the loop samples it no more), and
  that end;
* ``_taken``: the last command taken from ``_box`` (a :class:`LoopCommand`);
* ``_active_goal``: the
  :class:`~py_controllers.controller_interface.goal_monitor.MonitoredGoal` it follows, if
  any. It records that goal's outcome through the monitor and never touches a goal handle.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from control_msgs.action import FollowJointTrajectory

from py_controllers.control_toolbox.angles import shortest_angular_distance
from py_controllers.control_toolbox.pid_parameters import gains_from_parameters
from py_controllers.controller_interface.controller_interface import ReturnType
from py_controllers.controller_interface.goal_monitor import (
    ABORTED,
    SUCCEEDED,
    MonitoredGoal,
)
from py_controllers.controllers.joint_trajectory.builders import (
    decelerate_to_stop,
    hold_trajectory,
    success_trajectory,
)
from py_controllers.controllers.joint_trajectory.conversions import (
    NS,
    SampleCopy,
    SampleViews,
    bind_feedback,
    state_message,
)
from py_controllers.controllers.joint_trajectory.points import (
    SampleResult,
    TrajectoryPoint,
)
from py_controllers.controllers.joint_trajectory.tolerances import (
    SegmentTolerances,
    default_tolerances,
    tolerance_violations,
    within_state_tolerance,
)
from py_controllers.controllers.joint_trajectory.trajectory import Trajectory
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.realtime_tools import RealtimePublisher
from py_controllers.ros_conversions import element_writer, set_duration, set_stamp

__all__ = [
    'GoalData',
    'LoopCommand',
    'TrajectoryLoop',
    'pid_gains_of',
    'tolerances_from_parameters',
]

_Result = FollowJointTrajectory.Result


class LoopCommand:
    """What the loop should do next: follow ``trajectory`` (None: stop), with ``goal`` active."""

    __slots__ = ('goal', 'trajectory')

    def __init__(self, trajectory: Trajectory | None, goal: MonitoredGoal | None) -> None:
        self.trajectory = trajectory
        self.goal = goal


class GoalData:
    """The JTC's part of a goal (``MonitoredGoal.data``): its tolerances, and how the loop
    fills its feedback."""

    __slots__ = ('feedback', 'tolerances')

    def __init__(self, tolerances: SegmentTolerances, feedback: SampleCopy) -> None:
        self.tolerances = tolerances
        self.feedback = feedback


def tolerances_from_parameters(params: Any, joints: list[str]) -> SegmentTolerances:
    """The default tolerances (``constraints.*``) for ``joints``."""
    c = params.constraints
    return default_tolerances(
        [float(c[j].trajectory) for j in joints],
        [float(c[j].goal) for j in joints],
        float(c.stopped_velocity_tolerance),
        float(c.goal_time),
    )


def pid_gains_of(params: Any, joint: str) -> Any:
    """``gains.<joint>`` as PID gains (raises ValueError for invalid ones)."""
    return gains_from_parameters(params.gains[joint], prefix=f'gains.{joint}.')


class TrajectoryLoop:
    """update() and the loop-side methods of the joint trajectory controller (a mixin)."""

    def _loop_follows(self, goal: MonitoredGoal) -> bool:
        """True while the loop executes ``goal`` (read by the monitor in the executor)."""
        return self._active and self._active_goal is goal

    def _apply_joint_options_rt(self, params: Any) -> None:
        """Per-joint options that may change at runtime: wraparound and feed-forward."""
        self._continuous = np.array(
            [
                self._urdf_continuous[i]
                or bool(params.gains[j].angle_wraparound)
                or bool(params.gains[j].normalize_error)
                for i, j in enumerate(self.joints)
            ],
            dtype=bool,
        )
        self._continuous_indices = [int(i) for i in np.flatnonzero(self._continuous)]
        self._ff_scale = [
            float(params.gains[self.joints[j]].ff_velocity_scale) for j in self._cmd_index
        ]

    # --- messages built once (activate / goal accepted) -----------------------------
    def _build_state_message(self) -> None:
        self._state = state = state_message(
            self.joints,
            self.has_vel_state,
            self.has_acc_state,
            [
                (field, handles)
                for flag, field, handles in (
                    (self.has_pos_cmd, 'positions', self._cmd_pos),
                    (self.has_vel_cmd, 'velocities', self._cmd_vel),
                    (self.has_acc_cmd, 'accelerations', self._cmd_acc),
                    (self.has_eff_cmd, 'effort', self._cmd_eff),
                )
                if flag
            ],
        )
        self._state_rt = RealtimePublisher(self._state_pub, state.message)
        self._state_copy = self._sample_copy(state.views)
        self._state_outputs = [(element_writer(view), handles) for view, handles in state.outputs]
        rate = float(self._params.state_publish_rate)
        self._publish_interval_ns = int(NS / rate) if rate > 0.0 else 0

    def _bind_feedback(self, feedback: Any) -> SampleCopy:
        """Give a goal's Feedback message its arrays once; how the loop fills them."""
        views = bind_feedback(
            feedback, self.joints, self.has_vel_state, self.has_acc_state, self.has_eff_cmd
        )
        return self._sample_copy(views)

    def _sample_copy(self, views: SampleViews) -> SampleCopy:
        """How this cycle's desired and measured values and their errors reach `views` (the
        loop computes velocity and acceleration errors only when a tolerance or the PID needs
        them: the copy computes them for the message)."""
        return SampleCopy(
            views,
            self._desired,
            (self._cur_pos, self._cur_vel, self._cur_acc, self._cur_eff),
            (self._err_pos, self._err_vel, self._err_acc),
        )

    # --- the loop ----------------------------------------------------------------------
    def update(self, time: Any, period: Any) -> ReturnType:
        """One control cycle: take the latest command, follow the trajectory, publish state."""
        now_ns = time.nanoseconds
        if self._scaling_state is not None:
            factor = self._scaling_state.value
            if factor != factor:  # no value from the hardware yet: skip this cycle
                return RETURN_OK
            self._scaling = factor
        if self._scaling_cmd is not None:
            self._scaling_cmd.value = self._scaling_cmd_value
        params = self.parameters.latest()
        if params is not self._params:
            self._apply_parameters_rt(params)

        self._read_state_rt()
        command = self._box.get()
        if command is not self._taken:
            self._taken = command
            if command is not None:
                self._install_rt(command)
        goal = self._active_goal
        if goal is not None and goal.outcomes:  # finished elsewhere (canceled, preempted)
            goal = self._active_goal = None
            self._wake_monitor_rt()  # no longer followed: its result may go out
        trajectory = self._trajectory
        if trajectory is not None:
            self._follow_rt(trajectory, goal, now_ns, period.nanoseconds)
        self._publish_state_rt(now_ns)
        return RETURN_OK

    def _read_state_rt(self) -> None:
        pack = self._pack_joints  # one call writes every joint's value (numpy's [:] = list: ~4x)
        pack(self._cur_pos, 0, *[h.value for h in self._state_pos])
        if self._state_vel:
            pack(self._cur_vel, 0, *[h.value for h in self._state_vel])
        if self._state_acc:
            pack(self._cur_acc, 0, *[h.value for h in self._state_acc])
        if self._cmd_eff:
            if self._cmd_identity:
                pack(self._cur_eff, 0, *[h.value for h in self._cmd_eff])
            else:
                self._cur_eff[self._cmd_index] = [h.value for h in self._cmd_eff]

    def _apply_parameters_rt(self, params: Any) -> None:
        """A new parameter snapshot: default tolerances, wraparound, feed-forward and gains."""
        self._params = params
        self._default_tolerances = tolerances_from_parameters(params, self.joints)
        self._apply_joint_options_rt(params)
        errors = []
        for pid, j in zip(self._pids, self._cmd_index):
            joint = self.joints[j]
            try:
                gains = pid_gains_of(params, joint)
            except ValueError as exc:
                errors.append(str(exc))
                continue
            if not pid.set_gains(gains):
                errors.append(f'gains.{joint}: {pid.last_gains_error}')
        if errors:
            self._log_rt('error', f'new PID gains ignored: {"; ".join(errors)}')

    def _install_rt(self, command: LoopCommand) -> None:
        if command.trajectory is None:
            self._stop_rt()
        else:
            self._trajectory = command.trajectory
            self._holding = False
        previous = self._active_goal
        self._active_goal = command.goal
        if previous is not None and previous is not command.goal:
            self._wake_monitor_rt()  # no longer followed: its result may go out

    def _hold_at_rt(self, positions: np.ndarray) -> Trajectory:
        return hold_trajectory(
            positions,
            zero_velocities=self.has_vel_cmd or self.has_acc_cmd,
            zero_accelerations=self.has_acc_cmd,
            zero_effort=self.has_eff_cmd,
        )

    def _stop_rt(self) -> None:
        """Hold the measured position, or brake to a stop with decelerate_on_cancel."""
        if self._decelerate and self._update_period_s > 0.0:
            self._trajectory = decelerate_to_stop(
                self._cur_pos, self._cur_vel, self._max_deceleration, self._update_period_s
            )
        else:
            self._trajectory = self._hold_at_rt(self._cur_pos)
        self._holding = True

    def _follow_rt(
        self, trajectory: Trajectory, goal: MonitoredGoal | None, now_ns: int, period_ns: int
    ) -> None:
        epoch = self._epoch_ns
        first = not trajectory.sampled_already
        if first:
            if self._interpolate_from_desired:
                before_ns = self._last_cmd_time_ns if self._last_cmd_time_ns is not None else now_ns
                before = TrajectoryPoint(
                    0.0,
                    self._last_pos,
                    self._last_vel if self._last_has_vel else None,
                    self._last_acc if self._last_has_acc else None,
                )
                trajectory.set_point_before((before_ns - epoch) / NS, before, self._continuous)
            else:
                trajectory.set_point_before(
                    (now_ns - epoch) / NS, self._current_point, self._continuous
                )
            self._traj_time_ns = now_ns
        else:
            self._traj_time_ns += round(period_ns * self._scaling)
        t_s = (self._traj_time_ns - epoch) / NS
        if trajectory is self._settled and t_s >= self._settled_end_s:
            # both samples already hold its last point, and past its end nothing changes
            desired, nxt = self._desired, self._next
        else:
            # this cycle's sample and the next cycle's (what the commands go to)
            if not trajectory.sample_pair(
                t_s, t_s + self._update_period_s, self._interpolation, self._samples
            ):
                return
            desired, nxt = self._desired, self._next
            end_s = trajectory.end_time_s
            self._settled = trajectory if end_s is not None and t_s >= end_s else None
            self._settled_end_s = end_s
        next_index = desired.end_index
        start_s = trajectory.start_time_s
        self._desired_tfs_s = t_s - start_s
        self._actual_tfs_s = (now_ns - epoch) / NS - start_s

        err_pos = self._err_pos
        np.subtract(desired.positions, self._cur_pos, out=err_pos)
        if self._continuous_indices:  # joint by joint: a few joints cost less than numpy's masks
            measured, wanted = self._cur_pos.tolist(), desired.positions.tolist()
            for j in self._continuous_indices:
                err_pos[j] = shortest_angular_distance(measured[j], wanted[j])
        err_vel = err_acc = None
        if self._velocity_error_used:
            err_vel = np.subtract(desired.velocities, self._cur_vel, out=self._err_vel)
        if self._acceleration_error_used:
            err_acc = np.subtract(desired.accelerations, self._cur_acc, out=self._err_acc)

        holding = self._holding
        before_last = nxt.before_last_point
        time_difference_s = t_s - nxt.segment_start_time_s
        tolerances = goal.data.tolerances if goal is not None else self._default_tolerances
        timed_out = (
            not before_last
            and not holding
            and self._cmd_timeout_s > 0.0
            and time_difference_s > self._cmd_timeout_s
        )
        path_ok = True
        if (before_last or first) and not holding:
            path_ok = within_state_tolerance(err_pos, err_vel, err_acc, tolerances.state_tolerance)
        outside_goal = False
        within_goal_time = True
        if (
            not before_last
            and not holding
            and not within_state_tolerance(
                err_pos, err_vel, err_acc, tolerances.goal_state_tolerance
            )
        ):
            outside_goal = True
            goal_time = tolerances.goal_time_tolerance
            if goal_time != 0.0 and time_difference_s > goal_time:
                within_goal_time = False

        if path_ok and within_goal_time:
            self._write_commands_rt(desired, nxt, period_ns / NS)
            self._last_cmd_time_ns = now_ns

        if goal is not None:
            self._fill_feedback_rt(goal, now_ns, next_index)
            if not path_ok:
                self._violation_rt(tolerances, err_vel, err_acc, path=True)
                self._finish_rt(
                    goal,
                    ABORTED,
                    (_Result.PATH_TOLERANCE_VIOLATED, 'Aborted due to path tolerance violation'),
                )
                self._log_rt('warning', 'Aborted due to state tolerance violation')
                self._stop_rt()
            elif not before_last:
                if not outside_goal:
                    self._finish_rt(
                        goal, SUCCEEDED, (_Result.SUCCESSFUL, 'Goal successfully reached!')
                    )
                    self._log_rt('info', 'Goal reached, success!')
                    self._trajectory = success_trajectory(trajectory)
                    self._holding = True
                elif not within_goal_time or timed_out:
                    if timed_out:
                        text = 'Aborted due to command timeout'
                    else:
                        text = (
                            'Aborted due to goal_time_tolerance exceeding by '
                            f'{time_difference_s:f} seconds'
                        )
                    self._violation_rt(tolerances, err_vel, err_acc, path=False)
                    self._finish_rt(goal, ABORTED, (_Result.GOAL_TOLERANCE_VIOLATED, text))
                    self._log_rt('warning', text)
                    self._stop_rt()
        elif not path_ok:
            self._violation_rt(tolerances, err_vel, err_acc, path=True)
            self._log_rt('error', 'Holding position due to state tolerance violation')
            self._stop_rt()
        elif not before_last and not within_goal_time:
            self._violation_rt(tolerances, err_vel, err_acc, path=False)
            self._log_rt('error', 'Exceeded goal_time_tolerance: holding position...')
            self._stop_rt()
        elif timed_out:
            self._log_rt('warning', 'Aborted due to command timeout')
            self._stop_rt()

    def _finish_rt(self, goal: MonitoredGoal, status: str, details: tuple[int, str]) -> None:
        """Stop following ``goal`` and record how it ended; the monitor delivers the result."""
        self._active_goal = None
        monitor = self._monitor
        if monitor is not None:  # None only once cleanup has finished every goal
            monitor.record_outcome(goal, status, details)

    def _violation_rt(
        self,
        tolerances: SegmentTolerances,
        err_vel: np.ndarray | None,
        err_acc: np.ndarray | None,
        *,
        path: bool,
    ) -> None:
        """Record which tolerances were violated, for the non-realtime side to log (rare)."""
        limits = tolerances.state_tolerance if path else tolerances.goal_state_tolerance
        what = 'State tolerances failed' if path else 'Goal tolerances failed'
        for line in tolerance_violations(self.joints, self._err_pos, err_vel, err_acc, limits):
            self._log_rt('error', f'{what}: {line}')

    def _write_commands_rt(self, desired: SampleResult, nxt: SampleResult, dt_s: float) -> None:
        idx = self._cmd_index
        if self.use_pid:  # one command interface, velocity or effort, driven by the PIDs
            handles = self._cmd_vel or self._cmd_eff
            velocities = nxt.velocities.tolist()
            efforts = nxt.effort.tolist() if self.has_eff_cmd else None
            err_pos = self._err_pos.tolist()
            err_vel = self._err_vel.tolist()
            ff = self._ff_scale
            for k, pid in enumerate(self._pids):
                j = idx[k]
                u = velocities[j] * ff[k] + pid.compute_command(
                    err_pos[j], dt_s, error_dot=err_vel[j]
                )
                if efforts is not None:
                    u += efforts[j]
                handles[k].value = u
        else:
            identity = self._cmd_identity
            for handles, source in (
                (self._cmd_pos, nxt.positions),
                (self._cmd_vel, nxt.velocities),
                (self._cmd_acc, nxt.accelerations),
                (self._cmd_eff, desired.effort),
            ):
                if handles:
                    values = source.tolist() if identity else source[idx].tolist()
                    for h, value in zip(handles, values):
                        h.value = value
        for last, commanded in self._remember_commanded:
            last[:] = commanded
        self._last_has_vel = self._last_has_acc = True

    def _fill_feedback_rt(self, goal: MonitoredGoal, now_ns: int, next_index: int) -> None:
        fb = goal.take_feedback_rt(now_ns)
        if fb is None:
            return
        set_stamp(fb.header.stamp, now_ns)
        set_duration(fb.desired.time_from_start, self._desired_tfs_s)
        set_duration(fb.actual.time_from_start, self._actual_tfs_s)
        goal.data.feedback.copy_rt()
        fb.index = next_index
        goal.send_feedback_rt()

    def _publish_state_rt(self, now_ns: int) -> None:
        if self._publish_interval_ns:
            last = self._last_publish_ns
            if last is not None and now_ns - last < self._publish_interval_ns:
                return
        rt = self._state_rt
        if not rt.trylock():
            return
        self._last_publish_ns = now_ns
        state = self._state
        set_stamp(state.stamp, now_ns)
        set_duration(state.reference_time, self._desired_tfs_s)
        set_duration(state.feedback_time, self._actual_tfs_s)
        self._state_copy.copy_rt()
        idx = self._cmd_index
        for view, handles in self._state_outputs:
            values = [h.value for h in handles]
            if all(map(math.isfinite, values)):
                for j, value in zip(idx, values):
                    view[j] = value
        state.scaling[0] = self._scaling
        rt.unlock_and_publish()
