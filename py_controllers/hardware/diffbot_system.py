"""`py_controllers/DiffBotSystem`: simulated wheel motors for a differential-drive base.

Like the DiffBot of ros2_control's demos, every joint is a wheel with one `velocity`
command interface and `position` + `velocity` state interfaces, but the wheels answer
like motors (`diffbot_dynamics`): a first-order response to the command, velocity and
acceleration limits, an encoder that reports whole ticks and a noisy velocity reading.

The wheels' command is 0 (brake to rest through the motor response) while no controller
claims them or the component is not active. A NaN command keeps the last finite one
(0 right after a claim starts); an infinite one makes read() return ERROR. Physics
advance in read() over `period` in fixed steps of `sim_dt`; write() has nothing to send.

`<hardware>` parameters (defaults for every wheel; a joint's own `<param>` of the same
name overrides its default):

    motor_time_constant           0.05   s, first-order lag of wheel velocity (0: none)
    max_wheel_velocity            inf    rad/s (the URDF/interface velocity limit also applies)
    max_wheel_acceleration        inf    rad/s^2 (the URDF acceleration limit also applies)
    encoder_ticks_per_revolution  0      positions reported in whole ticks (0: exact)
    velocity_noise_stddev         0.0    rad/s, Gaussian noise on the reported velocity

`<hardware>`-only parameters:

    sim_dt                        0.001  s, fixed internal integration step
    max_substeps                  1000   cap on steps per read(); the rest is lost
    noise_seed                    0      seed of the noise generator (same seed, same run)
"""

from __future__ import annotations

from typing import Any

from py_controllers.hardware.component_params import float_param, initial_state, joint_bounds
from py_controllers.hardware.diffbot_dynamics import WheelDynamics, WheelParams
from py_controllers.hardware.simulated_component import SimulatedComponent
from py_controllers.hardware_interface.handle import Handle
from py_controllers.hardware_interface.types import (
    HW_IF_POSITION,
    HW_IF_VELOCITY,
    CallbackReturn,
    LifecycleStateId,
    ReturnType,
)

# URDF parameter name -> WheelParams field.
WHEEL_PARAMETERS = {
    'motor_time_constant': 'time_constant_s',
    'max_wheel_velocity': 'max_velocity',
    'max_wheel_acceleration': 'max_acceleration',
    'encoder_ticks_per_revolution': 'ticks_per_revolution',
    'velocity_noise_stddev': 'velocity_noise_stddev',
}


class DiffBotSystem(SimulatedComponent):
    """Velocity-commanded wheels with motor lag, limits, encoder ticks and velocity noise."""

    def _configure_from(self, info: Any) -> None:
        hw = info.hardware_parameters
        where = f"hardware '{info.name}'"
        self._step_parameters(hw, where)
        self.noise_seed = int(float_param(hw, 'noise_seed', 0, where))
        if self.noise_seed < 0:
            raise ValueError(f"{where}: parameter 'noise_seed' must be >= 0")
        base = WheelParams()
        defaults = {
            field: float_param(hw, name, getattr(base, field), where)
            for name, field in WHEEL_PARAMETERS.items()
        }
        self.joint_names: list[str] = []
        self.wheel_params: list[WheelParams] = []
        self._initial_positions: list[float] = []
        for joint in info.joints:
            at = f"joint '{joint.name}'"
            commands = [itf.name for itf in joint.command_interfaces]
            if commands != [HW_IF_VELOCITY]:
                raise ValueError(
                    f"{at}: needs exactly one command interface 'velocity', has {commands}"
                )
            states = sorted(itf.name for itf in joint.state_interfaces)
            if states != [HW_IF_POSITION, HW_IF_VELOCITY]:
                raise ValueError(
                    f"{at}: needs state interfaces 'position' and 'velocity', has {states}"
                )
            own = getattr(joint, 'parameters', None) or {}
            values = {
                field: float_param(own, name, defaults[field], at)
                for name, field in WHEEL_PARAMETERS.items()
            }
            ticks = values['ticks_per_revolution']
            if ticks != int(ticks):
                raise ValueError(f"{at}: 'encoder_ticks_per_revolution' must be a whole number")
            values['ticks_per_revolution'] = int(ticks)
            bounds = joint_bounds(info, joint)
            values['max_velocity'] = min(values['max_velocity'], bounds.max_velocity)
            values['max_acceleration'] = min(values['max_acceleration'], bounds.max_acceleration)
            params = WheelParams(**values)
            params.validate(joint.name)
            self.joint_names.append(joint.name)
            self.wheel_params.append(params)
            self._initial_positions.append(initial_state(joint, HW_IF_POSITION))

    # --- lifecycle ----------------------------------------------------------------
    def on_configure(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Build the wheels at their initial positions (a fresh noise seed) and resolve handles."""
        self.dynamics = WheelDynamics(
            self.wheel_params,
            sim_dt_s=self.sim_dt_s,
            max_substeps=self.max_substeps,
            seed=self.noise_seed,
        )
        self.dynamics.reset(self._initial_positions)
        n = len(self.joint_names)
        self._active = False
        self._claimed = [False] * n
        self._index = {name: i for i, name in enumerate(self.joint_names)}
        self._command_handles = [self.command_interfaces[f'{j}/velocity'] for j in self.joint_names]
        self._position_handles = [self.state_interfaces[f'{j}/position'] for j in self.joint_names]
        self._velocity_handles = [self.state_interfaces[f'{j}/velocity'] for j in self.joint_names]
        self._feeds: list[tuple[int, Handle]] = []
        self._sync()
        self._publish()
        return CallbackReturn.SUCCESS

    def perform_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        """Track which wheels a controller commands; a wheel starts from a 0 command."""
        for names, claimed in ((stop_interfaces, False), (start_interfaces, True)):
            for name in names:
                prefix, _, itf = name.rpartition('/')
                i = self._index.get(prefix)
                if i is not None and itf == HW_IF_VELOCITY:
                    self._claimed[i] = claimed
        self._sync()
        return ReturnType.OK

    def _sync(self) -> None:
        """Feed the claimed wheels while active; every other wheel is commanded 0."""
        was_fed = {i for i, _ in self._feeds}
        feeds = []
        for i, claimed in enumerate(self._claimed):
            fed = self._active and claimed
            if fed:
                feeds.append((i, self._command_handles[i]))
            if not (fed and i in was_fed):
                self.dynamics.command[i] = 0.0
        self._feeds = feeds

    def _publish(self) -> None:
        positions, velocities = self.dynamics.measure()
        for i, handle in enumerate(self._position_handles):
            handle.value = positions[i]
        for i, handle in enumerate(self._velocity_handles):
            handle.value = velocities[i]
