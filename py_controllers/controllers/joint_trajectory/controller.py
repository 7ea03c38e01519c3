"""``joint_trajectory_controller/JointTrajectoryController``: execute joint trajectories.

The ROS glue around the pure math in ``trajectory.py`` (sampling), ``builders.py``,
``tolerances.py`` and ``validation.py``. Behaviour follows upstream ros2_controllers (rolling)
unless noted.

Inputs (validated in their callbacks, handed to the loop through a RealtimeBox):

* ``~/joint_trajectory`` (trajectory_msgs/JointTrajectory): replaces the executing trajectory;
  an active action goal stays active and is judged against the new trajectory. A message
  **without points stops the robot and holds** (as the ROS 1 / user documentation describes;
  current upstream rejects it), and ends an active goal: ABORTED with INVALID_GOAL, "Goal
  stopped by an empty trajectory on the topic" (ROS 1 reported CANCELED, which rclpy allows only
  after a client's cancel request).
* ``~/follow_joint_trajectory`` (control_msgs/action/FollowJointTrajectory): a new goal aborts
  the active one (INVALID_GOAL, "Current goal preempted by new incoming action."); cancel stops
  and holds (or decelerates with ``constraints.decelerate_on_cancel``), and the CANCELED result
  goes out once the loop has stopped following the goal. Goals are finished by the goal monitor
  (``controller_interface/goal_monitor.py``) from outcomes the loop and the callbacks record:
  rclpy's execute callback runs once the outcome is there (so a goal reads ACCEPTED, not
  EXECUTING, while the loop executes it); update() never touches a goal handle.
* ``~/speed_scaling_input`` (control_msgs/SpeedScalingFactor, position-only commands).

Outputs: ``~/controller_state`` (control_msgs/JointTrajectoryControllerState) every update, or
at most at ``state_publish_rate`` when that deprecated parameter is set; action feedback at
``action_monitor_rate``; ``~/query_state`` (control_msgs/srv/QueryTrajectoryState) samples the
current trajectory without disturbing the loop.

Execution: trajectories are sampled at the loop's trajectory time, which starts at the update
time of a trajectory's first cycle and then advances by the (monotonic) period, so a jump of
the clock does not jump a trajectory. Commands are sampled one controller period ahead. With a
velocity-only or effort-only command interface a PID per joint turns the tracking error into
the command: ``u = ff_velocity_scale * v_desired (+ desired effort) + PID(e_pos, e_vel)``;
continuous joints (URDF ``continuous`` or ``gains.<joint>.angle_wraparound``) use the shortest
angular distance.

Deliberate deviations from upstream (rolling):

* Partial trajectories: the omitted joints keep following the trajectory being executed (and
  finish its course) when ``allow_trajectory_replacement`` is true (the default); false holds
  them at their position command (jazzy/kilted). The commanded joints are replaced outright:
  rolling's bridging of the commanded joints into the new trajectory is not reproduced.
* Duplicate joint names and non-finite values are rejected (upstream accepts them).
* ``cmd_timeout`` expiring while an action goal waits outside its goal tolerance aborts it with
  GOAL_TOLERANCE_VIOLATED (upstream reports success there).
* Without an active goal, topic trajectories are checked against the default tolerances
  (upstream keeps the tolerances of the last goal).
* ``query_state`` also explains a failure in ``message``.

The class is put together from three seams: configuration and lifecycle here, the executor
side in ``inputs.py`` (:class:`~.inputs.TrajectoryInputs`: topic, speed scaling, query_state,
goal callbacks), the loop in ``loop.py`` (:class:`~.loop.TrajectoryLoop`: update(), follow,
write commands, state; ``_rt`` methods); the action's non-realtime side is the
controller-agnostic
:class:`~py_controllers.controller_interface.goal_monitor.GoalMonitor`.
"""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import Any

import numpy as np
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTrajectoryControllerState, SpeedScalingFactor
from control_msgs.srv import QueryTrajectoryState
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from trajectory_msgs.msg import JointTrajectory

