"""`py_controllers/SimulatedSystem`: joints with inertia, damping, friction and gravity.

A drop-in replacement for `mock_components/GenericSystem` when controllers should meet
some physics: effort commands accelerate the joints, velocity and position commands go
through ideal inner servos, and the URDF limits act as hard stops and saturations. The
math lives in `joint_dynamics`; this module maps it onto handles and command modes.

Command modes. A joint's mode is the command interface (`position`, `velocity` or
`effort`) an active controller claims on it; claiming two on one joint is refused. A
joint nobody claims, or any joint while the component is not active, is passive: zero
motor effort, so it coasts to rest under damping and friction (and sags under gravity),
unless it has a holding brake, which keeps it still until a controller claims it.

Hold on release: a joint whose claim ends (stopped in a command mode switch, or the
component deactivated) goes back to that pre-claim behaviour at once: with a holding
brake it stands still where it is (the demo arm: no sag), without one it is passive.

NaN commands mean "no command yet": the joint keeps the last finite command of its mode,
and right after its mode starts that is a hold (position: where it is; velocity: 0;
effort: 0). An infinite command makes read() return ERROR.

Physics advance in read(): the states it reports are the result of the commands the
controllers wrote in the previous cycle, integrated over `period` in fixed steps of
`sim_dt`. write() has nothing to send.

`<hardware>` parameters (defaults for every joint; a joint's own `<param>` of the same
name overrides its default):

    inertia                 0.1    kg m^2 (or kg for a prismatic joint), > 0
    damping                 0.05   viscous damping, N m s/rad
    friction                0.0    Coulomb friction, N m (breakaway = stopping effort)
    gravity                 0.0    gravity load amplitude: the load is -gravity*cos(q)
    velocity_time_constant  0.01   s, velocity servo lag (0: follows at once)
    position_time_constant  0.0    s, position servo lag (0: reaches it in one sim step)
    holding_brake           false  true: held still while passive (an arm's brake: no sag
                                   under gravity before its controller starts)

`<hardware>`-only parameters:

    sim_dt                  0.001  s, fixed internal integration step
    max_substeps            1000   cap on steps per read(); the rest of a long stall is lost

Limits: position (hard stop), velocity and effort come from `info.limits` (the URDF
`<limit>` tightened by the command interfaces' min/max) or, without it, from the
command interfaces' min/max alone. Initial position and velocity come from the state
interfaces' `initial_value` (position falls back to the position command's), else 0.

GPIOs (`<gpio>`). A command interface with a state interface of the same name is an
output (a digital output, say): while the component is active its state takes the last
finite command in read() (NaN keeps it; infinite makes read() return ERROR, as for joints).
Every other gpio state interface is an input (an analog input, say) that the simulation
produces as a function of the simulated time t (the sum of the read() periods since
configure):

    value(t) = initial_value + amplitude * sin(2 pi frequency t)

with `initial_value` (default 0), `amplitude` (default 0) and `frequency` (Hz, default 0)
as `<param>`s of the state interface: a constant unless an amplitude is given. An
output's state starts at its `initial_value`, else 0. For example:

    <gpio name="tool_io">
      <command_interface name="digital_output"/>
      <state_interface name="digital_output"/>
      <state_interface name="analog_input">
        <param name="initial_value">2.5</param>
        <param name="amplitude">0.5</param>
        <param name="frequency">0.2</param>
      </state_interface>
    </gpio>

Sensors (`<sensor>`): force-torque sensors, with any of the interfaces `force.x .y .z`,
`torque.x .y .z` (the ForceTorqueSensor semantic component's names), for a sensor between
a joint (the wrist) and a tool. A deliberately simple model, not the arm's statics:

    force.z  = -tool_mass * 9.81      the tool's weight, as if the sensor's z axis pointed
                                      up whatever the arm's pose
    torque.z = effort of `joint`      the motor effort the simulation applies to that joint
    force.x, force.y, torque.x, torque.y = 0

with the sensor's `<param>`s `tool_mass` (kg, >= 0, default 0) and `joint` (default: the
last `<joint>` of the component). Other sensor interfaces are refused at init.

    <sensor name="wrist_ft">
      <param name="tool_mass">0.5</param>
      <state_interface name="force.x"/> ... <state_interface name="torque.z"/>
    </sensor>
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from py_controllers.hardware.component_params import (
    bool_param,
    float_param,
    initial_state,
    joint_bounds,
)
from py_controllers.hardware.joint_dynamics import (
    MODE_EFFORT,
    MODE_PASSIVE,
    MODE_POSITION,
    MODE_VELOCITY,
    JointDynamics,
    JointParams,
)
from py_controllers.hardware.simulated_component import OneCommandPerJoint, SimulatedComponent
from py_controllers.hardware_interface.handle import Handle
from py_controllers.hardware_interface.hardware_component import initial_value
from py_controllers.hardware_interface.types import (
    HW_IF_ACCELERATION,
    HW_IF_EFFORT,
    HW_IF_POSITION,
    HW_IF_VELOCITY,
    RETURN_OK,
    CallbackReturn,
    LifecycleStateId,
    ReturnType,
)

_MODE_CODES = {
    HW_IF_EFFORT: MODE_EFFORT,
    HW_IF_VELOCITY: MODE_VELOCITY,
    HW_IF_POSITION: MODE_POSITION,
}
_STATE_NAMES = (HW_IF_POSITION, HW_IF_VELOCITY, HW_IF_EFFORT, HW_IF_ACCELERATION)

# URDF parameter name -> JointParams field.
JOINT_PARAMETERS = {
    'inertia': 'inertia',
    'damping': 'damping',
    'friction': 'friction',
    'gravity': 'gravity',
    'velocity_time_constant': 'velocity_time_constant_s',
    'position_time_constant': 'position_time_constant_s',
}


@dataclass(frozen=True)
class GpioInput:
    """A simulated gpio input: `offset + amplitude * sin(2 pi frequency_hz t)`."""

    name: str  # <gpio>/<state_interface>
    offset: float = 0.0
    amplitude: float = 0.0
    frequency_hz: float = 0.0

    def value_at(self, t_s: float) -> float:
        """The input's value at simulated time `t_s`."""
        if self.amplitude == 0.0:
            return self.offset
        return self.offset + self.amplitude * math.sin(2.0 * math.pi * self.frequency_hz * t_s)


