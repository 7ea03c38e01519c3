"""`py_controllers/DiffBotSystem`: simulated wheel motors for a differential-drive base.

Like the DiffBot of ros2_control's demos, every joint is a wheel with one `velocity`
command interface and `position` + `velocity` state interfaces, but the wheels answer
like motors (`diffbot_dynamics`): a first-order response to the command, velocity and
acceleration limits, an encoder that reports whole ticks and a noisy velocity reading.

The wheels' command is 0 (brake to rest through the motor response) while no controller
claims them or the component is not active: before the first claim, and on release (a
claim that ends, or the component deactivated). A NaN command keeps the last finite one
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

Sensors (`<sensor>`): an IMU at the midpoint of the driven wheels' axle, with any of the
ten interfaces `orientation.x .y .z .w`, `angular_velocity.x .y .z`, `linear_acceleration.x
.y .z` (the IMUSensor semantic component's names). It reads the true (noise-free) wheel
motion of the simulation, as a base without slip moves:

    yaw                    = r ((q_R - q_R0) - (q_L - q_L0)) / s    (0 at configure)
    orientation            = (0, 0, sin(yaw / 2), cos(yaw / 2))
    angular_velocity       = (0, 0, r (w_R - w_L) / s)              (the odometry's)
    linear_acceleration.x  = change of v = r (w_L + w_R) / 2 over the simulated time
    linear_acceleration.y  = v * angular_velocity.z                  (centripetal)
    linear_acceleration.z  = +9.81                                   (gravity's reaction,
                                                                      as an IMU at rest reads)

with q and w the wheel angles and velocities, r = `wheel_radius`, s = `wheel_separation`.
Those two `<hardware>` parameters (m, > 0, as the diff drive controller's) are required
with an IMU; `left_wheel_name` and `right_wheel_name` name the driven wheels (default: the
first and the second joint, when there are exactly two). Other sensor interfaces are
refused at init.

    <sensor name="imu">
      <state_interface name="orientation.x"/> ... <state_interface name="linear_acceleration.z"/>
    </sensor>
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
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
from py_controllers.semantic_components.imu_sensor import IMU_INTERFACES

# URDF parameter name -> WheelParams field.
WHEEL_PARAMETERS = {
    'motor_time_constant': 'time_constant_s',
    'max_wheel_velocity': 'max_velocity',
    'max_wheel_acceleration': 'max_acceleration',
    'encoder_ticks_per_revolution': 'ticks_per_revolution',
    'velocity_noise_stddev': 'velocity_noise_stddev',
}


# --- sensors: the base's IMU --------------------------------------------------------------
STANDARD_GRAVITY = 9.81  # m/s^2, what an IMU at rest reads on z (REP 145)


@dataclass(frozen=True)
class BaseImuModel:
    """The motion of a differential drive base from its two driven wheels (no slip)."""

    left: int  # wheel indices
    right: int
    wheel_radius_m: float
    wheel_separation_m: float

    def yaw(self, positions: Sequence[float], start: Sequence[float]) -> float:
        """Heading change since the wheels were at `start`, rad."""
        turned = (positions[self.right] - start[self.right]) - (
            positions[self.left] - start[self.left]
        )
        return self.wheel_radius_m * turned / self.wheel_separation_m

    def yaw_rate(self, velocities: Sequence[float]) -> float:
        """Angular velocity about z, rad/s."""
        spread = velocities[self.right] - velocities[self.left]
        return self.wheel_radius_m * spread / self.wheel_separation_m

    def forward_velocity(self, velocities: Sequence[float]) -> float:
        """Linear velocity of the axle's midpoint, m/s."""
        return self.wheel_radius_m * 0.5 * (velocities[self.left] + velocities[self.right])


