"""``joint_trajectory_controller/JointTrajectoryController``: execute joint trajectories.

The ROS glue around the pure math in ``trajectory.py`` (sampling), ``tolerances.py`` and
``validation.py``. Behaviour follows upstream ros2_controllers (rolling) unless noted.

Inputs (validated in their callbacks, handed to the loop through a RealtimeBox):

* ``~/joint_trajectory`` (trajectory_msgs/JointTrajectory): replaces the executing trajectory;
  an active action goal stays active and is judged against the new trajectory. A message
  **without points stops the robot and holds** (as the ROS 1 / user documentation describes;
  current upstream rejects it), and cancels an active goal (status CANCELED, as ROS 1 did).
* ``~/follow_joint_trajectory`` (control_msgs/action/FollowJointTrajectory): a new goal aborts
  the active one (INVALID_GOAL, "Current goal preempted by new incoming action."); cancel stops
  and holds (or decelerates with ``constraints.decelerate_on_cancel``). Goals are finished only
  by a steady timer at ``action_monitor_rate`` from outcomes the loop records; update() never
  touches a goal handle.
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
"""

from __future__ import annotations

import array
import collections
import math
import threading
from pathlib import Path
from typing import Any

import numpy as np
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTrajectoryControllerState, SpeedScalingFactor
from control_msgs.srv import QueryTrajectoryState
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.clock import Clock, ClockType
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from trajectory_msgs.msg import JointTrajectory

from py_controllers.callback_guard import refusing
from py_controllers.control_toolbox.pid import Pid
from py_controllers.control_toolbox.pid_parameters import gains_from_parameters
from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controllers.joint_trajectory.tolerances import (
    SegmentTolerances,
    check_state_tolerance,
    default_tolerances,
    tolerance_violations,
    tolerances_from_goal,
)
from py_controllers.controllers.joint_trajectory.trajectory import (
    InterpolationMethod,
    SampleResult,
    Trajectory,
    TrajectoryPoint,
    decelerate_to_stop,
    hold_trajectory,
    shortest_angular_distance_array,
    success_trajectory,
)
from py_controllers.controllers.joint_trajectory.validation import (
    PointData,
    TrajectoryRules,
    command_interface_combination_error,
    fill_omitted_joints,
    interface_requirements_error,
    state_interface_combination_error,
    to_controller_order,
    upsample_positions,
    validate_trajectory,
)
from py_controllers.hardware_interface.urdf import CONTINUOUS, parse_urdf_joints
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox, RealtimePublisher
from py_controllers.realtime_tools.deferred import log_at
from py_controllers.ros_conversions import duration_to_s, set_duration, set_stamp

__all__ = ['JointTrajectoryController']

_SCHEMA = Path(__file__).parent / 'joint_trajectory_controller_parameters.yaml'
_NS = 1_000_000_000
_Result = FollowJointTrajectory.Result

# Goal outcomes: (terminal state, error_code, error_string).
_SUCCEED, _ABORT, _CANCELED = 'succeed', 'abort', 'canceled'


def _combination_validator(check: Any) -> Any:
    def validate(param: Any) -> str:
        return check(list(param.value))

    return validate


_CUSTOM_VALIDATORS = {
    'joint_trajectory_controller::command_interface_type_combinations': _combination_validator(
        command_interface_combination_error
    ),
    'joint_trajectory_controller::state_interface_type_combinations': _combination_validator(
        state_interface_combination_error
    ),
}


def _ns_of(msg_time: Any) -> int:
    """builtin_interfaces Time/Duration to integer nanoseconds."""
    return msg_time.sec * _NS + msg_time.nanosec


def _points_of(msg: JointTrajectory) -> list[PointData]:
    """The message's points as plain data (no copies of the arrays)."""
    return [
        PointData(_ns_of(p.time_from_start), p.positions, p.velocities, p.accelerations, p.effort)
        for p in msg.points
    ]