def gpio_signals(gpios: Any) -> tuple[list[tuple[str, float]], list[GpioInput]]:
    """The outputs ((name, initial state)) and inputs of `<gpio>` descriptions.

    Raises ValueError for a parameter that is not a finite number.
    """
    outputs: list[tuple[str, float]] = []
    inputs: list[GpioInput] = []
    for gpio in gpios:
        commanded = {itf.name for itf in gpio.command_interfaces}
        for itf in gpio.state_interfaces:
            name = f'{gpio.name}/{itf.name}'
            where = f"gpio state interface '{name}'"
            own = getattr(itf, 'parameters', None) or {}
            start = initial_value(itf.initial_value, name)
            start = 0.0 if math.isnan(start) else start
            amplitude = float_param(own, 'amplitude', 0.0, where)
            frequency = float_param(own, 'frequency', 0.0, where)
            for what, value in (
                ('initial_value', start),
                ('amplitude', amplitude),
                ('frequency', frequency),
            ):
                if not math.isfinite(value):
                    raise ValueError(f"{where}: parameter '{what}' must be finite, got {value}")
            if itf.name in commanded:
                outputs.append((name, start))
            else:
                inputs.append(GpioInput(name, start, amplitude, frequency))
    return outputs, inputs


# --- sensors: force-torque ----------------------------------------------------------------
FORCE_TORQUE_INTERFACES = ('force.x', 'force.y', 'force.z', 'torque.x', 'torque.y', 'torque.z')
STANDARD_GRAVITY = 9.81  # m/s^2


@dataclass(frozen=True)
class ForceTorqueSensorModel:
    """A simulated wrist force-torque sensor (see the module docstring)."""

    name: str
    interfaces: tuple[str, ...]  # the subset of FORCE_TORQUE_INTERFACES it has
    tool_mass_kg: float
    joint_index: int

    def wrench(self, effort: Any) -> tuple[float, float, float, float, float, float]:
        """(force x, y, z, torque x, y, z) from the joints' applied efforts."""
        weight = -self.tool_mass_kg * STANDARD_GRAVITY
        return (0.0, 0.0, weight, 0.0, 0.0, effort[self.joint_index])