from py_controllers.control_toolbox.pid import Pid
from py_controllers.control_toolbox.pid_parameters import gains_problem
from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
)
from py_controllers.controller_interface.goal_monitor import GoalServing, MonitoredGoal
from py_controllers.controllers.joint_trajectory.conversions import NS
from py_controllers.controllers.joint_trajectory.inputs import TrajectoryInputs
from py_controllers.controllers.joint_trajectory.loop import (
    LoopCommand,
    TrajectoryLoop,
    pid_gains_of,
    tolerances_from_parameters,
)
from py_controllers.controllers.joint_trajectory.points import (
    InterpolationMethod,
    SamplePair,
    TrajectoryPoint,
)
from py_controllers.controllers.joint_trajectory.trajectory import Trajectory
from py_controllers.controllers.joint_trajectory.validation import (
    CUSTOM_VALIDATORS,
    command_interface_combination_error,
    interface_requirements_error,
    state_interface_combination_error,
)
from py_controllers.hardware_interface.urdf import CONTINUOUS, parse_urdf_joints
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox

__all__ = ['JointTrajectoryController']

_Result = FollowJointTrajectory.Result


class JointTrajectoryController(GoalServing, TrajectoryInputs, TrajectoryLoop, ControllerInterface):
    """Follows joint trajectories from a topic or a FollowJointTrajectory action."""

    SCHEMA = Path(__file__).parent / 'joint_trajectory_controller_parameters.yaml'

    # --- lifecycle -------------------------------------------------------------------
    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(
            self.get_node(),
            self.SCHEMA,
            custom_validators=CUSTOM_VALIDATORS,
            consistency=lambda p: gains_problem(
                {f'gains.{j}.': p.gains[j] for j in p.joints if j in p.gains}
            ),
        )
        self._monitor = None
        self._box: RealtimeBox[LoopCommand | None] = RealtimeBox(None)
        self._goal: MonitoredGoal | None = None  # the executor side's active goal
        self._active_goal: MonitoredGoal | None = None  # the loop's
        self._active = False
        self._trajectory: Trajectory | None = None
        self._traj_time_ns = 0
        self._epoch_ns = 0
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        self._params = params
        self.joints = list(params.joints)
        n = self.n = len(self.joints)
        command_joints = list(params.command_joints) or list(self.joints)
        if len(command_joints) > n:
            log.error("The 'command_joints' parameter must not exceed the size of 'joints'.")
            return CallbackReturn.FAILURE
        if len(command_joints) < n:
            missing = [j for j in command_joints if j not in self.joints]
            if missing:
                log.error(
                    "'command_joints' must be a subset of 'joints' when it is smaller; "
                    f'unknown: {missing}'
                )
                return CallbackReturn.FAILURE
            self._cmd_index = [self.joints.index(j) for j in command_joints]
        else:
            self._cmd_index = list(range(n))
        self.command_joints = command_joints
        self._cmd_identity = self._cmd_index == list(range(n))

        commands = list(params.command_interfaces)
        states = list(params.state_interfaces)
        error = (
            command_interface_combination_error(commands)
            or state_interface_combination_error(states)
            or interface_requirements_error(commands, states)
        )
        if error:
            log.error(error)
            return CallbackReturn.FAILURE
        self._command_interfaces = commands
        self._state_interfaces = states
        self.has_pos_cmd = 'position' in commands
        self.has_vel_cmd = 'velocity' in commands
        self.has_acc_cmd = 'acceleration' in commands
        self.has_eff_cmd = 'effort' in commands
        self.has_vel_state = 'velocity' in states
        self.has_acc_state = 'acceleration' in states
        if params.open_loop_control:
            log.warning(
                "[deprecated] 'open_loop_control' parameter is deprecated. Instead, set the "
                "feedback gains to zero and use 'interpolate_from_desired_state' parameter"
            )
        self._interpolate_from_desired = bool(
            params.interpolate_from_desired_state or params.open_loop_control
        )
        self.use_pid = (commands == ['velocity'] and not params.open_loop_control) or commands == [
            'effort'
        ]
        self._velocity_error_used = self.has_vel_state and (self.has_vel_cmd or self.has_eff_cmd)
        self._acceleration_error_used = self.has_acc_state and self.has_acc_cmd

        self._urdf_continuous = [False] * n
        self._urdf_max_velocity = [0.0] * n
        if self.robot_description:
            try:
                urdf = parse_urdf_joints(self.robot_description)
            except Exception as exc:
                log.error(f'Failed to parse robot description: {exc}')
                return CallbackReturn.ERROR
            for i, name in enumerate(self.joints):
                joint = urdf.get(name)
                if joint is None:
                    continue
                self._urdf_continuous[i] = joint.type == CONTINUOUS
                if joint.limits.has_velocity_limits:
                    self._urdf_max_velocity[i] = joint.limits.velocity

        self._pids: list[Pid] = []
        if self.use_pid:
            try:
                self._pids = [
                    Pid.from_gains(pid_gains_of(params, self.joints[j])) for j in self._cmd_index
                ]
            except ValueError as exc:
                log.error(f'invalid PID gains: {exc}')
                return CallbackReturn.FAILURE
        self._warn_deprecated_gains(params)
        self._apply_joint_options_rt(params)
        self._configure_deceleration(params)
        self._default_tolerances = tolerances_from_parameters(params, self.joints)
        self._interpolation = InterpolationMethod.from_string(params.interpolation_method)
        if params.state_publish_rate > 0.0:
            log.warning(
                "[deprecated] 'state_publish_rate' limits ~/controller_state to "
                f'{params.state_publish_rate:g} Hz; current upstream publishes every update'
            )
        log.info(
            f'Command interfaces are [{" ".join(commands)}] and state interfaces are '
            f'[{" ".join(states)}].'
        )
        self._create_ros_entities(params)
        return CallbackReturn.SUCCESS

    def _warn_deprecated_gains(self, params: Any) -> None:
        log = self.get_node().get_logger()
        for joint in self.joints:
            group = params.gains[joint]
            if group.normalize_error:
                log.warning(
                    f"[deprecated] 'gains.{joint}.normalize_error': use a continuous URDF joint "
                    f"or 'gains.{joint}.angle_wraparound'"
                )
            if self.use_pid and math.isfinite(group.i_clamp):
                log.warning(f"[deprecated] 'gains.{joint}.i_clamp': use i_clamp_max / i_clamp_min")

    def _configure_deceleration(self, params: Any) -> None:
        log = self.get_node().get_logger()
        self._decelerate = False
        self._max_deceleration = np.zeros(self.n)
        if not params.constraints.decelerate_on_cancel:
            return
        ok = True
        for i, joint in enumerate(self.joints):
            decel = float(params.constraints[joint].max_deceleration_on_cancel)
            self._max_deceleration[i] = decel
            if decel <= 0.0:
                log.error(
                    f'Joint [{joint}] invalid max_deceleration_on_cancel [{decel:.1f}]. '
                    'Falling back to hold position on cancel.'
                )
                ok = False
                break
            if self._urdf_max_velocity[i] <= 0.0:
                log.error(
                    f'Joint [{joint}] has invalid joint velocity defined in URDF '
                    f'[{self._urdf_max_velocity[i]:.1f}]. Falling back to hold position on cancel.'
                )
                ok = False
                break
        if ok and not self.has_vel_state:
            log.warning(
                'Decelerate on cancel is enabled but hardware does not support velocity state '
                'interface. Falling back to hold position on cancel.'
            )
            ok = False
        self._decelerate = ok

    def _create_ros_entities(self, params: Any) -> None:
        node = self.get_node()
        name = node.get_name()
        node.create_subscription(JointTrajectory, '~/joint_trajectory', self._on_trajectory, 10)
        node.create_service(QueryTrajectoryState, f'{name}/query_state', self._on_query_state)
        self._state_pub = node.create_publisher(
            JointTrajectoryControllerState, '~/controller_state', 10
        )
        self._scaling = 1.0
        self._scaling_cmd_value = 1.0
        if not (self.has_vel_cmd or self.has_acc_cmd or self.has_eff_cmd):
            qos = QoSProfile(
                depth=10,
                reliability=ReliabilityPolicy.RELIABLE,
                durability=DurabilityPolicy.TRANSIENT_LOCAL,
            )
            node.create_subscription(
                SpeedScalingFactor, '~/speed_scaling_input', self._on_scaling, qos
            )
            self._scaling = self._scaling_cmd_value = float(
                params.speed_scaling.initial_scaling_factor
            )
        elif params.speed_scaling.initial_scaling_factor != 1.0:
            node.get_logger().warning(
                'Speed scaling is currently only supported for position interfaces. If you want '
                'to make use of speed scaling, please only use a position interface when '
                'configuring this controller.'
            )
        self._serve_goals(
            FollowJointTrajectory,
            f'{name}/follow_joint_trajectory',
            float(params.action_monitor_rate),
        )

    def on_error(self, previous_state: Any) -> CallbackReturn:
        self._active = False
        self._active_goal = None
        self._trajectory = None
        return CallbackReturn.SUCCESS

    def _closing_details(self) -> tuple[int, str]:
        return (_Result.INVALID_GOAL, 'Controller cleaned up.')

    def command_interface_configuration(self) -> InterfaceConfiguration:
        names = [f'{j}/{i}' for j in self.command_joints for i in self._command_interfaces]
        if self._params.speed_scaling.command_interface:
            names.append(self._params.speed_scaling.command_interface)
        return InterfaceConfiguration.individual(names)

    def state_interface_configuration(self) -> InterfaceConfiguration:
        names = [f'{j}/{i}' for j in self.joints for i in self._state_interfaces]
        if self._params.speed_scaling.state_interface:
            names.append(self._params.speed_scaling.state_interface)
        return InterfaceConfiguration.individual(names)

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        log = self.get_node().get_logger()
        params = self.parameters.latest()
        self._params = params
        self._default_tolerances = tolerances_from_parameters(params, self.joints)
        self._apply_joint_options_rt(params)
        commands = {h.name: h for h in self.command_interfaces}
        states = {h.name: h for h in self.state_interfaces}
        try:
            self._resolve_handles(commands, states, params)
        except KeyError as exc:
            log.error(f'missing interface {exc}')
            return CallbackReturn.ERROR
        n = self.n
        self._update_period_ns = int(NS / self.update_rate) if self.update_rate else 0
        self._update_period_s = self._update_period_ns / NS
        self._epoch_ns = self.get_node().get_clock().now().nanoseconds
        self._allocate(n)

        self._read_state_rt()
        np.copyto(self._last_pos, self._cur_pos)
        np.copyto(self._last_vel, self._cur_vel)
        np.copyto(self._last_acc, self._cur_acc)
        self._last_has_vel = self.has_vel_state
        self._last_has_acc = self.has_acc_state
        self._last_cmd_time_ns: int | None = None
        if (
            params.set_last_command_interface_value_as_state_on_activation
            and len(self.command_joints) == n
        ):
            self._state_from_command_interfaces()
        for pid in self._pids:
            pid.reset()

        self._box.set(None)
        self._taken: LoopCommand | None = None
        self._active_goal = None
        self._trajectory = self._hold_at_rt(self._cur_pos)
        self._holding = True
        self._traj_time_ns = 0
        self._last_publish_ns: int | None = None

        self._cmd_timeout_s = 0.0
        if params.cmd_timeout > 0.0:
            if params.cmd_timeout > self._default_tolerances.goal_time_tolerance:
                self._cmd_timeout_s = float(params.cmd_timeout)
            else:
                log.warning(
                    'Command timeout must be higher than goal_time tolerance '
                    f'({params.cmd_timeout:f} vs. {self._default_tolerances.goal_time_tolerance:f})'
                )
        self._build_state_message()
        self._active = True
        return CallbackReturn.SUCCESS

    def _resolve_handles(self, commands: dict, states: dict, params: Any) -> None:
        """Handles per interface type, in command-joint / joint order (raises KeyError)."""
        cj = self.command_joints
        self._cmd_pos = [commands[f'{j}/position'] for j in cj] if self.has_pos_cmd else []
        self._cmd_vel = [commands[f'{j}/velocity'] for j in cj] if self.has_vel_cmd else []
        self._cmd_acc = [commands[f'{j}/acceleration'] for j in cj] if self.has_acc_cmd else []
        self._cmd_eff = [commands[f'{j}/effort'] for j in cj] if self.has_eff_cmd else []
        self._state_pos = [states[f'{j}/position'] for j in self.joints]
        self._state_vel = (
            [states[f'{j}/velocity'] for j in self.joints] if self.has_vel_state else []
        )
        self._state_acc = (
            [states[f'{j}/acceleration'] for j in self.joints] if self.has_acc_state else []
        )
        scaling = params.speed_scaling
        self._scaling_state = states[scaling.state_interface] if scaling.state_interface else None
        self._scaling_cmd = (
            commands[scaling.command_interface] if scaling.command_interface else None
        )

    def _allocate(self, n: int) -> None:
        self._pack_joints = struct.Struct(f'={n}d').pack_into  # n doubles into an array
        self._cur_pos = np.zeros(n)
        self._cur_vel = np.zeros(n)
        self._cur_acc = np.zeros(n)
        self._cur_eff = np.zeros(n)
        self._err_pos = np.zeros(n)
        self._err_vel = np.zeros(n)
        self._err_acc = np.zeros(n)
        self._last_pos = np.zeros(n)
        self._last_vel = np.zeros(n)
        self._last_acc = np.zeros(n)
        self._samples = SamplePair(n)
        self._desired = self._samples.now
        self._next = self._samples.ahead
        # what each cycle's commands came from, kept as the last command (memoryviews: a
        # fifth of np.copyto's cost)
        self._remember_commanded = [
            (memoryview(last), memoryview(commanded))
            for last, commanded in (
                (self._last_pos, self._next.positions),
                (self._last_vel, self._next.velocities),
                (self._last_acc, self._next.accelerations),
            )
        ]
        self._settled: Trajectory | None = None
        self._settled_end_s = math.inf
        self._current_point = TrajectoryPoint(
            0.0,
            self._cur_pos,
            self._cur_vel if self.has_vel_state else None,
            self._cur_acc if self.has_acc_state else None,
        )
        self._desired_tfs_s = 0.0
        self._actual_tfs_s = 0.0

    def _state_from_command_interfaces(self) -> None:
        """Restart without a jump: take each command interface whose values are all finite."""
        idx = self._cmd_index
        for handles, targets, flag in (
            (self._cmd_pos, (self._cur_pos, self._last_pos), None),
            (self._cmd_vel, (self._cur_vel, self._last_vel), '_last_has_vel'),
            (self._cmd_acc, (self._cur_acc, self._last_acc), '_last_has_acc'),
        ):
            if not handles:
                continue
            values = [h.value for h in handles]
            if not all(math.isfinite(v) for v in values):
                continue
            for target in targets:
                target[idx] = values
            if flag is not None:
                setattr(self, flag, True)

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        self._active = False
        # deactivation may come from the loop (a failure): the monitor finishes the goals
        self._goal = self._active_goal = None
        monitor = self._monitor
        if monitor is not None:
            monitor.abort_all_rt(
                (_Result.INVALID_GOAL, 'Current goal cancelled during deactivate transition.')
            )
        for h in self._cmd_pos:
            h.value = h.value
        for handles in (self._cmd_vel, self._cmd_acc, self._cmd_eff):
            for h in handles:
                h.value = 0.0
        self._trajectory = None
        self._box.set(None)
        return CallbackReturn.SUCCESS
