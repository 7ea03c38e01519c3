"""Rigid-joint dynamics behind `py_controllers/SimulatedSystem`: fixed-step, no ROS.

Each joint is a rigid body turning about its axis:

    inertia * dv/dt = tau - damping * v - friction * sgn(v) - gravity * cos(q)

`tau` is the motor effort, chosen by the joint's command mode:

- passive (no controller claims the joint, before the first claim and after a release):
  tau = 0, the joint coasts under damping, friction and gravity; with `holding_brake` it
  is held still instead, as a real arm's brake holds a joint whose drive is off;
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
    holding_brake: bool = False

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
    """Any number of independent rigid joints, stepped joint by joint in plain Python.

    `position`, `velocity`, `acceleration` (over the last internal step) and `effort`
    (the applied motor effort) are the state, as lists; choose each joint's mode with
    `set_mode`, write its target (in that mode's unit) into `command[i]`, then call
    `advance_ns`. Plain floats, not numpy: for the handful of joints a simulated robot
    has, numpy's per-call overhead costs more than the arithmetic (for hundreds of joints
    it would be the other way round; mock hardware is the tool for those).
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
        self._joints = [_JointConstants.of(j, dt) for j in joints]
        self._has_stops = any(
            math.isfinite(j.lower) or math.isfinite(j.upper) for j in self._joints
        )
        n = len(self._joints)
        self.size = n
        self.position = [0.0] * n
        self.velocity = [0.0] * n
        self.acceleration = [0.0] * n
        self.effort = [0.0] * n
        self.command = [0.0] * n
        self.mode = [MODE_PASSIVE] * n

    def set_mode(self, index: int, mode: int) -> None:
        """Put joint `index` in command mode `mode` (a MODE_* constant); not for the loop."""
        if mode not in (MODE_PASSIVE, MODE_EFFORT, MODE_VELOCITY, MODE_POSITION):
            raise ValueError(f'unknown command mode {mode}')
        self.mode[index] = mode

    def reset(self, positions: Sequence[float], velocities: Sequence[float] | None = None) -> None:
        """Put the joints at rest (or at `velocities`) at `positions`, clipped to their limits."""
        for i, (c, q) in enumerate(zip(self._joints, positions)):
            self.position[i] = min(max(float(q), c.lower), c.upper)
            self.velocity[i] = 0.0 if velocities is None else float(velocities[i])
            self.acceleration[i] = 0.0
            self.effort[i] = 0.0
        self._debt_ns = 0

    def step(self) -> None:
        """Advance every joint by one internal step `dt_s`."""
        dt = self.dt_s
        position, velocity, command, mode = self.position, self.velocity, self.command, self.mode
        has_stops = self._has_stops
        for i, c in enumerate(self._joints):
            q = position[i]
            v = velocity[i]
            m = mode[i]
            if m == MODE_PASSIVE and c.holding_brake:
                self.acceleration[i] = -v / dt
                velocity[i] = 0.0
                self.effort[i] = 0.0
                continue
            gravity_torque = c.neg_gravity * math.cos(q) if c.neg_gravity else 0.0
            max_e = c.max_effort
            servo = m >= MODE_VELOCITY
            if servo:
                cmd = command[i]
                if m == MODE_POSITION:
                    goal = c.lower if cmd < c.lower else cmd
                    error = (c.upper if goal > c.upper else goal) - q
                    brake = c.brake_off + 0.5 * (
                        math.sqrt(c.brake_adt_sq + c.brake_8a * abs(error)) - c.brake_adt
                    )
                    target_v = c.alpha_p * error / dt
                    target_v = brake if target_v > brake else target_v
                    target_v = -brake if target_v < -brake else target_v
                else:
                    target_v = v + c.alpha_v * (cmd - v)
                max_v = c.max_velocity
                target_v = max_v if target_v > max_v else target_v
                target_v = -max_v if target_v < -max_v else target_v
                # The effort that lands the implicit update below exactly on target_v.
                needed = (c.implicit_mass * target_v - c.inertia * v) / dt - gravity_torque
                if c.friction:
                    needed += c.friction * _sign(target_v)
                tau = needed
            else:
                tau = command[i] if m == MODE_EFFORT else 0.0
            tau = max_e if tau > max_e else tau
            tau = -max_e if tau < -max_e else tau

            # Implicit damping and Coulomb friction: solve
            #   I (v' - v) = dt (tau + tau_g - b v' - Fc s),  s in sgn(v')
            momentum = c.inertia * v + dt * (tau + gravity_torque)
            if c.friction:
                momentum = _sign(momentum) * max(abs(momentum) - c.friction_impulse, 0.0)
            new_v = momentum * c.inv_implicit_mass
            if servo and abs(needed) <= max_e:
                new_v = target_v  # the servo's effort was within limits: no rounding
            max_v = c.max_velocity
            new_v = max_v if new_v > max_v else new_v
            new_v = -max_v if new_v < -max_v else new_v

            new_q = q + dt * new_v
            if has_stops:
                # Hard stops: hold at the limit and drop any velocity pointing into it.
                new_q = c.lower if new_q < c.lower else new_q
                new_q = c.upper if new_q > c.upper else new_q
                if (new_q >= c.upper and new_v > 0.0) or (new_q <= c.lower and new_v < 0.0):
                    new_v = 0.0

            self.acceleration[i] = (new_v - v) / dt
            position[i] = new_q
            velocity[i] = new_v
            self.effort[i] = tau


def _sign(x: float) -> float:
    return 1.0 if x > 0.0 else (-1.0 if x < 0.0 else 0.0)


@dataclass(frozen=True, slots=True)
class _JointConstants:
    """One joint's parameters with the per-step constants worked out once."""

    inertia: float
    friction: float
    neg_gravity: float
    lower: float
    upper: float
    max_velocity: float
    max_effort: float
    alpha_v: float
    alpha_p: float
    implicit_mass: float
    inv_implicit_mass: float
    friction_impulse: float
    brake_8a: float
    brake_adt: float
    brake_adt_sq: float
    brake_off: float
    holding_brake: bool

    @classmethod
    def of(cls, j: JointParams, dt: float) -> _JointConstants:
        implicit_mass = j.inertia + dt * j.damping
        # Braking curve of the position servo: the fastest approach from which the joint
        # can still stop on the target in whole steps at the deceleration its effort
        # limit allows (gravity ignored): v <= (sqrt((a dt)^2 + 8 a |e|) - a dt) / 2.
        decel = j.max_effort / j.inertia
        has_brake = math.isfinite(decel)
        brake_adt = dt * decel if has_brake else 0.0
        return cls(
            inertia=j.inertia,
            friction=j.friction,
            neg_gravity=-j.gravity,
            lower=j.lower,
            upper=j.upper,
            max_velocity=j.max_velocity,
            max_effort=j.max_effort,
            alpha_v=first_order_gain(dt, j.velocity_time_constant_s),
            alpha_p=first_order_gain(dt, j.position_time_constant_s),
            implicit_mass=implicit_mass,
            inv_implicit_mass=1.0 / implicit_mass,
            friction_impulse=dt * j.friction,
            brake_8a=8.0 * decel if has_brake else 0.0,
            brake_adt=brake_adt,
            brake_adt_sq=brake_adt**2,
            brake_off=0.0 if has_brake else _INF,
            holding_brake=j.holding_brake,
        )
