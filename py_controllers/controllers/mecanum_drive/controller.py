"""`mecanum_drive_controller/MecanumDriveController`: body twist to four mecanum wheels.

As upstream: chainable, with reference interfaces `<name>/linear/x/velocity`,
`<name>/linear/y/velocity` and `<name>/angular/z/velocity`; topic input `~/reference`
(geometry_msgs/TwistStamped, linear x and y and angular z used); outputs `~/odometry`
(nav_msgs/Odometry), `~/tf_odometry` (tf2_msgs/TFMessage: upstream publishes the odom ->
base transform there, not on /tf; remap it to /tf if you want it in the tree) and
`~/controller_state` (control_msgs/MecanumDriveControllerState); service `~/set_odometry`.
Wheel velocity commands and velocity states in upstream's order: front left, front right,
rear right, rear left. The math is in kinematics.py.

Reference handling as upstream: a zero stamp means "now"; with reference_timeout > 0 a
reference older than it is dropped, and the loop commands zero once the last one has aged
past it; with reference_timeout 0 each reference is used for one cycle. The references
are NaN after each cycle (a chained controller writes them every cycle) and NaN
references command zero to every wheel. Differences, on purpose: a reference with a
non-finite x, y or z velocity is refused in the callback with a log line and the previous
one stays in force (upstream takes it and stops the base); deactivation writes 0, not NaN,
to the wheels (a NaN command never reaches the hardware here).
"""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path
from typing import Any

from control_msgs.msg import MecanumDriveControllerState
from control_msgs.srv import SetOdometry
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry as OdometryMsg
from tf2_msgs.msg import TFMessage

from py_controllers.control_toolbox.filter_validators import FILTER_VALIDATORS
from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controller_interface.loop_log import LoopLog
from py_controllers.controllers.diff_drive.mobile_base import (
    OdometryOutput,
    answer_set_odometry,
    frame_prefix,
    velocity_references,
)
from py_controllers.controllers.diff_drive.odometry_messages import OdometryMessages
from py_controllers.controllers.diff_drive.request_handoff import RequestHandoff
from py_controllers.controllers.diff_drive.speed_limiter import SpeedLimiter
from py_controllers.controllers.diff_drive.twist_stamp import TwistStampCheck
from py_controllers.controllers.mecanum_drive.kinematics import (
    MecanumGeometry,
    MecanumOdometry,
    inverse,
)
from py_controllers.hardware_interface.handle import CommandInterface
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox, RealtimePublisher
from py_controllers.ros_conversions import set_stamp

WHEELS = ('front_left', 'front_right', 'rear_right', 'rear_left')
_AXES = ('linear/x', 'linear/y', 'angular/z')
_NAN = math.nan


def joint_names(params: Any) -> tuple[list[str], list[str]]:
    """(command joints, state joints) in upstream's wheel order; a state joint defaults to
    its command joint."""
    commands = [getattr(params, f'{w}_wheel_command_joint_name') for w in WHEELS]
    states = [getattr(params, f'{w}_wheel_state_joint_name') or c for w, c in zip(WHEELS, commands)]
    return commands, states


def _limiters(p: Any) -> tuple[SpeedLimiter, SpeedLimiter, SpeedLimiter]:
    return (
        SpeedLimiter.from_parameters(p.linear.x),
        SpeedLimiter.from_parameters(p.linear.y),
        SpeedLimiter.from_parameters(p.angular.z),
    )


def _limits_problem(p: Any) -> str:
    """'' when the speed limits are consistent, else why (refuses `ros2 param set`)."""
    try:
        _limiters(p)
    except ValueError as exc:
        return str(exc)
    return ''