def force_torque_sensors(sensors: Any, joint_names: list[str]) -> list[ForceTorqueSensorModel]:
    """The force-torque sensor models of `<sensor>` descriptions; ValueError naming the
    sensor and the parameter or interface at fault."""
    models = []
    for sensor in sensors:
        where = f"sensor '{sensor.name}'"
        names = tuple(itf.name for itf in sensor.state_interfaces)
        for name in names:
            if name not in FORCE_TORQUE_INTERFACES:
                raise ValueError(
                    f"{where}: state interface '{name}' is not simulated; "
                    'py_controllers/SimulatedSystem simulates force-torque sensors '
                    f'({", ".join(FORCE_TORQUE_INTERFACES)})'
                )
        own = getattr(sensor, 'parameters', None) or {}
        mass = float_param(own, 'tool_mass', 0.0, where)
        if not (math.isfinite(mass) and mass >= 0.0):
            raise ValueError(f"{where}: parameter 'tool_mass' must be finite and >= 0")
        joint = own.get('joint') or (joint_names[-1] if joint_names else '')
        if joint not in joint_names:
            raise ValueError(
                f"{where}: parameter 'joint' must name one of the joints {joint_names}, "
                f'got {joint!r}'
            )
        models.append(ForceTorqueSensorModel(sensor.name, names, mass, joint_names.index(joint)))
    return models


