"""``pid_controller/PidController``: one PID per dof, chainable, as ros2_controllers' (rolling).

Commands ``<dof>/<command_interface>`` for every ``dof_names`` entry from references and
states named by ``reference_and_state_dof_names`` (default: ``dof_names``) and
``reference_and_state_interfaces`` (1 or 2; the second is the derivative of the first).

* Exports reference interfaces and state interfaces ``<controller>/<ref_dof>/<interface>``
  (interface-major, NaN at activation). Another controller (a ForwardCommandController
  with ``joints: [<controller>/<ref_dof>]``, a trajectory controller, ...) may claim the
  references; the controller is then chained and ignores ``~/reference``.
* ``~/reference`` (control_msgs/MultiDOFCommand, keep-last 1, best effort): names empty with
  one value per dof (taken in order) or one name and value per dof (any order); NaN leaves
  that dof's reference as it was; ``values_dot`` (empty or one per dof) feeds the second
  interface. Each message is applied once. A value whose product with a gain would
  overflow (p, d or feedforward_gain times it is not finite, e.g. 1e308 with p = 4) is
  refused with the message, as an infinite one is (:meth:`DofPid.overflow_problem`); what
  can still overflow in the loop (the error against a huge measurement, the integral)
  saturates at +-max float, so the commands stay finite.
* ``~/measured_state`` (MultiDOFCommand) replaces the state interfaces with
  ``use_external_measured_states``.
* ``~/controller_state`` (control_msgs/MultiDOFStateStamped) every update; with
  ``gains.<dof>.activate_state_publisher`` also ``~/<dof>/pid_state`` (control_msgs/PidState).
* ``~/set_feedforward_control`` (std_srvs/SetBool, jazzy, deprecated): switches the
  feed-forward term on or off, as the ``enable_feedforward`` parameter does. Both default to
  on, so ``feedforward_gain`` alone decides, as in kilted/rolling (jazzy defaulted to off).

``gains.<dof>.*`` (PID gains, ``feedforward_gain``, ``angle_wraparound``) may be changed at
runtime; the loop picks up each new parameter snapshot.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from control_msgs.msg import MultiDOFCommand, MultiDOFStateStamped, PidState, SingleDOFState
from rclpy.qos import (
    HistoryPolicy,
    QoSProfile,
    ReliabilityPolicy,
    qos_profile_sensor_data,
    qos_profile_services_default,
)
from std_srvs.srv import SetBool

from py_controllers.control_toolbox.pid_parameters import gains_from_parameters, gains_problem
from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controller_interface.loop_log import LoopLog
from py_controllers.controllers.pid_controller.dof_pid import DofPid
from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox, RealtimePublisher
from py_controllers.realtime_tools.serialized_message import SerializedMessage
from py_controllers.ros_conversions import set_duration, set_stamp

_NAN = math.nan
_DOF_FIELDS = ('reference', 'feedback', 'feedback_dot', 'error', 'error_dot', 'time_step', 'output')
_PID_FIELDS = ('error', 'error_dot', 'i_term', 'p_gain', 'i_gain', 'd_gain', 'output')


class _PidStatePublisher(RealtimePublisher):
    """One DOF's ~/<dof>/pid_state, serialized once; `fields`: its stamp, timestep and
    values (_PID_FIELDS order)."""

    def __init__(self, publisher: Any) -> None:
        msg = PidState()
        serialized = SerializedMessage(msg)
        super().__init__(publisher, serialized)
        self.fields = (
            serialized.time(msg.header.stamp),
            serialized.time(msg.timestep),
            serialized.scalars(msg, _PID_FIELDS),
        )


_INPUT_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST, depth=1, reliability=ReliabilityPolicy.BEST_EFFORT
)

# (values, values_dot) in reference/state dof order; values_dot all NaN when absent.
_Values = tuple[tuple[float, ...], tuple[float, ...]]


class PidController(ChainableControllerInterface):
    """PID per dof with feed-forward; chainable through its reference interfaces."""

    SCHEMA = Path(__file__).parent / 'pid_controller_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(
            self.get_node(),
            self.SCHEMA,
            consistency=lambda p: gains_problem(
                {f'gains.{d}.': p.gains[d] for d in p.dof_names if d in p.gains}
            ),
        )
        self.dof_names: list[str] = []
        self.reference_and_state_dof_names: list[str] = []
        self.interfaces: list[str] = []
        self.dofs: list[DofPid] = []
        self._params: Any = None
        #: The newest valid ~/reference, (values, values_dot) in dof order; None after activation.
        self.reference_box: RealtimeBox[_Values | None] = self.topic_reference_box()
        #: The newest valid ~/measured_state (with use_external_measured_states), like above.
        self.measured_state_box: RealtimeBox[_Values | None] = RealtimeBox(None)
        #: The jazzy feed-forward switch (service / enable_feedforward); read by the loop.
        self.feedforward_enabled = True
        self._gains_error = ''
        return CallbackReturn.SUCCESS

    # --- configuration --------------------------------------------------------------
    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        ref_names = list(params.reference_and_state_dof_names) or list(params.dof_names)
        if len(ref_names) != len(params.dof_names):
            log.error(
                f"'dof_names' ({len(params.dof_names)}) and 'reference_and_state_dof_names' "
                f'({len(ref_names)}) must have the same size'
            )
            return CallbackReturn.ERROR
        self.dof_names = list(params.dof_names)
        self.reference_and_state_dof_names = ref_names
        self.interfaces = list(params.reference_and_state_interfaces)
        self.n = len(self.dof_names)
        self.two_interfaces = len(self.interfaces) == 2
        self.external_states = bool(params.use_external_measured_states)
        try:
            self.dofs = [
                DofPid(gains_from_parameters(params.gains[d], prefix=f'gains.{d}.'))
                for d in self.dof_names
            ]
        except (KeyError, ValueError) as exc:
            log.error(f'invalid gains: {exc}')
            return CallbackReturn.ERROR
        self._apply_dof_options(params)
        self._params = params
        self.feedforward_enabled = bool(params.enable_feedforward)
        self._create_ros_entities(params)
        self._loop_log = LoopLog(self.get_node())  # update() never logs through rcl
        return CallbackReturn.SUCCESS

    def _apply_dof_options(self, params: Any) -> None:
        for name, dof in zip(self.dof_names, self.dofs):
            group = params.gains[name]
            dof.feedforward_gain = float(group.feedforward_gain)
            dof.angle_wraparound = bool(group.angle_wraparound)
            dof.two_interfaces = self.two_interfaces
        self.save_i_term = [bool(params.gains[d].save_i_term) for d in self.dof_names]

    def _create_ros_entities(self, params: Any) -> None:
        node = self.get_node()
        node.create_subscription(MultiDOFCommand, '~/reference', self._on_reference, _INPUT_QOS)
        node.create_service(
            SetBool,
            '~/set_feedforward_control',
            self._on_set_feedforward,
            qos_profile=qos_profile_services_default,
        )
        if self.external_states:
            node.create_subscription(
                MultiDOFCommand, '~/measured_state', self._on_measured_state, _INPUT_QOS
            )
        self._state_pub = node.create_publisher(MultiDOFStateStamped, '~/controller_state', 10)
        self._pid_state_pubs: list[Any] = [
            node.create_publisher(PidState, f'~/{name}/pid_state', qos_profile_sensor_data)
            if params.gains[name].activate_state_publisher
            else None
            for name in self.dof_names
        ]

    def on_cleanup(self, previous_state: Any) -> CallbackReturn:
        self.dofs = []
        return CallbackReturn.SUCCESS

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(
            [f'{d}/{self._params.command_interface}' for d in self.dof_names]
        )

    def state_interface_configuration(self) -> InterfaceConfiguration:
        if self.external_states:
            return InterfaceConfiguration.none()
        return InterfaceConfiguration.individual(
            [f'{d}/{i}' for i in self.interfaces for d in self.reference_and_state_dof_names]
        )

    def on_export_reference_interfaces(self) -> list[CommandInterface]:
        return [
            CommandInterface(f'{self.name}/{d}', i, _NAN)
            for i in self.interfaces
            for d in self.reference_and_state_dof_names
        ]

    def on_export_state_interfaces(self) -> list[StateInterface]:
        return [
            StateInterface(f'{self.name}/{d}', i, _NAN)
            for i in self.interfaces
            for d in self.reference_and_state_dof_names
        ]

    # --- input (executor thread) ----------------------------------------------------
    def _error(self, text: str) -> None:
        self.get_node().get_logger().error(text, throttle_duration_sec=1.0)

    def _ordered(self, msg: MultiDOFCommand, what: str) -> _Values | None:
        """Values of ``msg`` in reference/state dof order, or None after logging why not."""
        names = self.reference_and_state_dof_names
        n = len(names)
        if len(msg.values) != n or (msg.dof_names and len(msg.dof_names) != n):
            self._error(
                f'{what} rejected: {len(msg.dof_names)} names and {len(msg.values)} values, '
                f'expected {n} values (and no names or {n} names) for {names}'
            )
            return None
        dot = list(msg.values_dot)
        if dot and len(dot) != n:
            self._error(f'{what} rejected: {len(dot)} values_dot, expected 0 or {n}')
            return None
        values = list(msg.values)
        if any(math.isinf(v) for v in (*values, *dot)):
            self._error(f'{what} rejected: infinite value in {values} / {dot}')
            return None
        if not dot:
            dot = [_NAN] * n
        if msg.dof_names and list(msg.dof_names) != names:
            index = {name: i for i, name in enumerate(msg.dof_names)}
            missing = [name for name in names if name not in index]
            if missing:
                self._error(f'{what} rejected: unknown dof names {list(msg.dof_names)}')
                return None
            values = [values[index[name]] for name in names]
            dot = [dot[index[name]] for name in names]
        for name, dof, value, value_dot in zip(names, self.dofs, values, dot):
            problem = dof.overflow_problem(value, value_dot)
            if problem:
                self._error(f'{what} rejected: {name}: {problem}')
                return None
        return tuple(values), tuple(dot)

    def _on_reference(self, msg: MultiDOFCommand) -> None:
        if not msg.dof_names and len(msg.values) == self.n:
            self.get_node().get_logger().warning(
                'reference without dof_names: values taken in the order of '
                f'{self.reference_and_state_dof_names}',
                throttle_duration_sec=10.0,
            )
        values = self._ordered(msg, 'reference')
        if values is not None:
            self.reference_box.set(values)

    def _on_measured_state(self, msg: MultiDOFCommand) -> None:
        if msg.values_dot and not self.two_interfaces:
            self._error(
                'measured_state rejected: values_dot needs two reference_and_state_interfaces '
                '(the interface and its derivative)'
            )
            return
        values = self._ordered(msg, 'measured_state')
        if values is not None:
            self.measured_state_box.set(values)

    def _on_set_feedforward(self, request: Any, response: Any) -> Any:
        self.get_node().get_logger().warning(
            '~/set_feedforward_control is deprecated: set gains.<dof>.feedforward_gain instead '
            '(0 disables the feed-forward term)'
        )
        self.feedforward_enabled = bool(request.data)
        response.success = True
        response.message = f'feed-forward {"enabled" if request.data else "disabled"}'
        return response

    # --- activation -----------------------------------------------------------------
    def on_set_chained_mode(self, chained: bool) -> bool:
        return True

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        n = self.n
        self._commands = list(self.command_interfaces)
        self._states = list(self.state_interfaces)
        self.reference_box.set(None)
        self._last_reference: _Values | None = None
        self.measured_state_box.set(None)
        self._measured = [_NAN] * (n * len(self.interfaces))
        for handle in (*self.reference_interfaces, *self.exported_state_interfaces):
            handle.value = _NAN
        # With external states nothing is known yet (the box was just emptied), as upstream.
        if self._params.set_current_state_as_first_setpoint and not self.external_states:
            for ref, state in zip(self.reference_interfaces, self._states):
                ref.value = state.value
        for dof, keep in zip(self.dofs, self.save_i_term):
            dof.pid.reset(keep)
        msg = MultiDOFStateStamped()
        msg.dof_states = [SingleDOFState(name=d) for d in self.reference_and_state_dof_names]
        state_msg = SerializedMessage(msg)
        self._state_stamp = state_msg.time(msg.header.stamp)
        self._dof_rows = [state_msg.scalars(s, _DOF_FIELDS) for s in msg.dof_states]
        self._state_rt = RealtimePublisher(self._state_pub, state_msg)
        self._pid_state_rts = [
            None if pub is None else _PidStatePublisher(pub) for pub in self._pid_state_pubs
        ]
        return CallbackReturn.SUCCESS

    # --- loop -----------------------------------------------------------------------
    def update_reference_from_subscribers(self, time: Any, period: Any) -> ReturnType:
        reference = self.reference_box.get()
        if reference is None or reference is self._last_reference:
            return RETURN_OK
        self._last_reference = reference
        values, values_dot = reference
        refs = self.reference_interfaces
        n = self.n
        two = self.two_interfaces
        for i in range(n):
            value = values[i]
            if value == value:
                refs[i].value = value
                if two:
                    value_dot = values_dot[i]
                    if value_dot == value_dot:
                        refs[n + i].value = value_dot
        return RETURN_OK

    def _refresh_parameters_rt(self, now_ns: int) -> None:
        """Apply a new parameter snapshot (loop side; only when one was accepted)."""
        params = self.parameters.try_update_rt()
        if params is None:
            return
        old = self._params
        self._params = params
        if params.enable_feedforward != old.enable_feedforward:
            self.feedforward_enabled = bool(params.enable_feedforward)
        self._apply_dof_options(params)
        errors = []
        for name, dof in zip(self.dof_names, self.dofs):
            try:
                gains = gains_from_parameters(params.gains[name], prefix=f'gains.{name}.')
            except ValueError as exc:
                errors.append(str(exc))
                continue
            if not dof.pid.set_gains(gains):
                errors.append(f'gains.{name}: {dof.pid.last_gains_error}')
        self._gains_error = '; '.join(errors)
        if errors:
            self._loop_log.log_rt(
                'error', f'new PID gains ignored, keeping the old ones: {self._gains_error}', now_ns
            )

    def update_and_write_commands(self, time: Any, period: Any) -> ReturnType:
        self._refresh_parameters_rt(time.nanoseconds)
        dt_s = period.nanoseconds * 1e-9
        n = self.n
        two = self.two_interfaces
        measured = self._measured
        if self.external_states:
            box = self.measured_state_box.get()
            if box is not None:
                values, values_dot = box
                for i in range(n):
                    measured[i] = values[i]
                    if two:
                        measured[n + i] = values_dot[i]
        else:
            for i, handle in enumerate(self._states):
                measured[i] = handle.value
        for handle, value in zip(self.exported_state_interfaces, measured):
            handle.value = value

        refs = self.reference_interfaces
        commands = self._commands
        feedforward = self.feedforward_enabled
        for i, dof in enumerate(self.dofs):
            if two:
                output = dof.step(
                    refs[i].value,
                    refs[n + i].value,
                    measured[i],
                    measured[n + i],
                    dt_s,
                    feedforward=feedforward,
                )
            else:
                output = dof.step(
                    refs[i].value, _NAN, measured[i], _NAN, dt_s, feedforward=feedforward
                )
            if output == output:
                commands[i].value = output

        self._publish_state_rt(time.nanoseconds, dt_s)
        return RETURN_OK

    def _publish_state_rt(self, now_ns: int, dt_s: float) -> None:
        n = self.n
        two = self.two_interfaces
        refs = self.reference_interfaces
        measured = self._measured
        rt = self._state_rt
        if rt.trylock():
            set_stamp(self._state_stamp, now_ns)
            for i, row in enumerate(self._dof_rows):
                reference = refs[i].value
                error = self.dofs[i].error(reference, measured[i])
                feedback_dot = error_dot = 0.0
                if two:
                    feedback_dot = measured[n + i]
                    error_dot = refs[n + i].value - measured[n + i]
                output = self._commands[i].value
                row[:] = (reference, measured[i], feedback_dot, error, error_dot, dt_s, output)
            rt.unlock_and_publish()
        for dof, pid_rt in zip(self.dofs, self._pid_state_rts):
            if pid_rt is None or not pid_rt.trylock():
                continue
            pid = dof.pid
            p_error, i_term, d_error = pid.get_current_pid_errors()
            gains = pid.get_gains()
            stamp, timestep, values = pid_rt.fields
            set_stamp(stamp, now_ns)
            set_duration(timestep, dt_s)
            values[:] = (p_error, d_error, i_term, gains.p, gains.i, gains.d, pid.get_current_cmd())
            pid_rt.unlock_and_publish()
