"""ROS 1 style single-joint PID controllers: a setpoint on ``~/command``, one Pid, one output.

``velocity_controllers/JointPositionController`` (position in, velocity out),
``effort_controllers/JointPositionController`` (position in, effort out) and
``effort_controllers/JointVelocityController`` (velocity in, effort out), as in ros_controllers
(noetic). The forward variants (position/velocity/effort in, the same out) live in
``forward_command``.

ROS interface:

* parameters ``joint`` and ``pid.{p, i, d, i_clamp, i_clamp_max, i_clamp_min, u_clamp_max,
  u_clamp_min, antiwindup_strategy, tracking_time_constant, error_deadband, antiwindup}``;
  the ``pid.*`` gains may be changed at runtime (``ros2 param set``);
* ``~/command`` (std_msgs/Float64): the setpoint;
* position controllers only: ``~/command_with_velocity`` (std_msgs/Float64MultiArray,
  ``data = [position, velocity]``) sets a position with a velocity; the velocity error
  (commanded minus measured velocity) then replaces the PID's own derivative of the position
  error, as ROS 1's ``setCommand(pos, vel)`` did. A later plain ``~/command`` drops the
  velocity;
* ``~/state`` (control_msgs/JointControllerState) every 10th update, starting with the
  first after activation.

On activation a position controller holds the current position (clamped to the limits), the
velocity controller commands zero velocity, and the PID is reset. On deactivation the output
is set to 0 (ROS 1 left the last value; ros2_controllers' effort/velocity forward controllers
zero it).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from control_msgs.msg import JointControllerState
from std_msgs.msg import Float64, Float64MultiArray

from py_controllers.control_toolbox.pid_parameters import (
    antiwindup_flag,
    gains_from_parameters,
    gains_problem,
)
from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controller_interface.loop_log import LoopLog
from py_controllers.controllers.joint_pid.joint_math import (
    JointModel,
    PositionPid,
    VelocityPid,
    clamp_position,
)
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.hardware_interface.urdf import parse_urdf_joints
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox, RealtimePublisher
from py_controllers.ros_conversions import set_stamp

_NAN = math.nan

#: ``~/state`` is published on every STATE_PUBLISH_DIVIDER-th update.
STATE_PUBLISH_DIVIDER = 10


class _JointPidController(ControllerInterface):
    """Shared glue: parameters, gains updates, the command box and the state publisher."""

    SCHEMA = Path(__file__).parent / 'joint_pid_parameters.yaml'

    output_interface = ''
    state_names: tuple[str, ...] = ()

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(
            self.get_node(), self.SCHEMA, consistency=lambda p: gains_problem({'pid.': p.pid})
        )
        self.joint_name = ''
        #: The latest valid command, (setpoint, velocity setpoint or NaN), for the loop.
        self.command_box: RealtimeBox[tuple[float, float]] = RealtimeBox((_NAN, _NAN))
        self._state_pub: Any = None
        self._state_rt: RealtimePublisher | None = None
        self._gains_error = ''
        #: Updates since the last activation (``~/state`` goes out when it is a multiple of 10).
        self.update_count = 0
        return CallbackReturn.SUCCESS

    # --- configuration --------------------------------------------------------------
    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        try:
            gains = gains_from_parameters(params.pid, prefix='pid.')
            self.joint_name = params.joint
            self._configure_core(gains)
        except ValueError as exc:
            log.error(str(exc))
            return CallbackReturn.ERROR
        node = self.get_node()
        node.create_subscription(Float64, '~/command', self._on_command, 10)
        self._create_extra_subscriptions()
        self._state_pub = node.create_publisher(JointControllerState, '~/state', 1)
        self._loop_log = LoopLog(node)  # update() never logs through rcl
        return CallbackReturn.SUCCESS

    def _configure_core(self, gains: Any) -> None:
        raise NotImplementedError

    def _create_extra_subscriptions(self) -> None:
        """Hook for subscriptions beyond ``~/command``."""

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual([f'{self.joint_name}/{self.output_interface}'])

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(
            [f'{self.joint_name}/{s}' for s in self.state_names]
        )

    # --- input ----------------------------------------------------------------------
    def _reject(self, what: str) -> None:
        self.get_node().get_logger().error(
            f'{what} rejected for joint {self.joint_name}', throttle_duration_sec=1.0
        )

    def _on_command(self, msg: Float64) -> None:
        value = msg.data
        if not math.isfinite(value):
            self._reject(f'command {value}')
            return
        self.command_box.set((value, _NAN))

    # --- activation -----------------------------------------------------------------
    def on_activate(self, previous_state: Any) -> CallbackReturn:
        self._output = self.command_interfaces[0]
        self._start()
        msg = JointControllerState()
        self._state_rt = RealtimePublisher(self._state_pub, msg)
        self.update_count = 0
        return CallbackReturn.SUCCESS

    def _start(self) -> None:
        raise NotImplementedError

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        if self.command_interfaces:
            self.command_interfaces[0].value = 0.0
        return CallbackReturn.SUCCESS

    # --- loop -----------------------------------------------------------------------
    def _refresh_gains_rt(self, now_ns: int) -> None:
        """Apply a new parameter snapshot's gains (loop side; rare, only on a change)."""
        params = self.parameters.try_update_rt()
        if params is None:
            return
        try:
            gains = gains_from_parameters(params.pid, prefix='pid.')
        except ValueError as exc:
            self._gains_error = str(exc)
        else:
            if self.core.pid.set_gains(gains):
                self._gains_error = ''
            else:
                self._gains_error = self.core.pid.last_gains_error
        if self._gains_error:
            self._loop_log.log_rt(
                'error', f'new PID gains ignored, keeping the old ones: {self._gains_error}', now_ns
            )

    def _fill_gains_rt(self, msg: JointControllerState) -> None:
        gains = self.core.pid.get_gains()
        msg.p = gains.p
        msg.i = gains.i
        msg.d = gains.d
        msg.i_clamp = gains.antiwindup_strategy.i_max
        msg.antiwindup = antiwindup_flag(gains)

    def _publish_state_rt(
        self, time: Any, dt_s: float, process_value: float, process_value_dot: float
    ) -> None:
        rt = self._state_rt
        if rt is None or not rt.trylock():
            return
        msg = rt.msg
        core = self.core
        set_stamp(msg.header.stamp, time.nanoseconds)
        msg.set_point = core.set_point
        msg.process_value = process_value
        msg.process_value_dot = process_value_dot
        msg.error = core.error
        msg.time_step = dt_s
        msg.command = core.command
        self._fill_gains_rt(msg)
        rt.unlock_and_publish()