class SimulatedSystem(OneCommandPerJoint, SimulatedComponent):
    """Joints simulated as rigid bodies, commanded in effort, velocity or position mode."""

    def _configure_from(self, info: Any) -> None:
        hw = info.hardware_parameters
        where = f"hardware '{info.name}'"
        self._step_parameters(hw, where)
        base = JointParams()
        defaults = {
            field: float_param(hw, name, getattr(base, field), where)
            for name, field in JOINT_PARAMETERS.items()
        }
        brake = bool_param(hw, 'holding_brake', base.holding_brake, where)
        self.joint_names: list[str] = []
        self.joint_params: list[JointParams] = []
        self._initial_positions: list[float] = []
        self._initial_velocities: list[float] = []
        for joint in info.joints:
            at = f"joint '{joint.name}'"
            for itf in joint.command_interfaces:
                if itf.name not in _MODE_CODES:
                    raise ValueError(
                        f"{at}: command interface '{itf.name}' is not simulated "
                        f'(use position, velocity or effort)'
                    )
            own = getattr(joint, 'parameters', None) or {}
            values = {
                field: float_param(own, name, defaults[field], at)
                for name, field in JOINT_PARAMETERS.items()
            }
            bounds = joint_bounds(info, joint)
            params = JointParams(
                **values,
                holding_brake=bool_param(own, 'holding_brake', brake, at),
                lower=bounds.lower,
                upper=bounds.upper,
                max_velocity=bounds.max_velocity,
                max_effort=bounds.max_effort,
            )
            params.validate(joint.name)
            self.joint_names.append(joint.name)
            self.joint_params.append(params)
            self._initial_positions.append(initial_state(joint, HW_IF_POSITION, True))
            self._initial_velocities.append(initial_state(joint, HW_IF_VELOCITY))
        self._gpio_output_spec, self._gpio_input_spec = gpio_signals(getattr(info, 'gpios', []))
        self._force_torque_models = force_torque_sensors(
            getattr(info, 'sensors', None) or [], self.joint_names
        )

    # --- lifecycle ----------------------------------------------------------------
    def on_configure(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Build the simulation at the initial state and resolve every handle once."""
        self.dynamics = JointDynamics(
            self.joint_params, sim_dt_s=self.sim_dt_s, max_substeps=self.max_substeps
        )
        self.dynamics.reset(self._initial_positions, self._initial_velocities)
        self._active = False
        self._claimed: list[str | None] = [None] * len(self.joint_names)
        self._index = {name: i for i, name in enumerate(self.joint_names)}
        self._commands: list[dict[str, Handle]] = [
            {
                itf: self.command_interfaces[f'{name}/{itf}']
                for itf in _MODE_CODES
                if f'{name}/{itf}' in self.command_interfaces
            }
            for name in self.joint_names
        ]
        # Per state array: its handles joint by joint, and the (joint index, handle) pairs
        # when some joint lacks that state (else None: written in one zip).
        self._outputs: list[tuple[int, list[Handle], list[tuple[int, Handle]] | None]] = []
        for k, itf in enumerate(_STATE_NAMES):
            found = [self.state_interfaces.get(f'{name}/{itf}') for name in self.joint_names]
            pairs = [(i, h) for i, h in enumerate(found) if h is not None]
            if pairs:
                whole = len(pairs) == len(found)
                self._outputs.append((k, [h for _, h in pairs], None if whole else pairs))
        self._feeds: list[tuple[int, Handle]] = []
        self._configure_sensors()
        self._sync()
        self._publish()
        self._configure_gpios()
        return CallbackReturn.SUCCESS

    # --- gpios ----------------------------------------------------------------------
    def _configure_gpios(self) -> None:
        """Resolve the gpio handles once and put every gpio state at its value at t = 0."""
        states, commands = self.state_interfaces, self.command_interfaces
        self._gpio_time_ns = 0
        self._gpio_outputs: list[tuple[Handle, Handle]] = []
        for name, start in self._gpio_output_spec:
            states[name].value = start
            self._gpio_outputs.append((commands[name], states[name]))
        self._gpio_inputs = [(states[s.name], s) for s in self._gpio_input_spec]
        for handle, signal in self._gpio_inputs:
            handle.value = signal.value_at(0.0)

    def _read_gpios_rt(self, period_ns: int) -> ReturnType:
        """Outputs follow their commands (while active); inputs move on by `period_ns`."""
        if self._active:
            for command, state in self._gpio_outputs:
                value = command.value
                if value != value:  # NaN: no command yet, keep the state
                    continue
                if math.isinf(value):
                    self.log_rt('error', f"'{command.name}' is infinite; refusing to simulate it")
                    return ReturnType.ERROR
                state.value = value
        self._gpio_time_ns += period_ns
        t_s = self._gpio_time_ns * 1e-9
        for handle, signal in self._gpio_inputs:
            handle.value = signal.value_at(t_s)
        return RETURN_OK

    def read(self, time: Any, period: Any) -> ReturnType:
        """Joints as in SimulatedComponent.read(), then the gpios."""
        result = super().read(time, period)
        if result != RETURN_OK:
            return result
        return self._read_gpios_rt(period.nanoseconds)

    # --- command modes ------------------------------------------------------------
    def _commandable(self, i: int, kind: str) -> bool:
        return kind in _MODE_CODES

    def perform_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        """Put each joint in the mode of the interface now claimed on it (passive if none)."""
        try:
            self._claimed = self._claims_after(start_interfaces, stop_interfaces)
        except ValueError as exc:
            self.log_rt('error', str(exc))
            return ReturnType.ERROR
        self._sync()
        return ReturnType.OK

    def _sync(self) -> None:
        """Apply the claims to the simulation; a joint entering a mode starts by holding."""
        dyn = self.dynamics
        feeds = []
        for i, itf in enumerate(self._claimed):
            mode = _MODE_CODES[itf] if self._active and itf is not None else MODE_PASSIVE
            if mode != dyn.mode[i]:
                dyn.set_mode(i, mode)
                dyn.command[i] = dyn.position[i] if mode == MODE_POSITION else 0.0
            if mode != MODE_PASSIVE:
                feeds.append((i, self._commands[i][itf]))
        self._feeds = feeds

    def _publish(self) -> None:
        dyn = self.dynamics
        arrays = (dyn.position, dyn.velocity, dyn.effort, dyn.acceleration)
        for k, handles, pairs in self._outputs:
            values = arrays[k]
            if pairs is None:
                for handle, value in zip(handles, values):
                    handle.value = value
            else:
                for i, handle in pairs:
                    handle.value = values[i]
        self._publish_sensors_rt()

    # --- sensors --------------------------------------------------------------------------
    def _configure_sensors(self) -> None:
        """Resolve the force-torque sensors' handles once."""
        self._sensor_outputs = []
        for model in self._force_torque_models:
            handles = [
                (self.state_interfaces[f'{model.name}/{itf}'], FORCE_TORQUE_INTERFACES.index(itf))
                for itf in model.interfaces
            ]
            self._sensor_outputs.append((model, handles))

    def _publish_sensors_rt(self) -> None:
        """Write every sensor's readings from the joints' new state."""
        effort = self.dynamics.effort
        for model, handles in self._sensor_outputs:
            wrench = model.wrench(effort)
            for handle, k in handles:
                handle.value = wrench[k]