def _bind(point_msg: Any, field: str, n: int, fill: float = 0.0) -> np.ndarray:
    """Give a message field an array of n doubles and return a numpy view writing into it."""
    setattr(point_msg, field, array.array('d', [fill] * n))
    # Read it back: without ROS_PYTHON_CHECK_FIELDS the setter stores a copy.
    return np.frombuffer(getattr(point_msg, field), dtype=float)


class _GoalContext:
    """One accepted action goal: its tolerances, the feedback the loop fills, its outcome.

    The loop and the non-realtime side both append to ``outcomes``; the first entry wins (a list
    append is atomic, so neither side ever waits). Only the non-realtime side touches
    ``goal_handle``.
    """

    def __init__(self, goal_handle: Any, tolerances: SegmentTolerances, feedback: Any) -> None:
        self.goal_handle = goal_handle
        self.tolerances = tolerances
        self.outcomes: list[tuple[str, int, str]] = []
        self.feedback = feedback
        self.views: dict[str, np.ndarray] = {}
        self.feedback_lock = threading.Lock()
        self.feedback_fresh = False
        self.finished = False


class _Command:
    """What the loop should do next: follow ``trajectory`` (None: stop), with ``goal`` active."""

    __slots__ = ('goal', 'trajectory')

    def __init__(self, trajectory: Trajectory | None, goal: _GoalContext | None) -> None:
        self.trajectory = trajectory
        self.goal = goal