class _JointPositionPid(_JointPidController):
    """Position in; the output interface is chosen by the subclass."""

    state_names = ('position', 'velocity')

    def _configure_core(self, gains: Any) -> None:
        urdf_joint = None
        if self.robot_description:
            urdf_joint = parse_urdf_joints(self.robot_description).get(self.joint_name)
        if urdf_joint is None:
            raise ValueError(f"joint '{self.joint_name}' not found in robot_description")
        self.joint = JointModel.from_urdf_joint(self.joint_name, urdf_joint)
        self.core = PositionPid(self.joint, gains)

    def _create_extra_subscriptions(self) -> None:
        self.get_node().create_subscription(
            Float64MultiArray, '~/command_with_velocity', self._on_command_with_velocity, 10
        )

    def _on_command_with_velocity(self, msg: Float64MultiArray) -> None:
        data = msg.data
        if len(data) != 2 or not all(math.isfinite(v) for v in data):
            self._reject(f'command_with_velocity {list(data)} (expected [position, velocity])')
            return
        self.command_box.set((float(data[0]), float(data[1])))

    def _start(self) -> None:
        self._position, self._velocity = self.state_interfaces[0], self.state_interfaces[1]
        current = self._position.value
        self.core.start(current)
        self.command_box.set((clamp_position(self.joint, current), _NAN))

    def update(self, time: Any, period: Any) -> ReturnType:
        self._refresh_gains_rt(time.nanoseconds)
        dt_s = period.nanoseconds * 1e-9
        position = self._position.value
        velocity = self._velocity.value
        command_position, command_velocity = self.command_box.get()
        output = self.core.step(command_position, command_velocity, position, velocity, dt_s)
        if output == output:
            self._output.value = output
        if self.update_count % STATE_PUBLISH_DIVIDER == 0:
            self._publish_state_rt(time, dt_s, position, velocity)
        self.update_count += 1
        return RETURN_OK


class VelocityJointPositionController(_JointPositionPid):
    """``velocity_controllers/JointPositionController``: position command, velocity output."""

    output_interface = 'velocity'


class EffortJointPositionController(_JointPositionPid):
    """``effort_controllers/JointPositionController``: position command, effort output."""

    output_interface = 'effort'


class EffortJointVelocityController(_JointPidController):
    """``effort_controllers/JointVelocityController``: velocity command, effort output."""

    output_interface = 'effort'
    state_names = ('velocity',)

    def _configure_core(self, gains: Any) -> None:
        self.core = VelocityPid(gains)

    def _start(self) -> None:
        self._velocity = self.state_interfaces[0]
        self.core.start()
        self.command_box.set((0.0, _NAN))

    def update(self, time: Any, period: Any) -> ReturnType:
        self._refresh_gains_rt(time.nanoseconds)
        dt_s = period.nanoseconds * 1e-9
        velocity = self._velocity.value
        output = self.core.step(self.command_box.get()[0], velocity, dt_s)
        if output == output:
            self._output.value = output
        if self.update_count % STATE_PUBLISH_DIVIDER == 0:
            # ROS 1 leaves process_value_dot unset for this controller.
            self._publish_state_rt(time, dt_s, velocity, 0.0)
        self.update_count += 1
        return RETURN_OK
