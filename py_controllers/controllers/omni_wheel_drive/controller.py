"""`omni_wheel_drive_controller/OmniWheelDriveController`: body twist to N omni wheels.

As upstream: chainable, reference interfaces `<name>/linear/x/velocity`,
`<name>/linear/y/velocity`, `<name>/angular/z/velocity`; topic input `~/cmd_vel`
(geometry_msgs/TwistStamped: linear x and y, angular z); outputs `~/odom`
(nav_msgs/Odometry) and `/tf` (odom -> base, when enable_odom_tf); service
`~/set_odometry`. Odometry from wheel positions (position_feedback, the default), wheel
velocities, or the command (open_loop). The math is in kinematics.py.

Differences, on purpose (as the diff drive's): from activation on, until a valid
cmd_vel arrives, every cycle commands 0 to the wheels and odometry runs (upstream leaves
the wheels unwritten until cmd_vel_timeout has passed); a cmd_vel with a non-finite
velocity is refused in the callback with a log line and the previous command stays in
force until it times out; cmd_vel_timeout 0 means no timeout (upstream then brakes every
cycle); the first position sample after activation only latches the wheel angles.
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
from py_controllers.controllers.diff_drive.mobile_base import (
    OdometryOutput,
    answer_set_odometry,
    frame_prefix,
    velocity_references,
)
from py_controllers.controllers.diff_drive.odometry_messages import OdometryMessages
from py_controllers.controllers.diff_drive.request_handoff import RequestHandoff
from py_controllers.controllers.diff_drive.twist_stamp import TwistStampCheck
from py_controllers.controllers.omni_wheel_drive.kinematics import OmniKinematics, OmniOdometry
from py_controllers.hardware_interface.handle import CommandInterface
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox
from py_controllers.tf_publisher import create_tf_publisher

_AXES = ('linear/x', 'linear/y', 'angular/z')
_NAN = math.nan


class OmniWheelDriveController(ChainableControllerInterface):
    """Three or more omni wheels evenly spaced on a circle."""

    SCHEMA = Path(__file__).parent / 'omni_wheel_drive_controller_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(
            self.get_node(),
            self.SCHEMA,
        )
        # (vx, vy, wz, stamp_ns) or None; written by the subscriber
        self._cmd: RealtimeBox[tuple[float, float, float, int] | None] = self.topic_reference_box()
        self.pose_requests: RequestHandoff[tuple[float, float, float]] = RequestHandoff()
        self._stamp_check = TwistStampCheck('cmd_vel', 'cmd_vel_timeout')
        return CallbackReturn.SUCCESS

    # --- configuration ----------------------------------------------------------------
    def on_configure(self, previous_state: Any) -> CallbackReturn:
        p = self.parameters.load()
        if p is None:
            return CallbackReturn.ERROR
        if len(p.wheel_names) < 3:
            self.get_node().get_logger().error(
                'The number of wheels is less than 3. If there are more wheels please pass '
                'them all to the controller or use a different one for your wheel configuration.'
            )
            return CallbackReturn.ERROR
        self.kinematics = OmniKinematics(
            len(p.wheel_names), p.robot_radius, p.wheel_radius, p.wheel_offset
        )
        self.odometry = OmniOdometry(self.kinematics)
        node = self.get_node()
        prefix = frame_prefix(p, node.get_namespace())
        node.create_subscription(TwistStamped, '~/cmd_vel', self._on_cmd_vel, 10)
        node.create_service(SetOdometry, '~/set_odometry', self._on_set_odometry)
        covariance = p.diagonal_covariance
        self._odom_out = OdometryOutput(
            OdometryMessages(
                prefix + p.odom_frame_id,
                prefix + p.base_frame_id,
                covariance.pose,
                covariance.twist,
            ),
            node.create_publisher(OdometryMsg, '~/odom', 10),
            create_tf_publisher(node) if p.enable_odom_tf else None,
        )
        return CallbackReturn.SUCCESS

    def command_interface_configuration(self) -> InterfaceConfiguration:
        names = self.parameters.params.wheel_names
        return InterfaceConfiguration.individual([f'{w}/velocity' for w in names])

    def state_interface_configuration(self) -> InterfaceConfiguration:
        p = self.parameters.params
        if p.open_loop:
            return InterfaceConfiguration.none()
        kind = 'position' if p.position_feedback else 'velocity'
        return InterfaceConfiguration.individual([f'{w}/{kind}' for w in p.wheel_names])

    def on_export_reference_interfaces(self) -> list[CommandInterface]:
        return velocity_references(self.name, _AXES)

    # --- ROS callbacks (executor thread) --------------------------------------------
    def _on_cmd_vel(self, msg: TwistStamped) -> None:
        t = msg.twist
        values = (t.linear.x, t.linear.y, t.angular.z)
        stamp_ns = self._stamp_check.accept_twist(
            msg,
            values,
            self.parameters.params.cmd_vel_timeout,
            self.get_node(),
            self.kinematics.inverse,
        )
        if stamp_ns is not None:
            self._cmd.set((*values, stamp_ns))

    def _on_set_odometry(self, request: Any, response: Any) -> Any:
        return answer_set_odometry(self, request, response)

    # --- lifecycle -------------------------------------------------------------------
    def on_activate(self, previous_state: Any) -> CallbackReturn:
        self._reset_buffers()
        self.odometry.reset_accumulators()
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        for handle in self.command_interfaces:
            handle.value = 0.0
        self._reset_buffers()
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: Any) -> CallbackReturn:
        self.odometry.set_pose(0.0, 0.0, 0.0)
        return CallbackReturn.SUCCESS

    def _reset_buffers(self) -> None:
        for ref in self.reference_interfaces:
            ref.value = _NAN
        self._cmd.set(None)

    # --- the loop --------------------------------------------------------------------
    def update_reference_from_subscribers(self, time: Any, period: Any) -> ReturnType:
        cmd = self._cmd.get()
        timeout_ns = int(self.parameters.params.cmd_vel_timeout * 1e9)
        refs = self.reference_interfaces
        if cmd is None or (timeout_ns > 0 and time.nanoseconds - cmd[3] > timeout_ns):
            refs[0].value = refs[1].value = refs[2].value = 0.0
        else:
            refs[0].value, refs[1].value, refs[2].value = cmd[0], cmd[1], cmd[2]
        return RETURN_OK

    def update_and_write_commands(self, time: Any, period: Any) -> ReturnType:
        refs = self.reference_interfaces
        vx, vy, wz = refs[0].value, refs[1].value, refs[2].value
        if not (math.isfinite(vx) and math.isfinite(vy) and math.isfinite(wz)):
            return RETURN_OK  # chained and nothing written yet, as upstream
        wheels = self.kinematics.inverse(vx, vy, wz)
        if not all(w - w == 0.0 for w in wheels):
            return RETURN_OK  # overflowed: ignored like NaN
        dt = period.nanoseconds * 1e-9
        pose = self.pose_requests.take_rt()
        params = self.parameters.params
        if pose is not None:
            self.odometry.set_pose(*pose)
            updated = True
        elif params.open_loop:
            updated = self.odometry.update_open_loop(vx, vy, wz, dt)
        else:
            feedback = [h.value for h in self.state_interfaces]
            if not all(v == v for v in feedback):
                return ReturnType.ERROR  # the manager deactivates us, as upstream's ERROR
            if params.position_feedback:
                updated = self.odometry.update_from_position(feedback, dt)
            else:
                updated = self.odometry.update_from_velocity(feedback, dt)
        if updated:
            self._publish_rt(time.nanoseconds)
        for handle, value in zip(self.command_interfaces, wheels):
            handle.value = value
        return RETURN_OK

    def _publish_rt(self, now_ns: int) -> None:
        odom = self.odometry
        self._odom_out.publish_rt(now_ns, odom, (odom.vx, odom.wz, odom.vy))
