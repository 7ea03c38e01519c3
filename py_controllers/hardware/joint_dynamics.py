"""Rigid-joint dynamics behind `py_controllers/SimulatedSystem`: vectorised, fixed-step, no ROS.

Each joint is a rigid body turning about its axis:

    inertia * dv/dt = tau - damping * v - friction * sgn(v) - gravity * cos(q)

`tau` is the motor effort, chosen by the joint's command mode:

- passive (no controller claims the joint): tau = 0, the joint coasts under damping,
  friction and gravity;
- effort: tau = the command, clipped to the effort limit;
- velocity: an ideal inner velocity servo makes v follow the command as a first-order
  lag (time constant `velocity_time_constant_s`; 0 = immediate);
- position: the servo makes q approach the command as a first-order lag (time constant
  `position_time_constant_s`; 0 = reach it in one step, like a mock joint).

The servos compute the effort that puts the joint on their target after one step
(inverse dynamics, so it includes gravity, damping and friction) and report it as the
applied effort. When that effort exceeds the limit it is clipped and the joint follows
the true dynamics instead, so an effort-limited servo is slower, never stronger.

Integration is semi-implicit (symplectic) Euler on a fixed internal step `sim_dt_s`:
velocity first, position from the new velocity. Damping and Coulomb friction are taken
implicitly in that velocity update, which keeps any step stable however large the
damping, and lets friction bring the joint to an exact stop (it can cancel momentum but
never reverse it), so a joint pushed below breakaway does not creep. The time given to
`advance_ns` is cut into whole internal steps and the remainder carried to the next call,
in integer nanoseconds, so the result depends only on the total time and the commands,
not on how the time was split.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MODE_PASSIVE = 0
MODE_EFFORT = 1
MODE_VELOCITY = 2
MODE_POSITION = 3

_INF = math.inf


@dataclass
class JointParams:
    """Physical parameters and limits of one simulated joint (SI units, rad or m)."""

    inertia: float = 0.1
    damping: float = 0.05
    friction: float = 0.0
    gravity: float = 0.0
    velocity_time_constant_s: float = 0.01
    position_time_constant_s: float = 0.0
    lower: float = -_INF
    upper: float = _INF
    max_velocity: float = _INF
    max_effort: float = _INF

    def validate(self, joint: str) -> None:
        """Raise ValueError naming `joint` and the parameter if a value is not physical."""
        checks = (
            ('inertia', self.inertia > 0.0 and math.isfinite(self.inertia), 'finite and > 0'),
            ('damping', self.damping >= 0.0 and math.isfinite(self.damping), 'finite and >= 0'),
            ('friction', self.friction >= 0.0 and math.isfinite(self.friction), 'finite, >= 0'),
            ('gravity', math.isfinite(self.gravity), 'finite'),
            ('velocity_time_constant', self.velocity_time_constant_s >= 0.0, '>= 0'),
            ('position_time_constant', self.position_time_constant_s >= 0.0, '>= 0'),
            ('max_velocity', self.max_velocity > 0.0, '> 0'),
            ('max_effort', self.max_effort > 0.0, '> 0'),
        )
        for name, ok, rule in checks:
            if not ok:
                raise ValueError(f"joint '{joint}': parameter '{name}' must be {rule}")
        if not self.lower <= self.upper:
            raise ValueError(
                f"joint '{joint}': lower position limit {self.lower} is above upper {self.upper}"
            )


def first_order_gain(dt_s: float, time_constant_s: float) -> float:
    """Fraction of the remaining error a first-order lag removes in one step of `dt_s`.

    Exact for a constant target: after k steps the error is exp(-k * dt_s / T) of what it
    was. A time constant of 0 removes the whole error (gain 1).
    """
    if time_constant_s <= 0.0:
        return 1.0
    return -math.expm1(-dt_s / time_constant_s)


def steps_for_period(debt_ns: int, period_ns: int, dt_ns: int) -> tuple[int, int]:
    """Whole internal steps for `period_ns` plus carried `debt_ns`; returns (steps, new debt)."""
    debt_ns += max(int(period_ns), 0)
    steps = debt_ns // dt_ns
    return steps, debt_ns - steps * dt_ns


class FixedStepIntegrator:
    """Cuts the time given to `advance_ns` into whole steps of `dt_ns`; subclasses `step()`.

    The remainder is carried to the next call; steps beyond `max_substeps` in one call (a
    long stall) are dropped, so that time is lost rather than simulated late.
    """

    def __init__(self, sim_dt_s: float, max_substeps: int) -> None:
        if not sim_dt_s > 0.0:
            raise ValueError(f"parameter 'sim_dt' must be > 0, got {sim_dt_s}")
        if max_substeps < 1:
            raise ValueError(f"parameter 'max_substeps' must be >= 1, got {max_substeps}")
        self.dt_ns = max(round(sim_dt_s * 1e9), 1)
        self.dt_s = self.dt_ns * 1e-9
        self.max_substeps = int(max_substeps)
        self._debt_ns = 0

    def step(self) -> None:
        """Advance the state by one step of `dt_s`."""
        raise NotImplementedError

    def advance_ns(self, period_ns: int) -> int:
        """Simulate `period_ns` nanoseconds in whole steps; returns the steps run."""
        steps, self._debt_ns = steps_for_period(self._debt_ns, period_ns, self.dt_ns)
        if steps > self.max_substeps:
            steps = self.max_substeps
        for _ in range(steps):
            self.step()
        return steps


class JointDynamics(FixedStepIntegrator):
    """Any number of independent rigid joints, integrated together with numpy.

    `position`, `velocity`, `acceleration` (over the last internal step) and `effort`
    (the applied motor effort) are the state; choose each joint's mode with `set_mode`,
    write its target (in that mode's unit) into `command[i]`, then call `advance_ns`.
    """

    def __init__(
        self,
        joints: Sequence[JointParams],
        *,
        sim_dt_s: float = 0.001,
        max_substeps: int = 1000,
    ) -> None:
        super().__init__(sim_dt_s, max_substeps)
        dt = self.dt_s

        def column(values: list[float]) -> np.ndarray:
            return np.array(values, dtype=float)

        self._inertia = column([j.inertia for j in joints])
        self._damping = column([j.damping for j in joints])
        self._friction = column([j.friction for j in joints])
        self._gravity = column([j.gravity for j in joints])
        self._lower = column([j.lower for j in joints])
        self._upper = column([j.upper for j in joints])
        self._max_velocity = column([j.max_velocity for j in joints])
        self._max_effort = column([j.max_effort for j in joints])
        self._alpha_v = column([first_order_gain(dt, j.velocity_time_constant_s) for j in joints])
        self._alpha_p = column([first_order_gain(dt, j.position_time_constant_s) for j in joints])
        # Constant parts of the update, precomputed (np.clip is slow; min/max are used).
        self._neg_gravity = -self._gravity
        self._any_gravity = bool(np.any(self._gravity != 0.0))
        self._any_friction = bool(np.any(self._friction != 0.0))
        self._neg_max_velocity = -self._max_velocity
        self._neg_max_effort = -self._max_effort
        self._implicit_mass = self._inertia + dt * self._damping
        self._inv_implicit_mass = 1.0 / self._implicit_mass
        self._friction_impulse = dt * self._friction
        self._has_stops = bool(np.isfinite(self._lower).any() or np.isfinite(self._upper).any())
        # Braking curve of the position servo: the fastest approach from which the joint
        # can still stop on the target in whole steps at the deceleration its effort
        # limit allows (gravity ignored): v <= (sqrt((a dt)^2 + 8 a |e|) - a dt) / 2.
        decel = self._max_effort / self._inertia
        has_brake = np.isfinite(decel)
        self._brake_8a = 8.0 * np.where(has_brake, decel, 0.0)
        self._brake_adt = dt * np.where(has_brake, decel, 0.0)
        self._brake_adt_sq = self._brake_adt**2
        self._brake_off = np.where(has_brake, 0.0, _INF)

        n = len(joints)
        self.size = n
        self.position = np.zeros(n)
        self.velocity = np.zeros(n)
        self.acceleration = np.zeros(n)
        self.effort = np.zeros(n)
        self.command = np.zeros(n)
        self.mode = np.full(n, MODE_PASSIVE, dtype=np.int8)
        self._refresh_mode_masks()

    def set_mode(self, index: int, mode: int) -> None:
        """Put joint `index` in command mode `mode` (a MODE_* constant); not for the loop."""
        if mode not in (MODE_PASSIVE, MODE_EFFORT, MODE_VELOCITY, MODE_POSITION):
            raise ValueError(f'unknown command mode {mode}')
        self.mode[index] = mode
        self._refresh_mode_masks()

    def _refresh_mode_masks(self) -> None:
        mode = self.mode
        self._effort_gain = (mode == MODE_EFFORT).astype(float)
        self._servo = mode >= MODE_VELOCITY
        self._position_mode = mode == MODE_POSITION
        self._any_servo = bool(self._servo.any())
        self._any_position = bool(self._position_mode.any())

    def reset(self, positions: Sequence[float], velocities: Sequence[float] | None = None) -> None:
        """Put the joints at rest (or at `velocities`) at `positions`, clipped to their limits."""
        np.clip(np.asarray(positions, dtype=float), self._lower, self._upper, out=self.position)
        self.velocity[:] = 0.0 if velocities is None else np.asarray(velocities, dtype=float)
        self.acceleration[:] = 0.0
        self.effort[:] = 0.0
        self._debt_ns = 0

    def _servo_velocity(self) -> np.ndarray:
        """The velocity each servo wants at the end of this step (ignored elsewhere)."""
        q, v, cmd = self.position, self.velocity, self.command
        target = v + self._alpha_v * (cmd - v)
        if self._any_position:
            error = np.minimum(np.maximum(cmd, self._lower), self._upper) - q
            brake = self._brake_off + 0.5 * (
                np.sqrt(self._brake_adt_sq + self._brake_8a * np.abs(error)) - self._brake_adt
            )
            wanted = self._alpha_p * error / self.dt_s
            wanted = np.maximum(np.minimum(wanted, brake), -brake)
            target = np.where(self._position_mode, wanted, target)
        return np.maximum(np.minimum(target, self._max_velocity), self._neg_max_velocity)

    def step(self) -> None:
        """Advance every joint by one internal step `dt_s`."""
        dt = self.dt_s
        q, v = self.position, self.velocity
        inertia, max_e = self._inertia, self._max_effort
        gravity_torque = self._neg_gravity * np.cos(q) if self._any_gravity else 0.0

        tau = self._effort_gain * self.command
        if self._any_servo:
            target_v = self._servo_velocity()
            # The effort that lands the implicit update below exactly on target_v.
            needed = (self._implicit_mass * target_v - inertia * v) / dt - gravity_torque
            if self._any_friction:
                needed += self._friction * np.sign(target_v)
            tau = np.where(self._servo, needed, tau)
        tau = np.maximum(np.minimum(tau, max_e), self._neg_max_effort)

        # Implicit damping and Coulomb friction: solve
        #   I (v' - v) = dt (tau + tau_g - b v' - Fc s),  s in sgn(v')
        momentum = inertia * v + dt * (tau + gravity_torque)
        if self._any_friction:
            slip = np.maximum(np.abs(momentum) - self._friction_impulse, 0.0)
            momentum = np.sign(momentum) * slip
        new_v = momentum * self._inv_implicit_mass
        if self._any_servo:
            # Where the servo's effort was within limits, take its target without rounding.
            new_v = np.where(self._servo & (np.abs(needed) <= max_e), target_v, new_v)
        new_v = np.maximum(np.minimum(new_v, self._max_velocity), self._neg_max_velocity)

        new_q = q + dt * new_v
        if self._has_stops:
            # Hard stops: hold at the limit and drop any velocity pointing into it.
            new_q = np.minimum(np.maximum(new_q, self._lower), self._upper)
            into = ((new_q >= self._upper) & (new_v > 0.0)) | (
                (new_q <= self._lower) & (new_v < 0.0)
            )
            new_v = np.where(into, 0.0, new_v)

        self.acceleration[:] = (new_v - v) / dt
        self.position[:] = new_q
        self.velocity[:] = new_v
        self.effort[:] = tau