class JointTrajectoryController(ControllerInterface):
    """Follows joint trajectories from a topic or a FollowJointTrajectory action."""

    # --- lifecycle -------------------------------------------------------------------
    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(
            self.get_node(), _SCHEMA, custom_validators=_CUSTOM_VALIDATORS
        )
        self._entities: list[tuple[str, Any]] = []
        self._action_server: ActionServer | None = None
        self._monitor_timer = None
        self._wake = None
        self._box: RealtimeBox[_Command | None] = RealtimeBox(None)
        self._goal_ctx: _GoalContext | None = None
        self._open_goals: list[_GoalContext] = []
        self._finish_lock = threading.RLock()
        self._rt_log: collections.deque[tuple[str, str]] = collections.deque(maxlen=64)
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
                    Pid.from_gains(self._gains_of(params, self.joints[j])) for j in self._cmd_index
                ]
            except ValueError as exc:
                log.error(f'invalid PID gains: {exc}')
                return CallbackReturn.FAILURE
        self._warn_deprecated_gains(params)
        self._apply_joint_options(params)
        self._configure_deceleration(params)
        self._default_tolerances = self._tolerances_from(params)
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

    @staticmethod
    def _gains_of(params: Any, joint: str) -> Any:
        return gains_from_parameters(params.gains[joint], prefix=f'gains.{joint}.')

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

    def _apply_joint_options(self, params: Any) -> None:
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
        self._any_continuous = bool(self._continuous.any())
        self._ff_scale = [
            float(params.gains[self.joints[j]].ff_velocity_scale) for j in self._cmd_index
        ]

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

    def _tolerances_from(self, params: Any) -> SegmentTolerances:
        c = params.constraints
        return default_tolerances(
            [float(c[j].trajectory) for j in self.joints],
            [float(c[j].goal) for j in self.joints],
            float(c.stopped_velocity_tolerance),
            float(c.goal_time),
        )

    def _create_ros_entities(self, params: Any) -> None:
        node = self.get_node()
        name = node.get_name()
        entities: list[tuple[str, Any]] = [
            (
                'subscription',
                node.create_subscription(
                    JointTrajectory, '~/joint_trajectory', self._on_trajectory, 10
                ),
            ),
            (
                'service',
                node.create_service(
                    QueryTrajectoryState, f'{name}/query_state', self._on_query_state
                ),
            ),
        ]
        self._state_pub = node.create_publisher(
            JointTrajectoryControllerState, '~/controller_state', 10
        )
        entities.append(('publisher', self._state_pub))
        self._scaling = 1.0
        self._scaling_cmd_value = 1.0
        if not (self.has_vel_cmd or self.has_acc_cmd or self.has_eff_cmd):
            qos = QoSProfile(
                depth=10,
                reliability=ReliabilityPolicy.RELIABLE,
                durability=DurabilityPolicy.TRANSIENT_LOCAL,
            )
            entities.append(
                (
                    'subscription',
                    node.create_subscription(
                        SpeedScalingFactor, '~/speed_scaling_input', self._on_scaling, qos
                    ),
                )
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
        self._action_server = ActionServer(
            node,
            FollowJointTrajectory,
            f'{name}/follow_joint_trajectory',
            execute_callback=self._never_executed,
            goal_callback=refusing(self._on_goal, node.get_logger(), GoalResponse.REJECT),
            handle_accepted_callback=self._on_goal_accepted,
            cancel_callback=refusing(self._on_cancel, node.get_logger(), CancelResponse.REJECT),
        )
        # Feedback goes out at action_monitor_rate while a goal is open; the timer sleeps
        # otherwise, and the loop wakes the monitor itself when it has logs or an outcome.
        self._monitor_timer = node.create_timer(
            1.0 / float(params.action_monitor_rate),
            self._monitor,
            clock=Clock(clock_type=ClockType.STEADY_TIME),
        )
        self._monitor_timer.cancel()
        entities.append(('timer', self._monitor_timer))
        self._wake = node.create_guard_condition(self._monitor)
        entities.append(('guard_condition', self._wake))
        self._entities = entities

    def on_cleanup(self, previous_state: Any) -> CallbackReturn:
        self._destroy_ros_entities()
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: Any) -> CallbackReturn:
        self._active = False
        self._trajectory = None
        self._destroy_ros_entities()
        return CallbackReturn.SUCCESS

    def on_shutdown(self, previous_state: Any) -> CallbackReturn:
        self._destroy_ros_entities()
        return CallbackReturn.SUCCESS

    def _destroy_ros_entities(self) -> None:
        node = self.get_node()
        self._abort_open_goals('Controller cleaned up.')  # none is left without a result
        self._wake = None
        for kind, entity in self._entities:
            getattr(node, f'destroy_{kind}')(entity)
        self._entities = []
        if self._action_server is not None:
            self._action_server.destroy()
            self._action_server = None

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
        self._default_tolerances = self._tolerances_from(params)
        self._apply_joint_options(params)
        commands = {h.name: h for h in self.command_interfaces}
        states = {h.name: h for h in self.state_interfaces}
        try:
            self._resolve_handles(commands, states, params)
        except KeyError as exc:
            log.error(f'missing interface {exc}')
            return CallbackReturn.ERROR
        n = self.n
        self._update_period_ns = int(_NS / self.update_rate) if self.update_rate else 0
        self._update_period_s = self._update_period_ns / _NS
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
        self._taken: _Command | None = None
        self._active_goal: _GoalContext | None = None
        self._trajectory = self._hold_at(self._cur_pos)
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
        self._desired = SampleResult(n)
        self._next = SampleResult(n)
        self._pid_out = [0.0] * len(self._cmd_index)
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
        self._abort_open_goals_rt('Current goal cancelled during deactivate transition.')
        for h in self._cmd_pos:
            h.value = h.value
        for handles in (self._cmd_vel, self._cmd_acc, self._cmd_eff):
            for h in handles:
                h.value = 0.0
        self._trajectory = None
        self._box.set(None)
        return CallbackReturn.SUCCESS

    # --- messages built once ---------------------------------------------------------
    def _build_state_message(self) -> None:
        n = self.n
        msg = JointTrajectoryControllerState()
        msg.joint_names = list(self.joints)
        v: dict[str, np.ndarray] = {}
        v['ref_pos'] = _bind(msg.reference, 'positions', n)
        v['ref_vel'] = _bind(msg.reference, 'velocities', n)
        v['ref_acc'] = _bind(msg.reference, 'accelerations', n)
        for part in ('feedback', 'error'):
            point = getattr(msg, part)
            v[f'{part}_pos'] = _bind(point, 'positions', n)
            if self.has_vel_state:
                v[f'{part}_vel'] = _bind(point, 'velocities', n)
            if self.has_acc_state:
                v[f'{part}_acc'] = _bind(point, 'accelerations', n)
        self._output_fields = []
        for flag, field, handles in (
            (self.has_pos_cmd, 'positions', self._cmd_pos),
            (self.has_vel_cmd, 'velocities', self._cmd_vel),
            (self.has_acc_cmd, 'accelerations', self._cmd_acc),
            (self.has_eff_cmd, 'effort', self._cmd_eff),
        ):
            if flag:
                self._output_fields.append((_bind(msg.output, field, n, math.nan), handles))
        self._state_views = v
        self._state_rt = RealtimePublisher(self._state_pub, msg)
        rate = float(self._params.state_publish_rate)
        self._publish_interval_ns = int(_NS / rate) if rate > 0.0 else 0

    def _new_feedback(self, ctx: _GoalContext) -> None:
        n = self.n
        fb = ctx.feedback
        fb.joint_names = list(self.joints)
        v = ctx.views
        v['desired_pos'] = _bind(fb.desired, 'positions', n)
        v['desired_vel'] = _bind(fb.desired, 'velocities', n)
        v['desired_acc'] = _bind(fb.desired, 'accelerations', n)
        v['desired_eff'] = _bind(fb.desired, 'effort', n)
        v['actual_pos'] = _bind(fb.actual, 'positions', n)
        v['error_pos'] = _bind(fb.error, 'positions', n)
        if self.has_vel_state:
            v['actual_vel'] = _bind(fb.actual, 'velocities', n)
            v['error_vel'] = _bind(fb.error, 'velocities', n)
        if self.has_acc_state:
            v['actual_acc'] = _bind(fb.actual, 'accelerations', n)
            v['error_acc'] = _bind(fb.error, 'accelerations', n)
        if self.has_eff_cmd:
            v['actual_eff'] = _bind(fb.actual, 'effort', n)

    # --- the loop ----------------------------------------------------------------------
    def update(self, time: Any, period: Any) -> ReturnType:
        now_ns = time.nanoseconds
        if self._scaling_state is not None:
            factor = self._scaling_state.value
            if factor != factor:  # no value from the hardware yet: skip this cycle
                return ReturnType.OK
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
        if goal is not None and goal.outcomes:  # finished elsewhere (preempted, deactivated)
            goal = self._active_goal = None
        trajectory = self._trajectory
        if trajectory is not None:
            self._follow_rt(trajectory, goal, now_ns, period.nanoseconds)
        self._publish_state_rt(now_ns)
        return ReturnType.OK

    def _read_state_rt(self) -> None:
        self._cur_pos[:] = [h.value for h in self._state_pos]
        if self._state_vel:
            self._cur_vel[:] = [h.value for h in self._state_vel]
        if self._state_acc:
            self._cur_acc[:] = [h.value for h in self._state_acc]
        if self._cmd_eff:
            self._cur_eff[self._cmd_index] = [h.value for h in self._cmd_eff]

    def _apply_parameters_rt(self, params: Any) -> None:
        """A new parameter snapshot: default tolerances, wraparound, feed-forward and gains."""
        self._params = params
        self._default_tolerances = self._tolerances_from(params)
        self._apply_joint_options(params)
        errors = []
        for pid, j in zip(self._pids, self._cmd_index):
            joint = self.joints[j]
            try:
                gains = self._gains_of(params, joint)
            except ValueError as exc:
                errors.append(str(exc))
                continue
            if not pid.set_gains(gains):
                errors.append(f'gains.{joint}: {pid.last_gains_error}')
        if errors:
            self._log_rt('error', f'new PID gains ignored: {"; ".join(errors)}')

    def _install_rt(self, command: _Command) -> None:
        if command.trajectory is None:
            self._stop_rt()
        else:
            self._trajectory = command.trajectory
            self._holding = False
        self._active_goal = command.goal

    def _hold_at(self, positions: np.ndarray) -> Trajectory:
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
            self._trajectory = self._hold_at(self._cur_pos)
        self._holding = True

    def _follow_rt(
        self, trajectory: Trajectory, goal: _GoalContext | None, now_ns: int, period_ns: int
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
                trajectory.set_point_before((before_ns - epoch) / _NS, before, self._continuous)
            else:
                trajectory.set_point_before(
                    (now_ns - epoch) / _NS, self._current_point, self._continuous
                )
            self._traj_time_ns = now_ns
        else:
            self._traj_time_ns += round(period_ns * self._scaling)
        t_s = (self._traj_time_ns - epoch) / _NS
        interpolation = self._interpolation
        desired = trajectory.sample(t_s, interpolation, out=self._desired)
        if desired is None:
            return
        next_index = desired.end_index
        nxt = trajectory.sample(
            t_s + self._update_period_s, interpolation, advance=False, out=self._next
        )
        if nxt is None:
            return
        start_s = trajectory.start_time_s
        self._desired_tfs_s = t_s - start_s
        self._actual_tfs_s = (now_ns - epoch) / _NS - start_s

        err_pos = self._err_pos
        np.subtract(desired.positions, self._cur_pos, out=err_pos)
        if self._any_continuous:
            mask = self._continuous
            err_pos[mask] = shortest_angular_distance_array(
                self._cur_pos[mask], desired.positions[mask]
            )
        err_vel = err_acc = None
        if self._velocity_error_used:
            err_vel = np.subtract(desired.velocities, self._cur_vel, out=self._err_vel)
        if self._acceleration_error_used:
            err_acc = np.subtract(desired.accelerations, self._cur_acc, out=self._err_acc)

        holding = self._holding
        before_last = nxt.before_last_point
        time_difference_s = t_s - nxt.segment_start_time_s
        tolerances = goal.tolerances if goal is not None else self._default_tolerances
        timed_out = (
            not before_last
            and not holding
            and self._cmd_timeout_s > 0.0
            and time_difference_s > self._cmd_timeout_s
        )
        path_ok = True
        if (before_last or first) and not holding:
            within = check_state_tolerance(err_pos, err_vel, err_acc, tolerances.state_tolerance)
            path_ok = bool(within.all())
        outside_goal = False
        within_goal_time = True
        if not before_last and not holding:
            within = check_state_tolerance(
                err_pos, err_vel, err_acc, tolerances.goal_state_tolerance
            )
            if not within.all():
                outside_goal = True
                goal_time = tolerances.goal_time_tolerance
                if goal_time != 0.0 and time_difference_s > goal_time:
                    within_goal_time = False

        if path_ok and within_goal_time:
            self._write_commands_rt(desired, nxt, period_ns / _NS)
            self._last_cmd_time_ns = now_ns

        if goal is not None:
            self._fill_feedback_rt(goal, now_ns, next_index, err_vel, err_acc)
            if not path_ok:
                self._violation_rt(tolerances, err_vel, err_acc, path=True)
                self._finish_rt(
                    goal,
                    (
                        _ABORT,
                        _Result.PATH_TOLERANCE_VIOLATED,
                        'Aborted due to path tolerance violation',
                    ),
                )
                self._log_rt('warning', 'Aborted due to state tolerance violation')
                self._stop_rt()
            elif not before_last:
                if not outside_goal:
                    self._finish_rt(
                        goal, (_SUCCEED, _Result.SUCCESSFUL, 'Goal successfully reached!')
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
                    self._finish_rt(goal, (_ABORT, _Result.GOAL_TOLERANCE_VIOLATED, text))
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

    def _log_rt(self, level: str, text: str) -> None:
        """Hand a log line to the monitor (the loop never logs itself)."""
        self._rt_log.append((level, text))
        self._wake_monitor()

    def _wake_monitor(self) -> None:
        wake = self._wake
        if wake is not None:
            wake.trigger()

    def _finish_rt(self, goal: _GoalContext, outcome: tuple[str, int, str]) -> None:
        goal.outcomes.append(outcome)
        self._wake_monitor()
        self._active_goal = None

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
        identity = self._cmd_identity
        idx = self._cmd_index
        output = None
        if self.use_pid:
            output = self._pid_out
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
                output[k] = u
        for handles, source in (
            (self._cmd_pos, nxt.positions),
            (self._cmd_vel, None if output is not None else nxt.velocities),
            (self._cmd_acc, nxt.accelerations),
            (self._cmd_eff, None if output is not None else desired.effort),
        ):
            if not handles:
                continue
            if source is None:
                values = output
            else:
                values = source.tolist() if identity else source[idx].tolist()
            for h, value in zip(handles, values):
                h.value = value
        np.copyto(self._last_pos, nxt.positions)
        np.copyto(self._last_vel, nxt.velocities)
        np.copyto(self._last_acc, nxt.accelerations)
        self._last_has_vel = self._last_has_acc = True

    def _fill_feedback_rt(
        self,
        goal: _GoalContext,
        now_ns: int,
        next_index: int,
        err_vel: np.ndarray | None,
        err_acc: np.ndarray | None,
    ) -> None:
        if not goal.feedback_lock.acquire(blocking=False):
            return
        try:
            fb = goal.feedback
            v = goal.views
            desired = self._desired
            set_stamp(fb.header.stamp, now_ns)
            set_duration(fb.desired.time_from_start, self._desired_tfs_s)
            set_duration(fb.actual.time_from_start, self._actual_tfs_s)
            np.copyto(v['desired_pos'], desired.positions)
            np.copyto(v['desired_vel'], desired.velocities)
            np.copyto(v['desired_acc'], desired.accelerations)
            np.copyto(v['desired_eff'], desired.effort)
            np.copyto(v['actual_pos'], self._cur_pos)
            np.copyto(v['error_pos'], self._err_pos)
            if self.has_vel_state:
                np.copyto(v['actual_vel'], self._cur_vel)
                if err_vel is not None:
                    np.copyto(v['error_vel'], err_vel)
            if self.has_acc_state:
                np.copyto(v['actual_acc'], self._cur_acc)
                if err_acc is not None:
                    np.copyto(v['error_acc'], err_acc)
            if self.has_eff_cmd:
                np.copyto(v['actual_eff'], self._cur_eff)
            fb.index = next_index
            goal.feedback_fresh = True
        finally:
            goal.feedback_lock.release()

    def _publish_state_rt(self, now_ns: int) -> None:
        if self._publish_interval_ns:
            last = self._last_publish_ns
            if last is not None and now_ns - last < self._publish_interval_ns:
                return
        rt = self._state_rt
        if not rt.trylock():
            return
        self._last_publish_ns = now_ns
        msg = rt.msg
        v = self._state_views
        set_stamp(msg.header.stamp, now_ns)
        desired = self._desired
        set_duration(msg.reference.time_from_start, self._desired_tfs_s)
        set_duration(msg.feedback.time_from_start, self._actual_tfs_s)
        np.copyto(v['ref_pos'], desired.positions)
        np.copyto(v['ref_vel'], desired.velocities)
        np.copyto(v['ref_acc'], desired.accelerations)
        np.copyto(v['feedback_pos'], self._cur_pos)
        np.copyto(v['error_pos'], self._err_pos)
        if self.has_vel_state:
            np.copyto(v['feedback_vel'], self._cur_vel)
            np.copyto(v['error_vel'], self._err_vel)
        if self.has_acc_state:
            np.copyto(v['feedback_acc'], self._cur_acc)
            np.copyto(v['error_acc'], self._err_acc)
        idx = self._cmd_index
        for view, handles in self._output_fields:
            values = [h.value for h in handles]
            if all(map(math.isfinite, values)):
                view[idx] = values
        msg.speed_scaling_factor = self._scaling
        rt.unlock_and_publish()

    # --- input (executor thread) -------------------------------------------------------
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
        stamp_ns = _ns_of(msg.header.stamp)
        epoch = self._epoch_ns
        start_s = (stamp_ns - epoch) / _NS if stamp_ns != 0 else None
        if not commanded.all():
            previous = self._trajectory if params.allow_trajectory_replacement else None
            # Where the new trajectory starts: its stamp, else about now on the loop's axis.
            if start_s is not None:
                estimate_s = start_s
            else:
                estimate_s = (self._traj_time_ns - epoch) / _NS if self._traj_time_ns else 0.0
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
        points = _points_of(msg)
        if params.positions_upsampling.enable and self._interpolation != InterpolationMethod.NONE:
            points = upsample_positions(points, float(params.positions_upsampling.policy_frequency))
        reason = validate_trajectory(
            msg.joint_names,
            points,
            self._rules(params),
            stamp_ns=_ns_of(msg.header.stamp),
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
            self._cancel_goal_by_topic()
            self._box.set(_Command(None, None))
            return
        try:
            trajectory = self._to_trajectory(msg, points, params)
        except ValueError as exc:
            log.error(f'Trajectory rejected: {exc}', throttle_duration_sec=1.0)
            return
        goal = self._goal_ctx
        self._box.set(
            _Command(trajectory, goal if goal is not None and not goal.outcomes else None)
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

    # --- the action ----------------------------------------------------------------------
    def _never_executed(self, goal_handle: Any) -> Any:  # pragma: no cover - see _deliver
        return _Result()

    def _on_goal(self, goal: Any) -> GoalResponse:
        log = self.get_node().get_logger()
        log.info('Received new action goal')
        if not self._active:
            log.error("Can't accept new action goals. Controller is not running.")
            return GoalResponse.REJECT
        params = self.parameters.latest()
        reason = validate_trajectory(
            goal.trajectory.joint_names,
            _points_of(goal.trajectory),
            self._rules(params),
            stamp_ns=_ns_of(goal.trajectory.header.stamp),
            now_ns=self._now_ns(),
        )
        if reason:
            log.error(f'Goal rejected: {reason}')
            return GoalResponse.REJECT
        log.info('Accepted new action goal')
        return GoalResponse.ACCEPT

    def _on_goal_accepted(self, goal_handle: Any) -> None:
        log = self.get_node().get_logger()
        goal = goal_handle.request
        params = self.parameters.latest()
        self._preempt_active_goal()
        tolerances, problem = tolerances_from_goal(
            self._default_tolerances,
            self.joints,
            [(t.name, t.position, t.velocity, t.acceleration) for t in goal.path_tolerance],
            [(t.name, t.position, t.velocity, t.acceleration) for t in goal.goal_tolerance],
            duration_to_s(goal.goal_time_tolerance),
        )
        if problem:
            log.error(problem)
        ctx = _GoalContext(goal_handle, tolerances, FollowJointTrajectory.Feedback())
        self._new_feedback(ctx)
        _start_executing(goal_handle)
        with self._finish_lock:
            self._open_goals.append(ctx)
        self._monitor_timer.reset()
        try:
            trajectory = self._to_trajectory(goal.trajectory, _points_of(goal.trajectory), params)
        except Exception as exc:  # never leave an accepted goal without a result
            self._terminate(ctx, (_ABORT, _Result.INVALID_GOAL, f'Invalid trajectory: {exc}'))
            return
        self._goal_ctx = ctx
        self._box.set(_Command(trajectory, ctx))

    def _on_cancel(self, goal_handle: Any) -> CancelResponse:
        log = self.get_node().get_logger()
        log.info('Got request to cancel goal')
        ctx = self._goal_ctx
        if ctx is not None and ctx.goal_handle.goal_id == goal_handle.goal_id:
            log.info('Canceling active action goal because cancel callback received.')
            ctx.outcomes.append((_CANCELED, _Result.SUCCESSFUL, ''))
            self._goal_ctx = None
            self._box.set(_Command(None, None))
        return CancelResponse.ACCEPT

    def _cancel_goal_by_topic(self) -> None:
        ctx = self._goal_ctx
        if ctx is not None:
            self._goal_ctx = None
            self._terminate(
                ctx,
                (_CANCELED, _Result.SUCCESSFUL, 'Goal stopped by an empty trajectory on the topic'),
            )

    def _preempt_active_goal(self) -> None:
        ctx = self._goal_ctx
        if ctx is not None:
            self._goal_ctx = None
            self._terminate(
                ctx,
                (_ABORT, _Result.INVALID_GOAL, 'Current goal preempted by new incoming action.'),
            )

    def _abort_open_goals_rt(self, text: str) -> None:
        """Hand every open goal an abort for the monitor to deliver (loop-safe)."""
        self._goal_ctx = None
        with self._finish_lock:
            goals = list(self._open_goals)
        for ctx in goals:
            ctx.outcomes.append((_ABORT, _Result.INVALID_GOAL, text))
        self._wake_monitor()

    def _abort_open_goals(self, text: str) -> None:
        self._goal_ctx = None
        with self._finish_lock:
            goals = list(self._open_goals)
        for ctx in goals:
            self._terminate(ctx, (_ABORT, _Result.INVALID_GOAL, text))

    def _monitor(self) -> None:
        """Steady timer at action_monitor_rate: logs for the loop, feedback, finished goals."""
        log = self.get_node().get_logger()
        while self._rt_log:
            level, text = self._rt_log.popleft()
            log_at(log, level, text)
        with self._finish_lock:
            goals = list(self._open_goals)
        for ctx in goals:
            if ctx.outcomes:
                self._terminate(ctx, ctx.outcomes[0])
                continue
            if ctx.feedback_fresh:
                with ctx.feedback_lock:
                    ctx.feedback_fresh = False
                    ctx.goal_handle.publish_feedback(ctx.feedback)
        with self._finish_lock:
            idle = not self._open_goals
        if idle and self._monitor_timer is not None:
            self._monitor_timer.cancel()

    def _terminate(self, ctx: _GoalContext, outcome: tuple[str, int, str]) -> None:
        """Finish a goal handle once (non-realtime): state, then the result to the client."""
        with self._finish_lock:
            if ctx.finished:
                return
            ctx.finished = True
            ctx.outcomes.append(outcome)
            outcome = ctx.outcomes[0]
            if ctx in self._open_goals:
                self._open_goals.remove(ctx)
            if self._goal_ctx is ctx:
                self._goal_ctx = None
        kind, code, text = outcome
        result = _Result(error_code=code, error_string=text)
        goal_handle = ctx.goal_handle
        try:
            if kind == _SUCCEED:
                goal_handle.succeed()
            elif kind == _ABORT:
                goal_handle.abort()
            else:
                _cancel_goal_handle(goal_handle)
        except Exception as exc:  # an illegal transition must not kill the executor
            self.get_node().get_logger().error(f'could not finish goal: {exc}')
        if self._action_server is not None:
            self._action_server.notify_execute(goal_handle, lambda _handle: result)

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
        t_s = (_ns_of(request.time) - self._epoch_ns) / _NS
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


def _start_executing(goal_handle: Any) -> None:
    """Move an accepted goal to EXECUTING without running an execute callback.

    rclpy only reports a result when an execute callback returns, and an awaiting coroutine
    would keep the executor spinning hot; so the goal is marked executing here and the result
    is handed over by :meth:`JointTrajectoryController._terminate` when the loop decided it.
    """
    from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy

    goal_handle._update_state(_rclpy.GoalEvent.EXECUTE)


def _cancel_goal_handle(goal_handle: Any) -> None:
    """EXECUTING or CANCELING -> CANCELED (a server-side stop passes through CANCELING)."""
    from action_msgs.msg import GoalStatus
    from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy

    if goal_handle.status == GoalStatus.STATUS_EXECUTING:
        goal_handle._update_state(_rclpy.GoalEvent.CANCEL_GOAL)
    goal_handle.canceled()
