"""`diff_drive_controller/DiffDriveController`: body twist to wheel velocities, odometry, TF.

Input `~/cmd_vel` (geometry_msgs/TwistStamped; a zero stamp means "now", as upstream; a
negative stamp, non-finite velocities, velocities so large the wheel speeds overflow to
infinity, and with a cmd_vel_timeout a stamp older than it or further than it in the future
are rejected with a throttled log line; a chained reference whose wheel speeds overflow is
ignored like a NaN one), outputs
`~/odom` (nav_msgs/Odometry), `/tf` (odom -> base_link) and optionally `~/cmd_vel_out`.
Chainable: a controller upstream may write `<name>/linear/velocity` and
`<name>/angular/velocity` instead of the topic. The math is in odometry.py and
speed_limiter.py; this module is the ROS glue.

Parameters: those upstream marks read_only (wheel names and geometry, multipliers, frames,
covariances, open_loop, position_feedback, velocity_rolling_window_size) are fixed once
declared. The others take effect at run time through the shared parameter mechanism
(`ControllerParameters.try_update_rt()`, once per cycle): `cmd_vel_timeout`,
`enable_odom_tf`, `publish_limited_velocity` (`~/cmd_vel_out` is always advertised, so it
can be switched on later; upstream only creates it when on at configure), `publish_rate`
(ours) and the `linear.x.*` / `angular.z.*` limits (an inconsistent set is logged and the
previous limits kept, as upstream).

Before the first command (differs from upstream, on purpose): from activation on, until a
valid cmd_vel arrives, every cycle writes 0 to the wheels and odometry integrates and is
published. Upstream leaves its reference NaN then and skips update() entirely (nothing
written, no odometry) until cmd_vel_timeout has passed since configure/deactivate (it then
brakes with 0), or for ever with cmd_vel_timeout 0. We command standstill at once, since
an unwritten velocity interface may hold anything, and never stop tracking the wheels.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from control_msgs.srv import SetOdometry
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry as OdometryMsg

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
from py_controllers.controllers.diff_drive.odometry import Odometry
from py_controllers.controllers.diff_drive.odometry_messages import OdometryMessages
from py_controllers.controllers.diff_drive.request_handoff import RequestHandoff
from py_controllers.controllers.diff_drive.speed_limiter import SpeedLimiter
from py_controllers.controllers.diff_drive.twist_stamp import TwistStampCheck
from py_controllers.hardware_interface.handle import CommandInterface
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox, RealtimePublisher
from py_controllers.ros_conversions import set_stamp
from py_controllers.tf_publisher import create_tf_publisher

_limiter = SpeedLimiter.from_parameters


def _period_ns(publish_rate: float) -> int:
    return int(1e9 / publish_rate) if publish_rate > 0 else 0


def _limits_problem(p: Any) -> str:
    """'' when the speed limits are consistent, else why (refuses `ros2 param set`)."""
    try:
        _limiter(p.linear.x), _limiter(p.angular.z)
    except ValueError as exc:
        return str(exc)
    return ''


def _mean_value(handles: list[Any]) -> float:
    """The mean of the handles' values (one wheel a side needs no generator)."""
    if len(handles) == 1:
        return handles[0].value
    return sum(h.value for h in handles) / len(handles)