def base_imu(
    info: Any, hw: dict[str, str], joint_names: list[str]
) -> tuple[BaseImuModel | None, list[tuple[str, int]]]:
    """The IMU model and its outputs (full interface name, index in IMU_INTERFACES) for the
    `<sensor>`s of `info`; (None, []) without sensors. Raises ValueError naming the problem."""
    outputs: list[tuple[str, int]] = []
    for sensor in getattr(info, 'sensors', None) or []:
        where = f"sensor '{sensor.name}'"
        for itf in sensor.state_interfaces:
            if itf.name not in IMU_INTERFACES:
                raise ValueError(
                    f"{where}: state interface '{itf.name}' is not simulated; "
                    f'py_controllers/DiffBotSystem simulates an IMU ({", ".join(IMU_INTERFACES)})'
                )
            outputs.append((f'{sensor.name}/{itf.name}', IMU_INTERFACES.index(itf.name)))
    if not outputs:
        return None, []
    where = f"hardware '{info.name}' (for its IMU)"
    geometry = {}
    for name in ('wheel_radius', 'wheel_separation'):
        value = float_param(hw, name, math.nan, where)
        if not (math.isfinite(value) and value > 0.0):
            raise ValueError(
                f"{where}: parameter '{name}' must be a number > 0 (m), got {hw.get(name)!r}"
            )
        geometry[name] = value
    wheels = []
    for side, fallback in (('left', 0), ('right', 1)):
        name = hw.get(f'{side}_wheel_name') or (
            joint_names[fallback] if len(joint_names) == 2 else ''
        )
        if name not in joint_names:
            raise ValueError(
                f"{where}: parameter '{side}_wheel_name' must name one of the joints "
                f'{joint_names}, got {name!r}'
            )
        wheels.append(joint_names.index(name))
    if wheels[0] == wheels[1]:
        raise ValueError(f'{where}: the left and the right wheel are the same joint')
    model = BaseImuModel(
        wheels[0], wheels[1], geometry['wheel_radius'], geometry['wheel_separation']
    )
    return model, outputs


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
        self.imu_model, self._imu_spec = base_imu(info, hw, self.joint_names)

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
        self._configure_imu()
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

    def command_modes(self) -> dict[str, bool] | None:
        """Each `<wheel>/velocity`: True while a controller commands that wheel."""
        return {f'{n}/{HW_IF_VELOCITY}': self._claimed[i] for i, n in enumerate(self.joint_names)}

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
        self._publish_imu_rt()

    # --- sensors: the IMU ---------------------------------------------------------------
    def _configure_imu(self) -> None:
        """Resolve the IMU's handles; its heading starts at 0 with the wheels where they are."""
        self._imu_outputs = [(self.state_interfaces[name], k) for name, k in self._imu_spec]
        self._imu_start = list(self.dynamics.position)
        self._imu_elapsed_ns = 0
        self._imu_forward_velocity = 0.0
        self._imu_values = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, STANDARD_GRAVITY]

    def _publish_imu_rt(self) -> None:
        """The IMU's readings from the wheels' true state (see the module docstring)."""
        model = self.imu_model
        if model is None:
            return
        dyn = self.dynamics
        yaw = model.yaw(dyn.position, self._imu_start)
        yaw_rate = model.yaw_rate(dyn.velocity)
        forward = model.forward_velocity(dyn.velocity)
        elapsed_s = self._imu_elapsed_ns * 1e-9
        self._imu_elapsed_ns = 0
        values = self._imu_values
        if elapsed_s > 0.0:
            values[7] = (forward - self._imu_forward_velocity) / elapsed_s
        self._imu_forward_velocity = forward
        values[2] = math.sin(0.5 * yaw)
        values[3] = math.cos(0.5 * yaw)
        values[6] = yaw_rate
        values[8] = forward * yaw_rate
        for handle, k in self._imu_outputs:
            handle.value = values[k]

    def read(self, time: Any, period: Any) -> ReturnType:
        """As SimulatedComponent.read(); the IMU counts the time its acceleration spans."""
        self._imu_elapsed_ns += period.nanoseconds
        return super().read(time, period)
