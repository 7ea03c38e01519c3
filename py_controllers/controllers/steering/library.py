"""The steering controllers library: what the Ackermann, bicycle and tricycle controllers share.

As upstream's steering_controllers_library:
- input `~/reference` (geometry_msgs/TwistStamped, keep-last 1, best effort; linear.x and
  angular.z): a zero stamp means "now"; a reference older than `reference_timeout` on
  arrival is ignored (diff_drive's TwistStampCheck); in the loop it is used while younger
  than `reference_timeout` (0: for one cycle only), after that the traction wheels get 0
  and the steering stays where it was commanded;
- chainable: reference interfaces `<name>/linear/velocity` and `<name>/angular/velocity`; a
  preceding controller writes them every cycle (they are reset to NaN after each cycle);
- outputs `~/odometry` (nav_msgs/Odometry), `~/tf_odometry` (tf2_msgs/TFMessage, odom -> base;
  remap it to /tf, as ros2_control_demos do) when `enable_odom_tf`, `~/controller_state`
  (control_msgs/SteeringControllerStatus), all every cycle; service `~/set_odometry`;
- commands: traction `<joint>/velocity` then steering `<joint>/position`; states: traction
  `<joint>/velocity` (or `/position` with `position_feedback`) then steering `<joint>/position`.
The math is in steering_odometry.py and kinematics.py; joint limits are the manager's
(`enforce_command_limits`), as upstream leaves them to ros2_control.

Deliberate differences (safety contract): a reference with a non-finite linear.x or
angular.z, a negative stamp, or (with reference_timeout > 0) a stamp further than
reference_timeout in the future is refused with a log line (upstream stores the first two and
then commands 0, and drives on a future-stamped reference until the next one); a chained
reference whose commands come out non-finite is treated as absent (traction 0, steering
held, logged from the loop); on activation the steering commands
start at the measured steering positions (upstream leaves them unwritten until the first
reference) and on deactivation the traction commands are set to 0 (upstream: NaN) while the
manager holds the steering. The transform carries the tf prefix too (upstream prefixes the
odometry message only).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from control_msgs.msg import SteeringControllerStatus
from control_msgs.srv import SetOdometry
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry as OdometryMsg
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

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
    resolve_tf_prefix,
    velocity_references,
)
from py_controllers.controllers.diff_drive.odometry_messages import OdometryMessages
from py_controllers.controllers.diff_drive.request_handoff import RequestHandoff
from py_controllers.controllers.diff_drive.twist_stamp import TwistStampCheck
from py_controllers.controllers.steering.kinematics import Configuration
from py_controllers.controllers.steering.steering_odometry import Geometry, SteeringOdometry
from py_controllers.hardware_interface.handle import CommandInterface
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox, RealtimePublisher
from py_controllers.ros_conversions import set_stamp
from py_controllers.tf_publisher import create_tf_publisher

_NAN = math.nan
_REFERENCE_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST, depth=1, reliability=ReliabilityPolicy.BEST_EFFORT
)
#: (traction joints, steering joints) each configuration needs
_JOINT_COUNTS = {
    Configuration.BICYCLE: (1, 1),
    Configuration.TRICYCLE: (2, 1),
    Configuration.ACKERMANN: (2, 2),
}


def joint_count_problems(config: Configuration, p: Any) -> list[str]:
    """What is wrong with the joint lists for this configuration (upstream's messages)."""
    traction, steering = _JOINT_COUNTS[config]
    kind = config.name.capitalize()
    problems = []
    for names, needed, what in (
        (p.traction_joints_names, traction, 'traction joint'),
        (p.steering_joints_names, steering, 'steering joint'),
    ):
        if len(names) != needed:
            problems.append(
                f'{kind} configuration requires exactly {needed} {what}'
                f'{"s" if needed > 1 else ""}, but {len(names)} were provided'
            )
    for names, needed, what in (
        (p.traction_joints_state_names, traction, 'traction joint'),
        (p.steering_joints_state_names, steering, 'steering joint'),
    ):
        if names and len(names) != needed:
            problems.append(
                f'{kind} configuration requires exactly {needed} {what}'
                f'{"s" if needed > 1 else ""}, but {len(names)} state interface names were '
                'provided'
            )
    return problems


class SteeringControllersLibrary(ChainableControllerInterface):
    """Base of the steering controllers; a subclass names its configuration and geometry."""

    SCHEMA = Path(__file__).parent / 'steering_controllers_library_parameters.yaml'

    #: the drive layout (set by the subclass)
    CONFIGURATION: Configuration
    #: the subclass's own parameter schema (geometry)
    GEOMETRY_SCHEMA: Path

    def geometry(self, p: Any) -> Geometry:
        """The geometry from the subclass's parameters `p`."""
        raise NotImplementedError

    def on_init(self) -> CallbackReturn:
        node = self.get_node()
        self.parameters = ControllerParameters(node, self.SCHEMA)
        self.geometry_parameters = ControllerParameters(node, self.GEOMETRY_SCHEMA)
        #: the newest accepted ~/reference: (linear, angular, stamp_ns), or None
        self.reference_box: RealtimeBox[tuple[float, float, int] | None] = (
            self.topic_reference_box()
        )
        #: (x, y, yaw) requests of ~/set_odometry; the loop applies each one once
        self.pose_requests: RequestHandoff[tuple[float, float, float]] = RequestHandoff()
        self.odometry: SteeringOdometry | None = None
        self._used_once: tuple[float, float, int] | None = None
        return CallbackReturn.SUCCESS

    # --- configuration ---------------------------------------------------------------------
    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        geometry_params = self.geometry_parameters.load()
        if params is None or geometry_params is None:
            return CallbackReturn.ERROR
        problems = joint_count_problems(self.CONFIGURATION, params)
        if problems:
            for problem in problems:
                self.get_node().get_logger().error(problem)
            return CallbackReturn.ERROR
        self.odometry = SteeringOdometry(
            self.CONFIGURATION, self.geometry(geometry_params), params.velocity_rolling_window_size
        )
        self._traction_states = list(params.traction_joints_state_names) or list(
            params.traction_joints_names
        )
        self._steering_states = list(params.steering_joints_state_names) or list(
            params.steering_joints_names
        )
        self._create_ros_entities(params)
        self._loop_log = LoopLog(self.get_node())  # update() never logs through rcl
        self._stamp_check = TwistStampCheck('reference', 'reference_timeout')
        return CallbackReturn.SUCCESS

    def _create_ros_entities(self, p: Any) -> None:
        node = self.get_node()
        prefix = resolve_tf_prefix(p.tf_frame_prefix, node.get_namespace())
        odom_frame, base_frame = prefix + p.odom_frame_id, prefix + p.base_frame_id
        node.create_subscription(TwistStamped, '~/reference', self._on_reference, _REFERENCE_QOS)
        node.create_service(SetOdometry, '~/set_odometry', self._on_set_odometry)
        self._odom_out = OdometryOutput(
            OdometryMessages(
                odom_frame, base_frame, p.pose_covariance_diagonal, p.twist_covariance_diagonal
            ),
            node.create_publisher(OdometryMsg, '~/odometry', 10),
            create_tf_publisher(node, '~/tf_odometry'),
        )
        status = SteeringControllerStatus()
        status.header.frame_id = p.odom_frame_id
        self._status_rt = RealtimePublisher(
            node.create_publisher(SteeringControllerStatus, '~/controller_state', 10), status
        )

    def command_interface_configuration(self) -> InterfaceConfiguration:
        p = self.parameters.params
        return InterfaceConfiguration.individual(
            [f'{j}/velocity' for j in p.traction_joints_names]
            + [f'{j}/position' for j in p.steering_joints_names]
        )

    def state_interface_configuration(self) -> InterfaceConfiguration:
        kind = 'position' if self.parameters.params.position_feedback else 'velocity'
        return InterfaceConfiguration.individual(
            [f'{j}/{kind}' for j in self._traction_states]
            + [f'{j}/position' for j in self._steering_states]
        )

    def on_export_reference_interfaces(self) -> list[CommandInterface]:
        return velocity_references(self.name, ('linear', 'angular'))

    # --- ROS callbacks (executor thread) ---------------------------------------------------
    def _on_reference(self, msg: TwistStamped) -> None:
        linear, angular = msg.twist.linear.x, msg.twist.angular.z
        stamp_ns = self._stamp_check.accept_twist(
            msg, (linear, angular), self.parameters.params.reference_timeout, self.get_node()
        )
        if stamp_ns is not None:
            self.reference_box.set((linear, angular, stamp_ns))

    def _on_set_odometry(self, request: Any, response: Any) -> Any:
        return answer_set_odometry(self, request, response)

    # --- lifecycle ---------------------------------------------------------------------------
    def on_activate(self, previous_state: Any) -> CallbackReturn:
        n = len(self.parameters.params.traction_joints_names)
        self._traction_cmd = self.command_interfaces[:n]
        self._steering_cmd = self.command_interfaces[n:]
        self._traction_fb = self.state_interfaces[:n]
        self._steering_fb = self.state_interfaces[n:]
        self.reference_box.set(None)
        self._used_once = None
        for ref in self.reference_interfaces:
            ref.value = _NAN
        for handle in self._traction_cmd:
            handle.value = 0.0
        for handle, state in zip(self._steering_cmd, self._steering_fb):
            if math.isfinite(state.value):
                handle.value = state.value  # hold the steering where it is
        self.odometry.reset_accumulators()
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        for handle in self._traction_cmd:
            handle.value = 0.0
        for ref in self.reference_interfaces:
            ref.value = _NAN
        self.reference_box.set(None)
        return CallbackReturn.SUCCESS

    def on_cleanup(self, previous_state: Any) -> CallbackReturn:
        if self.odometry is not None:
            self.odometry.set_pose(0.0, 0.0, 0.0)
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: Any) -> CallbackReturn:
        return self.on_cleanup(previous_state)

    # --- the loop ------------------------------------------------------------------------------
    def update_reference_from_subscribers(self, time: Any, period: Any) -> ReturnType:
        reference = self.reference_box.get()
        if reference is None or reference is self._used_once:
            return RETURN_OK
        linear, angular, stamp_ns = reference
        timeout_ns = round(self.parameters.params.reference_timeout * 1e9)
        if timeout_ns == 0:
            self._used_once = reference  # a reference counts for one cycle only
        elif time.nanoseconds - stamp_ns > timeout_ns:
            return RETURN_OK  # timed out: the references stay NaN (traction 0)
        self.reference_interfaces[0].value = linear
        self.reference_interfaces[1].value = angular
        return RETURN_OK

    def update_and_write_commands(self, time: Any, period: Any) -> ReturnType:
        params = self.parameters.params
        odom = self.odometry
        linear = self.reference_interfaces[0].value
        angular = self.reference_interfaces[1].value
        pose = self.pose_requests.take_rt()
        if pose is not None:
            odom.set_pose(*pose)  # that cycle skips the odometry update, as upstream
        else:
            self._update_odometry_rt(
                params,
                linear if math.isfinite(linear) else 0.0,
                angular if math.isfinite(angular) else 0.0,
                period.nanoseconds * 1e-9,
            )
        traction = steering = None
        if linear == linear and angular == angular:  # neither is NaN
            traction, steering = odom.get_commands(
                linear, angular, params.open_loop, params.reduce_wheel_speed_until_steering_reached
            )
            if not all(math.isfinite(v) for v in (*traction, *steering)):
                self._loop_log.log_rt(
                    'error',
                    f'reference ({linear}, {angular}) gives non-finite commands '
                    f'{traction + steering}: ignored',
                    time.nanoseconds,
                    key='non-finite',
                )
                traction = steering = None
        if traction is None:
            for handle in self._traction_cmd:
                handle.value = 0.0
        else:
            for handle, value in zip(self._traction_cmd, traction):
                handle.value = value
            for handle, value in zip(self._steering_cmd, steering):
                handle.value = value
        self._publish_rt(time.nanoseconds, params)
        self.reference_interfaces[0].value = _NAN
        self.reference_interfaces[1].value = _NAN
        return RETURN_OK

    def _update_odometry_rt(self, p: Any, linear: float, angular: float, dt: float) -> None:
        odom = self.odometry
        if p.open_loop:
            odom.update_open_loop(linear, angular, dt)
            return
        traction = [h.value for h in self._traction_fb]
        steering = [h.value for h in self._steering_fb]
        if not all(math.isfinite(v) for v in (*traction, *steering)):
            return  # no usable feedback this cycle: the pose stays, as upstream
        if p.position_feedback:
            odom.update_from_position(traction, steering, dt)
        else:
            odom.update_from_velocity(traction, steering, dt)

    def _publish_rt(self, now_ns: int, p: Any) -> None:
        odom = self.odometry
        self._odom_out.publish_rt(
            now_ns, odom, (odom.linear, odom.angular, 0.0), with_tf=p.enable_odom_tf
        )
        rt = self._status_rt
        if rt.trylock():
            msg = rt.msg
            set_stamp(msg.header.stamp, now_ns)
            feedback = [h.value for h in self._traction_fb]
            msg.traction_wheels_position = feedback if p.position_feedback else []
            msg.traction_wheels_velocity = [] if p.position_feedback else feedback
            msg.traction_command = [h.value for h in self._traction_cmd]
            msg.steer_positions = [h.value for h in self._steering_fb]
            msg.steering_angle_command = [h.value for h in self._steering_cmd]
            rt.unlock_and_publish()