class DiffDriveController(ChainableControllerInterface):
    """Differential drive: any number of wheels per side."""

    SCHEMA = Path(__file__).parent / 'diff_drive_controller_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(
            self.get_node(),
            self.SCHEMA,
            consistency=_limits_problem,
        )
        # (linear, angular, stamp_ns) or None; written by the subscriber
        self._cmd: RealtimeBox[tuple[float, float, int] | None] = self.topic_reference_box()
        #: (x, y, yaw) requests of ~/set_odometry; the loop applies each one once
        self.pose_requests: RequestHandoff[tuple[float, float, float]] = RequestHandoff()
        self._stamp_check = TwistStampCheck('cmd_vel', 'cmd_vel_timeout')
        return CallbackReturn.SUCCESS

    # --- configuration ----------------------------------------------------------------
    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        problems = []
        if not params.left_wheel_names or not params.right_wheel_names:
            problems.append("'left_wheel_names' and 'right_wheel_names' must not be empty")
        elif len(params.left_wheel_names) != len(params.right_wheel_names):
            problems.append(
                "'left_wheel_names' and 'right_wheel_names' must have the same size"
                f' ({len(params.left_wheel_names)} vs {len(params.right_wheel_names)})'
            )
        if params.wheel_separation <= 0.0:
            problems.append(f"'wheel_separation' must be > 0, got {params.wheel_separation}")
        if params.wheel_radius <= 0.0:
            problems.append(f"'wheel_radius' must be > 0, got {params.wheel_radius}")
        if problems:
            for problem in problems:
                log.error(problem)
            return CallbackReturn.ERROR
        try:
            self._linear_limiter = _limiter(params.linear.x)
            self._angular_limiter = _limiter(params.angular.z)
        except ValueError as exc:
            log.error(f'invalid speed limits: {exc}')
            return CallbackReturn.ERROR
        self._make_odometry(params)
        self._create_ros_entities(params)
        self._loop_log = LoopLog(self.get_node())  # update() never logs through rcl
        return CallbackReturn.SUCCESS

    def _make_odometry(self, p: Any) -> None:
        self.wheel_separation = p.wheel_separation_multiplier * p.wheel_separation
        self.left_radius = p.left_wheel_radius_multiplier * p.wheel_radius
        self.right_radius = p.right_wheel_radius_multiplier * p.wheel_radius
        self.odometry = Odometry(
            wheel_separation=self.wheel_separation,
            left_wheel_radius=self.left_radius,
            right_wheel_radius=self.right_radius,
            velocity_rolling_window_size=p.velocity_rolling_window_size,
        )

    def _create_ros_entities(self, p: Any) -> None:
        node = self.get_node()
        prefix = frame_prefix(p, node.get_namespace())
        odom_frame, base_frame = prefix + p.odom_frame_id, prefix + p.base_frame_id
        node.create_subscription(TwistStamped, '~/cmd_vel', self._on_cmd_vel, 10)
        node.create_service(SetOdometry, '~/set_odometry', self._on_set_odometry)
        msgs = OdometryMessages(
            odom_frame, base_frame, p.pose_covariance_diagonal, p.twist_covariance_diagonal
        )
        # /tf and ~/cmd_vel_out exist whatever enable_odom_tf and publish_limited_velocity
        # say, so that both can be switched at run time; the loop checks them every cycle
        self._odom_out = OdometryOutput(
            msgs, node.create_publisher(OdometryMsg, '~/odom', 10), create_tf_publisher(node)
        )
        out_pub = node.create_publisher(TwistStamped, '~/cmd_vel_out', 10)
        self._cmd_out_rt = RealtimePublisher(out_pub, TwistStamped())
        self._publish_period_ns = _period_ns(p.publish_rate)

    def command_interface_configuration(self) -> InterfaceConfiguration:
        p = self.parameters.params
        return InterfaceConfiguration.individual(
            [f'{w}/velocity' for w in (*p.left_wheel_names, *p.right_wheel_names)]
        )

    def state_interface_configuration(self) -> InterfaceConfiguration:
        p = self.parameters.params
        if p.open_loop:
            return InterfaceConfiguration.none()
        kind = 'position' if p.position_feedback else 'velocity'
        return InterfaceConfiguration.individual(
            [f'{w}/{kind}' for w in (*p.left_wheel_names, *p.right_wheel_names)]
        )

    def on_export_reference_interfaces(self) -> list[CommandInterface]:
        return velocity_references(self.name, ('linear', 'angular'))

    # --- ROS callbacks (executor thread) --------------------------------------------
    def _on_cmd_vel(self, msg: TwistStamped) -> None:
        linear, angular = msg.twist.linear.x, msg.twist.angular.z
        stamp_ns = self._stamp_check.accept_twist(
            msg,
            (linear, angular),
            self.parameters.latest().cmd_vel_timeout,
            self.get_node(),
            self._wheel_speeds,
        )
        if stamp_ns is not None:
            self._cmd.set((linear, angular, stamp_ns))

    def _on_set_odometry(self, request: Any, response: Any) -> Any:
        return answer_set_odometry(
            self,
            request,
            response,
            inactive_message='set_odometry refused: the controller is not active',
            accepted_message=(
                f'odometry set to x={request.x:g} y={request.y:g} yaw={request.yaw:g}'
            ),
        )

    # --- lifecycle -------------------------------------------------------------------
    def on_activate(self, previous_state: Any) -> CallbackReturn:
        n = len(self.parameters.params.left_wheel_names)
        self._left_cmd = self.command_interfaces[:n]
        self._right_cmd = self.command_interfaces[n:]
        self._left_fb = self.state_interfaces[:n]
        self._right_fb = self.state_interfaces[n:]
        self._cmd.set(None)
        for ref in self.reference_interfaces:
            ref.value = math.nan
        self._history = [[0.0, 0.0], [0.0, 0.0]]  # last two limited (linear, angular)
        self._last_publish_ns = None
        self.odometry.reset_accumulators()
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        for handle in self.command_interfaces:
            handle.value = 0.0
        for ref in self.reference_interfaces:
            ref.value = math.nan
        self._cmd.set(None)
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: Any) -> CallbackReturn:
        self.odometry.set_pose(0.0, 0.0, 0.0)
        return CallbackReturn.SUCCESS

    # --- the loop --------------------------------------------------------------------
    def update(self, time: Any, period: Any) -> ReturnType:
        params = self.parameters.try_update_rt()
        if params is not None:
            self._apply_parameters_rt(params, time.nanoseconds)
        return super().update(time, period)

    def _apply_parameters_rt(self, p: Any, now_ns: int) -> None:
        """A new snapshot from `ros2 param set` (loop side; only on a change)."""
        try:
            linear, angular = _limiter(p.linear.x), _limiter(p.angular.z)
        except ValueError as exc:
            self._loop_log.log_rt(
                'error', f'new speed limits ignored, keeping the old ones: {exc}', now_ns
            )
        else:
            self._linear_limiter, self._angular_limiter = linear, angular
        self._publish_period_ns = _period_ns(p.publish_rate)

    def update_reference_from_subscribers(self, time: Any, period: Any) -> ReturnType:
        cmd = self._cmd.get()
        if cmd is None:  # no command yet: stand still, and odometry/TF are published anyway
            linear = angular = 0.0
        else:
            linear, angular, stamp_ns = cmd
            timeout = self.parameters.params.cmd_vel_timeout
            if timeout > 0.0 and (time.nanoseconds - stamp_ns) * 1e-9 > timeout:
                linear = angular = 0.0
        self.reference_interfaces[0].value = linear
        self.reference_interfaces[1].value = angular
        return RETURN_OK

    def update_and_write_commands(self, time: Any, period: Any) -> ReturnType:
        linear = self.reference_interfaces[0].value
        angular = self.reference_interfaces[1].value
        if linear != linear or angular != angular:  # NaN: chained, nothing written yet
            return RETURN_OK
        dt = period.nanoseconds * 1e-9
        history = self._history
        linear = self._linear_limiter.limit(linear, history[0][0], history[1][0], dt)
        angular = self._angular_limiter.limit(angular, history[0][1], history[1][1], dt)
        left, right = self._wheel_speeds(linear, angular)
        if left - left != 0.0 or right - right != 0.0:  # overflowed: ignored, like NaN
            return RETURN_OK
        history[1][0], history[1][1] = history[0]
        history[0][0], history[0][1] = linear, angular

        pose = self.pose_requests.take_rt()
        if pose is not None:
            self.odometry.set_pose(*pose)
        if not self._update_odometry_rt(linear, angular, dt):
            return ReturnType.ERROR
        params = self.parameters.params
        now_ns = time.nanoseconds
        if (
            self._last_publish_ns is None
            or not self._publish_period_ns
            or now_ns - self._last_publish_ns >= self._publish_period_ns
        ):
            self._last_publish_ns = now_ns
            self._publish_odometry_rt(now_ns, params.enable_odom_tf)
        if params.publish_limited_velocity and self._cmd_out_rt.trylock():
            out = self._cmd_out_rt.msg
            set_stamp(out.header.stamp, now_ns)
            out.twist.linear.x, out.twist.angular.z = linear, angular
            self._cmd_out_rt.unlock_and_publish()

        for handle in self._left_cmd:
            handle.value = left
        for handle in self._right_cmd:
            handle.value = right
        return RETURN_OK

    def _wheel_speeds(self, linear: float, angular: float) -> tuple[float, float]:
        """(left, right) wheel velocities for a body twist; infinite when it overflows."""
        half = angular * self.wheel_separation / 2.0
        return (linear - half) / self.left_radius, (linear + half) / self.right_radius

    def _update_odometry_rt(self, linear: float, angular: float, dt: float) -> bool:
        """False when feedback is NaN (the manager then deactivates the controller)."""
        params = self.parameters.params
        if params.open_loop:
            self.odometry.update_open_loop(linear, angular, dt)
            return True
        left = _mean_value(self._left_fb)
        right = _mean_value(self._right_fb)
        if left != left or right != right:
            return False
        if params.position_feedback:
            self.odometry.update_from_position(left, right, dt)
        else:
            self.odometry.update_from_velocity(left, right, dt)
        return True

    def _publish_odometry_rt(self, now_ns: int, with_tf: bool) -> None:
        odom = self.odometry
        self._odom_out.publish_rt(now_ns, odom, (odom.linear, odom.angular, 0.0), with_tf=with_tf)
