"""``admittance_controller/AdmittanceController``: compliance from a wrist force-torque sensor.

As ros2_controllers' admittance_controller: a chainable controller that adds to a joint
reference the motion of a virtual mass-spring-damper driven by the measured wrench (the
math is in :mod:`admittance_rule`), and writes ``<joint>/<command_interface>``.

* Exports ``<controller>/<joint>/<interface>`` for ``chainable_command_interfaces``
  (position, velocity; interface-major, NaN until written). A trajectory controller with
  ``command_joints: [<controller>/<joint>, ...]`` chains in front; a NaN reference keeps the
  last one (no reference yet), and the first reference is the measured position at rest.
* Not chained: ``~/joint_references`` (trajectory_msgs/JointTrajectoryPoint) with one
  position and/or one velocity per joint, all finite, else rejected with an error.
* ``~/wrench_reference`` (geometry_msgs/WrenchStamped, in ``ft_sensor.frame.id`` or no
  frame) is added to the measured wrench.
* ``~/status`` (control_msgs/AdmittanceControllerState) every update.
* Reads ``<joint>/<state_interface>`` (position required; velocity and acceleration are
  claimed as upstream but the rule uses positions only) and the ForceTorqueSensor
  ``<ft_sensor.name>/force.x`` ... ``torque.z``.

Bad input is contained: a non-finite wrench, reference or a failing kinematics call holds
the last good command (positions, zero velocity and acceleration) and logs an error once a
second (written by the executor, `LoopLog`: update() never logs through rcl); the controller
keeps running. NaN joint positions are replaced by the last command.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from control_msgs.msg import AdmittanceControllerState
from geometry_msgs.msg import WrenchStamped
from rclpy.qos import qos_profile_system_default
from trajectory_msgs.msg import JointTrajectoryPoint

from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controller_interface.loop_log import LoopLog
from py_controllers.controllers.admittance.admittance_rule import AdmittanceRule
from py_controllers.controllers.admittance.config import (
    AdmittanceConfig,
    JointPoint,
    config_problem,
)
from py_controllers.controllers.admittance.status import fill_status, make_status_message
from py_controllers.hardware_interface.handle import CommandInterface
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.kinematics import KinematicsError, KinematicsParams, load_kinematics
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox, RealtimePublisher
from py_controllers.semantic_components import ForceTorqueSensor
from py_controllers.semantic_components.errors import MissingStateInterfaceError

_NAN = math.nan
ALLOWED_INTERFACES = ('position', 'velocity', 'acceleration')
CHAINABLE_INTERFACES = ('position', 'velocity')
#: pluginlib's base-class package upstream; our plug-ins are entry points of its stand-in.
KINEMATICS_PACKAGE = 'kinematics_interface'

# (positions, velocities), each empty or one per joint, all finite
_Reference = tuple[tuple[float, ...], tuple[float, ...]]


class AdmittanceController(ChainableControllerInterface):
    """Admittance on a joint reference, chainable through position/velocity references."""

    SCHEMA = Path(__file__).parent / 'admittance_controller_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(
            self.get_node(), self.SCHEMA, consistency=self._parameters_problem
        )
        self.rule: AdmittanceRule | None = None
        self.joints: list[str] = []
        self.n = 0
        #: Links the kinematics know (set at configure): frames must be among them.
        self._chain_links: frozenset[str] = frozenset()
        #: The newest valid ~/joint_references; None after activation.
        self.reference_box: RealtimeBox[_Reference | None] = self.topic_reference_box()
        #: The newest ~/wrench_reference as six floats; None after activation.
        self.wrench_reference_box: RealtimeBox[np.ndarray | None] = self.topic_reference_box()
        return CallbackReturn.SUCCESS

    def _parameters_problem(self, p: Any) -> str:
        problem = config_problem(p)
        if not problem and self._chain_links:
            for name, frame in AdmittanceConfig.from_params(p).frames.items():
                if frame not in self._chain_links:
                    return (
                        f"'{name}' is '{frame}', not a link of the kinematic chain "
                        f'({", ".join(sorted(self._chain_links))})'
                    )
        return problem

    # --- configuration ----------------------------------------------------------------------
    def on_configure(self, previous_state: Any) -> CallbackReturn:
        self._chain_links = frozenset()
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        problem, failure = self._interfaces_problem(params)
        if problem:
            log.error(problem)
            return CallbackReturn.FAILURE if failure else CallbackReturn.ERROR
        try:
            kinematics = self._load_kinematics(params)
            config = AdmittanceConfig.from_params(params)
        except (ValueError, RuntimeError) as exc:
            log.error(str(exc))
            return CallbackReturn.ERROR
        rule = AdmittanceRule(kinematics, self.n, config)
        problem = rule.check_frames(np.zeros(self.n))
        if problem:
            log.error(f'kinematics: {problem}')
            return CallbackReturn.ERROR
        self.rule = rule
        self._loop_log = LoopLog(self.get_node())  # update() never logs through rcl
        self._chain_links = frozenset(getattr(kinematics, 'chain_links', ()))
        self._base = params.kinematics.base or getattr(kinematics, 'base', '')
        self.ft_sensor = ForceTorqueSensor(params.ft_sensor.name)
        node = self.get_node()
        qos = qos_profile_system_default
        node.create_subscription(
            JointTrajectoryPoint, '~/joint_references', self._on_joint_references, qos
        )
        node.create_subscription(WrenchStamped, '~/wrench_reference', self._on_wrench, qos)
        self._status_pub = node.create_publisher(AdmittanceControllerState, '~/status', qos)
        log.info(
            f'Command interfaces are [{" ".join(self._command_types)}] and state interfaces '
            f'are [{" ".join(self._state_types)}].'
        )
        return CallbackReturn.SUCCESS

    def _interfaces_problem(self, p: Any) -> tuple[str, bool]:
        """What is wrong with the joint and interface parameters ('' if nothing) and
        whether upstream answers it with FAILURE (True) or ERROR."""
        self.joints = list(p.joints)
        self.n = len(self.joints)
        if not self.joints:
            return "'joints' must name the joints of the kinematic chain", True
        self.command_joints = list(p.command_joints) or list(self.joints)
        if len(self.command_joints) != self.n:
            return (
                "'command_joints' parameter has to have the same size as 'joints' parameter.",
                True,
            )
        self._chainable = list(p.chainable_command_interfaces)
        for itf in self._chainable:
            if itf not in CHAINABLE_INTERFACES:
                return (
                    f'chainable interface type {itf} is not supported. Supported types are '
                    f'{" and ".join(CHAINABLE_INTERFACES)}',
                    False,
                )
        if len(set(self._chainable)) != len(self._chainable):
            return f'chainable interface types {self._chainable} name one twice', False
        self._command_types = list(p.command_interfaces)
        self._state_types = list(p.state_interfaces)
        for kind, types in (('Command', self._command_types), ('State', self._state_types)):
            for itf in types:
                if itf not in ALLOWED_INTERFACES:
                    return f"{kind} interface type '{itf}' not allowed!", True
            if len(set(types)) != len(types):
                return f'{kind} interface types {types} name one twice', True
        if not self._command_types:
            return (
                "'command_interfaces' must name at least one of position, velocity, acceleration",
                True,
            )
        if 'position' not in self._state_types:
            return 'Position state interface is required.', True
        return '', False

    def _load_kinematics(self, p: Any) -> Any:
        """The initialized plug-in; ValueError saying why not."""
        k = p.kinematics
        if not self.robot_description:
            raise ValueError("'robot_description' is empty: the manager has no robot description")
        if k.plugin_package != KINEMATICS_PACKAGE:
            raise ValueError(
                f"kinematics.plugin_package '{k.plugin_package}' is not supported: kinematics "
                f'plug-ins are entry points of group py_controllers.kinematics, whose base '
                f"package is '{KINEMATICS_PACKAGE}'"
            )
        try:
            kinematics = load_kinematics(k.plugin_name)
            kinematics.initialize(
                self.robot_description, KinematicsParams(base=k.base, tip=k.tip, alpha=k.alpha)
            )
            chain_joints = list(kinematics.joint_names)
        except KinematicsError as exc:
            raise ValueError(f"kinematics plugin '{k.plugin_name}': {exc}") from exc
        if chain_joints != self.joints:
            raise ValueError(
                f"'joints' {self.joints} must be the movable joints of the chain from "
                f"'{k.base}' to '{k.tip}', in chain order: {chain_joints}"
            )
        return kinematics

    def on_cleanup(self, previous_state: Any) -> CallbackReturn:
        self.rule = None
        self._chain_links = frozenset()
        return CallbackReturn.SUCCESS

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(
            [f'{j}/{i}' for i in self._command_types for j in self.command_joints]
        )

    def state_interface_configuration(self) -> InterfaceConfiguration:
        names = [f'{j}/{i}' for i in self._state_types for j in self.joints]
        return InterfaceConfiguration.individual(names + self.ft_sensor.get_state_interface_names())

    def on_export_reference_interfaces(self) -> list[CommandInterface]:
        return [
            CommandInterface(f'{self.name}/{j}', i, _NAN)
            for i in self._chainable
            for j in self.joints
        ]

    # --- input (executor thread) ------------------------------------------------------------
    def _on_joint_references(self, msg: JointTrajectoryPoint) -> None:
        positions, velocities = tuple(msg.positions), tuple(msg.velocities)
        n = self.n
        log = self.get_node().get_logger()
        sizes = (len(positions), len(velocities))
        if sizes == (0, 0) or any(size not in (0, n) for size in sizes):
            # one throttled call site per kind of rejection: each is reported once a second
            log.error(
                f'joint reference rejected: {sizes[0]} positions, expected {n} (one per joint '
                f'of {self.joints}) or none; {sizes[1]} velocities, expected {n} or none',
                throttle_duration_sec=1.0,
            )
            return
        if not all(math.isfinite(v) for v in positions + velocities):
            log.error(
                f'joint reference rejected: non-finite positions {list(positions)} or '
                f'velocities {list(velocities)}',
                throttle_duration_sec=1.0,
            )
            return
        self.reference_box.set((positions, velocities))

    def _on_wrench(self, msg: WrenchStamped) -> None:
        expected = self.parameters.latest().ft_sensor.frame.id
        frame = msg.header.frame_id
        log = self.get_node().get_logger()
        if frame and frame != expected:
            log.error(
                f'Ignoring wrench reference as it is on the wrong frame: {frame}. '
                f'Expected reference frame: {expected}',
                throttle_duration_sec=1.0,
            )
            return
        f, t = msg.wrench.force, msg.wrench.torque
        values = np.array([f.x, f.y, f.z, t.x, t.y, t.z])
        if not np.all(np.isfinite(values)):
            log.error(
                f'wrench reference rejected: non-finite values {values.tolist()}',
                throttle_duration_sec=1.0,
            )
            return
        self.wrench_reference_box.set(values)

    # --- activation -------------------------------------------------------------------------
    def on_activate(self, previous_state: Any) -> CallbackReturn:
        log = self.get_node().get_logger()
        params = self.parameters.latest()
        self._apply_parameters(params)
        try:
            self.ft_sensor.assign_loaned_state_interfaces(self.state_interfaces)
        except MissingStateInterfaceError as exc:
            log.error(str(exc))
            return CallbackReturn.ERROR
        n = self.n
        by_type = [
            self.state_interfaces[k * n : (k + 1) * n] for k in range(len(self._state_types))
        ]
        self._position_states = by_type[self._state_types.index('position')]
        positions = np.array([h.value for h in self._position_states], dtype=float)
        if not np.all(np.isfinite(positions)):
            log.error(f'Failed to read joint positions from the hardware: {positions.tolist()}')
            return CallbackReturn.ERROR
        self._commands = [
            (self.command_interfaces[k * n : (k + 1) * n], ALLOWED_INTERFACES.index(itf))
            for k, itf in enumerate(self._command_types)
        ]
        self._reference = JointPoint.zeros(n)
        self._reference.positions[:] = positions
        self._last_reference = JointPoint.zeros(n)
        self._last_reference.assign(self._reference)
        self._desired = JointPoint.zeros(n)
        self._desired.assign(self._reference)
        self._last_commanded = JointPoint.zeros(n)
        self._last_commanded.assign(self._reference)
        self._current = np.array(positions)
        self._wrench_list = [0.0] * 6
        self._wrench = np.zeros(6)
        self._pos_ref = self._ref_slice('position')
        self._vel_ref = self._ref_slice('velocity')
        self.reference_box.set(None)
        self._last_box: _Reference | None = None
        self.wrench_reference_box.set(None)
        self.rule.reset(positions)
        base = self._base
        message = make_status_message(self.joints, base, self.rule.config.ft_frame)
        self._status_rt = RealtimePublisher(self._status_pub, message)
        return CallbackReturn.SUCCESS

    def _ref_slice(self, interface: str) -> list[CommandInterface]:
        if interface not in self._chainable:
            return []
        k = self._chainable.index(interface)
        return self.reference_interfaces[k * self.n : (k + 1) * self.n]

    def _apply_parameters(self, params: Any) -> None:
        """Hand a parameter snapshot to the rule (activation, or live in the loop)."""
        self._live_updates = bool(params.enable_parameter_update_without_reactivation)
        self.rule.set_config(AdmittanceConfig.from_params(params))

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        self.ft_sensor.release_interfaces()
        for handle in self.reference_interfaces:
            handle.value = _NAN
        self.reference_box.set(None)
        self.wrench_reference_box.set(None)
        return CallbackReturn.SUCCESS

    # --- loop -------------------------------------------------------------------------------
    def update_reference_from_subscribers(self, time: Any, period: Any) -> ReturnType:
        reference = self.reference_box.get()
        if reference is None or reference is self._last_box:
            return RETURN_OK
        self._last_box = reference
        for handles, values in zip((self._pos_ref, self._vel_ref), reference):
            if handles and values:
                for handle, value in zip(handles, values):
                    handle.value = value
        return RETURN_OK

    def update_and_write_commands(self, time: Any, period: Any) -> ReturnType:
        new = self.parameters.try_update_rt()
        if new is not None and self._live_updates:
            self._apply_parameters(new)
        ref, last = self._reference, self._last_reference
        for handles, values, kept in (
            (self._pos_ref, ref.positions, last.positions),
            (self._vel_ref, ref.velocities, last.velocities),
        ):
            for i, handle in enumerate(handles):
                value = handle.value
                if value != value:  # NaN: no new reference, keep the last one
                    value = kept[i]
                    handle.value = value
                values[i] = value
        last.positions[:] = ref.positions
        last.velocities[:] = ref.velocities

        current = self._current
        for i, handle in enumerate(self._position_states):
            current[i] = handle.value
        if not np.all(np.isfinite(current)):
            current[:] = self._last_commanded.positions

        wrench = self._wrench
        wrench[:] = self.ft_sensor.get_wrench(self._wrench_list)
        offset = self.wrench_reference_box.get()
        if offset is not None:
            wrench += offset

        desired = self._desired
        problem = self.rule.update(current, wrench, ref, period.nanoseconds * 1e-9, desired)
        if problem:
            self._loop_log.log_rt('error', f'holding the last command: {problem}', time.nanoseconds)
        values = (desired.positions, desired.velocities, desired.accelerations)
        for handles, k in self._commands:
            column = values[k]
            for i, handle in enumerate(handles):
                handle.value = float(column[i])
        self._last_commanded.assign(desired)

        rt = self._status_rt
        if rt.trylock():
            fill_status(rt.msg, self.rule, time.nanoseconds)
            rt.unlock_and_publish()
        return RETURN_OK