class MecanumDriveController(ChainableControllerInterface):
    """Four mecanum wheels: holonomic base, odometry and controller state."""

    SCHEMA = Path(__file__).parent / 'mecanum_drive_controller_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(
            self.get_node(),
            self.SCHEMA,
            custom_validators=FILTER_VALIDATORS,
            consistency=_limits_problem,
        )
        # (vx, vy, wz, stamp_ns) or None (no reference); written by the subscriber
        self._ref: RealtimeBox[tuple[float, float, float, int] | None] = self.topic_reference_box()
        self.pose_requests: RequestHandoff[tuple[float, float, float]] = RequestHandoff()
        self._stamp_check = TwistStampCheck('reference', 'reference_timeout')
        return CallbackReturn.SUCCESS

    # --- configuration ----------------------------------------------------------------
    def on_configure(self, previous_state: Any) -> CallbackReturn:
        p = self.parameters.load()
        if p is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        k = p.kinematics
        try:
            self.geometry = MecanumGeometry(
                k.wheels_radius,
                k.sum_of_robot_center_projection_on_X_Y_axis,
                (k.base_frame_offset.x, k.base_frame_offset.y, k.base_frame_offset.theta),
            )
            self._limit = _limiters(p)
        except ValueError as exc:
            log.error(str(exc))
            return CallbackReturn.ERROR
        self.command_joints, self.state_joints = joint_names(p)
        self.odometry = MecanumOdometry(self.geometry)
        self._create_ros_entities(p)
        self._loop_log = LoopLog(self.get_node())
        return CallbackReturn.SUCCESS

    def _create_ros_entities(self, p: Any) -> None:
        node = self.get_node()
        prefix = frame_prefix(p, node.get_namespace())
        odom_frame, base_frame = prefix + p.odom_frame_id, prefix + p.base_frame_id
        node.create_subscription(TwistStamped, '~/reference', self._on_reference, 10)
        node.create_service(SetOdometry, '~/set_odometry', self._on_set_odometry)
        self._odom_out = OdometryOutput(
            OdometryMessages(
                odom_frame, base_frame, p.pose_covariance_diagonal, p.twist_covariance_diagonal
            ),
            node.create_publisher(OdometryMsg, '~/odometry', 10),
            node.create_publisher(TFMessage, '~/tf_odometry', 10),
        )
        state = MecanumDriveControllerState()
        state.header.frame_id = odom_frame
        self._state_rt = RealtimePublisher(
            node.create_publisher(MecanumDriveControllerState, '~/controller_state', 10), state
        )

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual([f'{j}/velocity' for j in self.command_joints])

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual([f'{j}/velocity' for j in self.state_joints])

    def on_export_reference_interfaces(self) -> list[CommandInterface]:
        return velocity_references(self.name, _AXES)

    # --- ROS callbacks (executor thread) --------------------------------------------
    def _on_reference(self, msg: TwistStamped) -> None:
        t = msg.twist
        values = (t.linear.x, t.linear.y, t.angular.z)
        stamp_ns = self._stamp_check.accept_twist(
            msg,
            values,
            self.parameters.latest().reference_timeout,
            self.get_node(),
            partial(inverse, self.geometry),
        )
        if stamp_ns is not None:
            self._ref.set((*values, stamp_ns))

    def _on_set_odometry(self, request: Any, response: Any) -> Any:
        return answer_set_odometry(self, request, response)

    # --- lifecycle -------------------------------------------------------------------
    def on_activate(self, previous_state: Any) -> CallbackReturn:
        self._reset_buffers()
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        for handle in self.command_interfaces:
            handle.value = 0.0
        self._reset_buffers()
        return CallbackReturn.SUCCESS

    def _reset_buffers(self) -> None:
        for ref in self.reference_interfaces:
            ref.value = _NAN
        self._ref.set(None)
        self._taken = None  # the reference the loop last used, to use it once at timeout 0
        self._history = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]  # last two limited twists

    # --- the loop --------------------------------------------------------------------
    def update(self, time: Any, period: Any) -> ReturnType:
        params = self.parameters.try_update_rt()
        if params is not None:
            try:
                self._limit = _limiters(params)
            except ValueError as exc:
                self._loop_log.log_rt('error', f'new speed limits ignored: {exc}', time.nanoseconds)
        return super().update(time, period)

    def update_reference_from_subscribers(self, time: Any, period: Any) -> ReturnType:
        ref = self._ref.get()
        if ref is None:
            return RETURN_OK
        timeout_ns = int(self.parameters.params.reference_timeout * 1e9)
        refs = self.reference_interfaces
        if timeout_ns == 0:
            if ref is not self._taken:  # each reference once
                self._taken = ref
                refs[0].value, refs[1].value, refs[2].value = ref[0], ref[1], ref[2]
        elif time.nanoseconds - ref[3] <= timeout_ns:
            refs[0].value, refs[1].value, refs[2].value = ref[0], ref[1], ref[2]
        else:
            refs[0].value = refs[1].value = refs[2].value = 0.0
        return RETURN_OK

    def update_and_write_commands(self, time: Any, period: Any) -> ReturnType:
        dt = period.nanoseconds * 1e-9
        now_ns = time.nanoseconds
        pose = self.pose_requests.take_rt()
        states = [h.value for h in self.state_interfaces]
        if pose is not None:
            self.odometry.set_pose(*pose)
        elif all(v == v for v in states):
            self.odometry.update(*states, dt)

        refs = self.reference_interfaces
        vx, vy, wz = refs[0].value, refs[1].value, refs[2].value
        if vx == vx and vy == vy and wz == wz:
            last, before = self._history[1], self._history[0]
            limited = [
                limiter.limit(value, last[i], before[i], dt)
                for i, (limiter, value) in enumerate(zip(self._limit, (vx, vy, wz)))
            ]
            wheels = inverse(self.geometry, *limited)
            if all(w - w == 0.0 for w in wheels):
                self._history = [last, limited]
            else:  # overflowed: stop rather than write infinity
                wheels = (0.0, 0.0, 0.0, 0.0)
        else:
            wheels = (0.0, 0.0, 0.0, 0.0)
        for handle, value in zip(self.command_interfaces, wheels):
            handle.value = value

        self._publish_rt(now_ns, states, (vx, vy, wz))
        for ref in refs:
            ref.value = _NAN
        return RETURN_OK

    def _publish_rt(self, now_ns: int, states: list[float], ref: tuple[float, ...]) -> None:
        odom = self.odometry
        self._odom_out.publish_rt(
            now_ns, odom, (odom.vx, odom.wz, odom.vy), with_tf=self.parameters.params.enable_odom_tf
        )
        if self._state_rt.trylock():
            state = self._state_rt.msg
            set_stamp(state.header.stamp, now_ns)
            (
                state.front_left_wheel_velocity,
                state.front_right_wheel_velocity,
                state.back_right_wheel_velocity,
                state.back_left_wheel_velocity,
            ) = states
            velocity = state.reference_velocity
            velocity.linear.x, velocity.linear.y, velocity.angular.z = ref
            self._state_rt.unlock_and_publish()
