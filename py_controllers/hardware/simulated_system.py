"""`py_controllers/SimulatedSystem`: joints with inertia, damping, friction and gravity.

A drop-in replacement for `mock_components/GenericSystem` when controllers should meet
some physics: effort commands accelerate the joints, velocity and position commands go
through ideal inner servos, and the URDF limits act as hard stops and saturations. The
math lives in `joint_dynamics`; this module maps it onto handles and command modes.

Command modes. A joint's mode is the command interface (`position`, `velocity` or
`effort`) an active controller claims on it; claiming two on one joint is refused. A
joint nobody claims, or any joint while the component is not active, is passive: zero
motor effort, so it coasts to rest under damping and friction (and sags under gravity).

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

`<hardware>`-only parameters:

    sim_dt                  0.001  s, fixed internal integration step
    max_substeps            1000   cap on steps per read(); the rest of a long stall is lost

Limits: position (hard stop), velocity and effort come from `info.limits` (the URDF
`<limit>` tightened by the command interfaces' min/max) or, without it, from the
command interfaces' min/max alone. Initial position and velocity come from the state
interfaces' `initial_value` (position falls back to the position command's), else 0.
"""

from __future__ import annotations

from typing import Any

from py_controllers.hardware.component_params import float_param, initial_state, joint_bounds
from py_controllers.hardware.joint_dynamics import (
    MODE_EFFORT,
    MODE_PASSIVE,
    MODE_POSITION,
    MODE_VELOCITY,
    JointDynamics,
    JointParams,
)
from py_controllers.hardware.simulated_component import SimulatedComponent
from py_controllers.hardware_interface.handle import Handle
from py_controllers.hardware_interface.types import (
    HW_IF_ACCELERATION,
    HW_IF_EFFORT,
    HW_IF_POSITION,
    HW_IF_VELOCITY,
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


class SimulatedSystem(SimulatedComponent):
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
        # (handle, which state array, joint index) for every state read() fills.
        self._outputs: list[tuple[Handle, int, int]] = []
        for i, name in enumerate(self.joint_names):
            for k, itf in enumerate(_STATE_NAMES):
                handle = self.state_interfaces.get(f'{name}/{itf}')
                if handle is not None:
                    self._outputs.append((handle, k, i))
        self._feeds: list[tuple[int, Handle]] = []
        self._sync()
        self._publish()
        return CallbackReturn.SUCCESS

    # --- command modes ------------------------------------------------------------
    def _claims_after(self, start: list[str], stop: list[str]) -> list[str | None]:
        """The mode of every joint once `stop` is released and `start` claimed.

        Raises ValueError when a joint would end up with two modes.
        """
        claimed = list(self._claimed)
        for name in stop:
            prefix, _, itf = name.rpartition('/')
            i = self._index.get(prefix)
            if i is not None and claimed[i] == itf:
                claimed[i] = None
        starting: dict[int, str] = {}
        for name in start:
            prefix, _, itf = name.rpartition('/')
            i = self._index.get(prefix)
            if i is None or itf not in _MODE_CODES:
                continue
            other = starting.get(i) or claimed[i]
            if other is not None and other != itf:
                raise ValueError(
                    f"joint '{prefix}': cannot command '{itf}' and '{other}' at the same "
                    f'time; only one of position, velocity, effort per joint'
                )
            starting[i] = itf
        for i, itf in starting.items():
            claimed[i] = itf
        return claimed

    def prepare_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        """Refuse a switch that would leave a joint commanded in two modes."""
        try:
            self._claims_after(start_interfaces, stop_interfaces)
        except ValueError as exc:
            self._log().error(str(exc))
            return ReturnType.ERROR
        return ReturnType.OK

    def perform_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        """Put each joint in the mode of the interface now claimed on it (passive if none)."""
        try:
            self._claimed = self._claims_after(start_interfaces, stop_interfaces)
        except ValueError as exc:
            self._log().error(str(exc))
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
        for handle, k, i in self._outputs:
            handle.value = arrays[k][i]
