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

from py_controllers.hardware.sim_steps import (
    MODE_EFFORT,
    MODE_PASSIVE,
    MODE_POSITION,
    MODE_VELOCITY,
    JointConstants,
    step_joints,
)

__all__ = ['MODE_EFFORT', 'MODE_PASSIVE', 'MODE_POSITION', 'MODE_VELOCITY']

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

    def steps_for(self, period_ns: int) -> int:
        """The whole steps `period_ns` (with the carried remainder) makes, at most
        `max_substeps`; the new remainder is carried."""
        steps, self._debt_ns = steps_for_period(self._debt_ns, period_ns, self.dt_ns)
        return steps if steps <= self.max_substeps else self.max_substeps

    def advance_ns(self, period_ns: int) -> int:
        """Simulate `period_ns` nanoseconds in whole steps; returns the steps run."""
        steps = self.steps_for(period_ns)
        for _ in range(steps):
            self.step()
        return steps


class JointDynamics(FixedStepIntegrator):
    """Any number of independent rigid joints, stepped joint by joint (`sim_steps.step_joints`).

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
        self._joints = [joint_constants(j, dt) for j in joints]
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
        self._step(1)

    def advance_ns(self, period_ns: int) -> int:
        """Simulate `period_ns` nanoseconds in whole steps (all in one call of the step
        arithmetic, unless a subclass overrides `step`); returns the steps run."""
        if type(self).step is not JointDynamics.step:
            return super().advance_ns(period_ns)
        steps = self.steps_for(period_ns)
        self._step(steps)
        return steps

    def _step(self, steps: int) -> None:
        step_joints(
            self._joints,
            self.position,
            self.velocity,
            self.acceleration,
            self.effort,
            self.command,
            self.mode,
            self.dt_s,
            self._has_stops,
            steps,
        )


def joint_constants(j: JointParams, dt: float) -> JointConstants:
    """`j` with the per-step constants of a step of `dt` worked out once."""
    implicit_mass = j.inertia + dt * j.damping
    # Braking curve of the position servo: the fastest approach from which the joint
    # can still stop on the target in whole steps at the deceleration its effort
    # limit allows (gravity ignored): v <= (sqrt((a dt)^2 + 8 a |e|) - a dt) / 2.
    decel = j.max_effort / j.inertia
    has_brake = math.isfinite(decel)
    return JointConstants(
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
        friction_impulse=dt * j.friction,
        brake_8a=8.0 * decel if has_brake else 0.0,
        brake_adt=dt * decel if has_brake else 0.0,
        brake_off=0.0 if has_brake else _INF,
        holding_brake=j.holding_brake,
    )
