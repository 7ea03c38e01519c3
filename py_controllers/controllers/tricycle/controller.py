"""`tricycle_controller/TricycleController`: one steered, driven wheel; twist in, odometry out.

As upstream (not chainable): input `~/cmd_vel` (geometry_msgs/TwistStamped, linear x and
angular z), commands `<traction_joint>/velocity` (rad/s) and `<steering_joint>/position`
(rad), states the traction velocity and steering position; outputs `~/odom`
(nav_msgs/Odometry; twist only with odom_only_twist) and `/tf` (odom -> base, when
enable_odom_tf, off by default as upstream); service `~/reset_odometry`
(std_srvs/Empty: back to the origin). Upstream has no `~/get_odometry`. The traction speed
is scaled down while the steering is far from its target, then the traction and steering
limiters apply; cmd_vel_timeout is in milliseconds, as upstream. Parameters are read at
configure (as upstream: they are not read_only, but upstream only takes them there).

`publish_ackermann_command` publishes the limited commands on `~/cmd_ackermann`
(ackermann_msgs/AckermannDrive) as upstream does: `steering_angle` in rad and, though the
message means m/s, `speed` as the traction wheel's rad/s.

Differences, on purpose: a cmd_vel with a non-finite velocity, a negative stamp or a stamp
further in the future than cmd_vel_timeout is refused in the callback with a log line (the
previous command stays in force until it times out); NaN feedback returns ERROR as
upstream, so the manager takes the controller out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ackermann_msgs.msg import AckermannDrive
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry as OdometryMsg
from std_srvs.srv import Empty

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controllers.diff_drive.mobile_base import OdometryOutput
from py_controllers.controllers.diff_drive.odometry import PlanarOdometry
from py_controllers.controllers.diff_drive.odometry_messages import OdometryMessages
from py_controllers.controllers.diff_drive.request_handoff import RequestHandoff
from py_controllers.controllers.diff_drive.twist_stamp import TwistStampCheck
from py_controllers.controllers.tricycle.kinematics import (
    ackermann_to_twist,
    steering_speed_scale,
    twist_to_ackermann,
)
from py_controllers.controllers.tricycle.limiters import SteeringLimiter, TractionLimiter
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox, RealtimePublisher
from py_controllers.tf_publisher import create_tf_publisher

_FLOAT32_MAX = 3.4028234663852886e38


def traction_limiter(p: Any) -> TractionLimiter:
    t = p.traction
    return TractionLimiter(
        t.min_velocity,
        t.max_velocity,
        t.min_acceleration,
        t.max_acceleration,
        t.min_deceleration,
        t.max_deceleration,
        t.min_jerk,
        t.max_jerk,
    )


def steering_limiter(p: Any) -> SteeringLimiter:
    s = p.steering
    return SteeringLimiter(
        s.min_position,
        s.max_position,
        s.min_velocity,
        s.max_velocity,
        s.min_acceleration,
        s.max_acceleration,
    )


class TricycleController(ControllerInterface):
    """Tricycle drive: traction velocity and steering angle from a body twist."""

    SCHEMA = Path(__file__).parent / 'tricycle_controller_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        # (linear, angular, stamp_ns) or None; written by the subscriber
        self._cmd: RealtimeBox[tuple[float, float, int] | None] = RealtimeBox(None)
        self.reset_requests: RequestHandoff[bool] = RequestHandoff()
        self._stamp_check = TwistStampCheck('cmd_vel', 'cmd_vel_timeout')
        self.odometry: PlanarOdometry | None = None  # made by on_configure
        return CallbackReturn.SUCCESS

    # --- configuration ----------------------------------------------------------------
    def on_configure(self, previous_state: Any) -> CallbackReturn:
        p = self.parameters.load()
        if p is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        try:
            self._traction_limiter = traction_limiter(p)
            self._steering_limiter = steering_limiter(p)
        except ValueError as exc:
            log.error(f'invalid limits: {exc}')
            return CallbackReturn.ERROR
        self.wheelbase, self.wheel_radius = p.wheelbase, p.wheel_radius
        self.timeout_s = p.cmd_vel_timeout / 1000.0
        self.odometry = PlanarOdometry(p.velocity_rolling_window_size)
        node = self.get_node()
        node.create_subscription(TwistStamped, '~/cmd_vel', self._on_cmd_vel, 10)
        node.create_service(Empty, '~/reset_odometry', self._on_reset_odometry)
        self._odom_out = OdometryOutput(
            OdometryMessages(
                p.odom_frame_id,
                p.base_frame_id,
                p.pose_covariance_diagonal,
                p.twist_covariance_diagonal,
            ),
            node.create_publisher(OdometryMsg, '~/odom', 10),
            create_tf_publisher(node) if p.enable_odom_tf else None,
        )
        self._ackermann_rt = (
            RealtimePublisher(
                node.create_publisher(AckermannDrive, '~/cmd_ackermann', 10), AckermannDrive()
            )
            if p.publish_ackermann_command
            else None
        )
        return CallbackReturn.SUCCESS

    def command_interface_configuration(self) -> InterfaceConfiguration:
        p = self.parameters.params
        return InterfaceConfiguration.individual(
            [f'{p.traction_joint_name}/velocity', f'{p.steering_joint_name}/position']
        )

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return self.command_interface_configuration()

    # --- ROS callbacks (executor thread) --------------------------------------------
    def _on_cmd_vel(self, msg: TwistStamped) -> None:
        linear, angular = msg.twist.linear.x, msg.twist.angular.z
        stamp_ns = self._stamp_check.accept_twist(
            msg, (linear, angular), self.timeout_s, self.get_node(), self._wheel_speed
        )
        if stamp_ns is not None:
            self._cmd.set((linear, angular, stamp_ns))

    def _wheel_speed(self, linear: float, angular: float) -> tuple[float]:
        """The traction wheel's speed (rad/s) for a body twist; infinite when it overflows."""
        return (twist_to_ackermann(linear, angular, self.wheelbase, self.wheel_radius)[1],)

    def _on_reset_odometry(self, request: Any, response: Any) -> Any:
        self.reset_requests.put(True)
        self.get_node().get_logger().info('Odometry reset requested')
        return response

    # --- lifecycle -------------------------------------------------------------------
    def on_activate(self, previous_state: Any) -> CallbackReturn:
        self._cmd.set(None)
        self._previous = [(0.0, 0.0), (0.0, 0.0)]  # last two limited (speed, steering)
        self.odometry.reset_accumulators()
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        for handle in self.command_interfaces:  # upstream's halt(): speed 0, steering 0
            handle.value = 0.0
        self._cmd.set(None)
        return CallbackReturn.SUCCESS

    def on_cleanup(self, previous_state: Any) -> CallbackReturn:
        self.odometry = None
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: Any) -> CallbackReturn:
        """Also after a configure that failed before the odometry was made."""
        self.odometry = None
        return CallbackReturn.SUCCESS

    # --- the loop --------------------------------------------------------------------
    def update(self, time: Any, period: Any) -> ReturnType:
        cmd = self._cmd.get()
        if cmd is None or (time.nanoseconds - cmd[2]) * 1e-9 > self.timeout_s:
            linear = angular = 0.0
        else:
            linear, angular = cmd[0], cmd[1]
        traction, steering = self.command_interfaces
        ws_read, alpha_read = (h.value for h in self.state_interfaces)
        dt = period.nanoseconds * 1e-9
        odom = self.odometry
        if self.parameters.params.open_loop:
            odom.update_open_loop(linear, angular, dt)
        else:
            if ws_read != ws_read or alpha_read != alpha_read:
                return ReturnType.ERROR
            vx, wz = ackermann_to_twist(ws_read, alpha_read, self.wheelbase, self.wheel_radius)
            odom.update_from_twist(vx, wz, dt)
        if self.reset_requests.take_rt():
            odom.reset()
        self._publish_rt(time.nanoseconds)

        alpha, ws = twist_to_ackermann(linear, angular, self.wheelbase, self.wheel_radius)
        if alpha_read == alpha_read:
            ws *= steering_speed_scale(abs(alpha - alpha_read))
        last, before = self._previous[1], self._previous[0]
        ws = self._traction_limiter.limit(ws, last[0], before[0], dt)
        alpha = self._steering_limiter.limit(alpha, last[1], before[1], dt)
        self._previous = [last, (ws, alpha)]
        if self._ackermann_rt is not None and self._ackermann_rt.trylock():
            drive = self._ackermann_rt.msg
            # float32 fields: a value beyond their range would raise, upstream's cast gives inf
            drive.speed = min(max(ws, -_FLOAT32_MAX), _FLOAT32_MAX)
            drive.steering_angle = min(max(alpha, -_FLOAT32_MAX), _FLOAT32_MAX)
            self._ackermann_rt.unlock_and_publish()
        traction.value, steering.value = ws, alpha
        return RETURN_OK

    def _publish_rt(self, now_ns: int) -> None:
        odom = self.odometry
        self._odom_out.publish_rt(
            now_ns,
            odom,
            (odom.linear, odom.angular, 0.0),
            twist_only=self.parameters.params.odom_only_twist,
        )
