"""Wheel motors behind `py_controllers/DiffBotSystem`: velocity-commanded, fixed-step, no ROS.

Each wheel's velocity follows its command (clipped to the maximum wheel velocity) as a
first-order lag, with the change per step bounded by the maximum acceleration; the
position integrates the new velocity (semi-implicit Euler). Time is cut into whole
internal steps as in `joint_dynamics`, so results depend only on the total time.

The measurements differ from the truth the way a wheel encoder's do: the position is
reported in whole encoder ticks (rounded down) when `ticks_per_revolution` is set, and
the velocity carries Gaussian noise drawn from a seeded generator, so a run repeats
exactly for a given seed and sequence of periods.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from py_controllers.hardware.joint_dynamics import FixedStepIntegrator, first_order_gain
from py_controllers.hardware.sim_steps import step_wheels

_INF = math.inf


@dataclass
class WheelParams:
    """Motor response and sensor model of one wheel (rad, rad/s, rad/s^2)."""

    time_constant_s: float = 0.05
    max_velocity: float = _INF
    max_acceleration: float = _INF
    ticks_per_revolution: int = 0
    velocity_noise_stddev: float = 0.0

    def validate(self, joint: str) -> None:
        """Raise ValueError naming `joint` and the parameter if a value is not usable."""
        checks = (
            ('motor_time_constant', self.time_constant_s >= 0.0, '>= 0'),
            ('max_wheel_velocity', self.max_velocity > 0.0, '> 0'),
            ('max_wheel_acceleration', self.max_acceleration > 0.0, '> 0'),
            ('encoder_ticks_per_revolution', self.ticks_per_revolution >= 0, '>= 0 (0: off)'),
            (
                'velocity_noise_stddev',
                self.velocity_noise_stddev >= 0.0 and math.isfinite(self.velocity_noise_stddev),
                'finite and >= 0',
            ),
        )
        for name, ok, rule in checks:
            if not ok:
                raise ValueError(f"joint '{joint}': parameter '{name}' must be {rule}")


class WheelDynamics(FixedStepIntegrator):
    """Independent wheel motors, stepped wheel by wheel (`sim_steps.step_wheels`).

    `position` and `velocity` (lists) are the true state; `command` holds each wheel's
    velocity command. Read what a driver would report with `measure`.
    """

    def __init__(
        self,
        wheels: Sequence[WheelParams],
        *,
        sim_dt_s: float = 0.001,
        max_substeps: int = 1000,
        seed: int = 0,
    ) -> None:
        super().__init__(sim_dt_s, max_substeps)
        dt = self.dt_s
        # per wheel: (gain, max velocity, max velocity change per step)
        self._motors = [
            (first_order_gain(dt, w.time_constant_s), w.max_velocity, dt * w.max_acceleration)
            for w in wheels
        ]
        # per wheel: (ticks per rad, rad per tick), or None for an exact reading
        self._encoders = [
            (w.ticks_per_revolution / (2.0 * math.pi), 2.0 * math.pi / w.ticks_per_revolution)
            if w.ticks_per_revolution > 0
            else None
            for w in wheels
        ]
        self._noise_stddev = np.array([w.velocity_noise_stddev for w in wheels], dtype=float)
        self._noisy = bool(np.any(self._noise_stddev > 0.0))
        self._rng = np.random.Generator(np.random.PCG64(seed))
        n = len(wheels)
        self.size = n
        self.position = [0.0] * n
        self.velocity = [0.0] * n
        self.command = [0.0] * n

    def reset(self, positions: Sequence[float], velocities: Sequence[float] | None = None) -> None:
        """Put the wheels at `positions`, at rest unless `velocities` are given."""
        self.position[:] = [float(q) for q in positions]
        rest = [0.0] * self.size
        self.velocity[:] = rest if velocities is None else [float(v) for v in velocities]
        self._debt_ns = 0

    def step(self) -> None:
        """Advance every wheel by one internal step `dt_s`."""
        step_wheels(self._motors, self.position, self.velocity, self.command, self.dt_s, 1)

    def advance_ns(self, period_ns: int) -> int:
        """Simulate `period_ns` nanoseconds in whole steps (all in one call of the step
        arithmetic, unless a subclass overrides `step`); returns the steps run."""
        if type(self).step is not WheelDynamics.step:
            return super().advance_ns(period_ns)
        steps = self.steps_for(period_ns)
        step_wheels(self._motors, self.position, self.velocity, self.command, self.dt_s, steps)
        return steps

    def measure(self) -> tuple[list[float], list[float]]:
        """(encoder positions, noisy velocities) as a driver would report them.

        Each call draws fresh noise, so call it once per read.
        """
        positions = [
            q if encoder is None else math.floor(q * encoder[0]) * encoder[1]
            for q, encoder in zip(self.position, self._encoders)
        ]
        velocities = list(self.velocity)
        if self._noisy:
            noise = self._rng.standard_normal(self.size) * self._noise_stddev
            velocities = [v + e for v, e in zip(velocities, noise.tolist())]
        return positions, velocities
