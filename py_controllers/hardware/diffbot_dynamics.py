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
    """Independent wheel motors integrated together with numpy.

    `position` and `velocity` are the true state; `command` holds each wheel's velocity
    command. Read what a driver would report with `measure`.
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
        self._alpha = np.array([first_order_gain(dt, w.time_constant_s) for w in wheels])
        self._max_velocity = np.array([w.max_velocity for w in wheels], dtype=float)
        self._neg_max_velocity = -self._max_velocity
        self._max_dv = dt * np.array([w.max_acceleration for w in wheels], dtype=float)
        self._neg_max_dv = -self._max_dv
        ticks = np.array([w.ticks_per_revolution for w in wheels], dtype=float)
        self._quantised = ticks > 0
        self._any_quantised = bool(self._quantised.any())
        self._ticks_per_rad = ticks / (2.0 * math.pi)
        self._rad_per_tick = np.where(self._quantised, 2.0 * math.pi / np.maximum(ticks, 1.0), 0.0)
        self._noise_stddev = np.array([w.velocity_noise_stddev for w in wheels], dtype=float)
        self._noisy = bool(np.any(self._noise_stddev > 0.0))
        self._rng = np.random.Generator(np.random.PCG64(seed))
        self._noise = np.zeros(len(wheels))

        n = len(wheels)
        self.size = n
        self.position = np.zeros(n)
        self.velocity = np.zeros(n)
        self.command = np.zeros(n)

    def reset(self, positions: Sequence[float], velocities: Sequence[float] | None = None) -> None:
        """Put the wheels at `positions`, at rest unless `velocities` are given."""
        self.position[:] = np.asarray(positions, dtype=float)
        self.velocity[:] = 0.0 if velocities is None else np.asarray(velocities, dtype=float)
        self._debt_ns = 0

    def step(self) -> None:
        """Advance every wheel by one internal step `dt_s`."""
        v = self.velocity
        target = np.maximum(np.minimum(self.command, self._max_velocity), self._neg_max_velocity)
        dv = np.maximum(np.minimum(self._alpha * (target - v), self._max_dv), self._neg_max_dv)
        v += dv
        self.position += self.dt_s * v

    def measure(self, position_out: np.ndarray, velocity_out: np.ndarray) -> None:
        """Write the encoder position and the noisy velocity into the given arrays.

        Each call draws fresh noise, so call it once per read.
        """
        np.copyto(position_out, self.position)
        if self._any_quantised:
            counts = np.floor(self.position * self._ticks_per_rad)
            np.copyto(position_out, counts * self._rad_per_tick, where=self._quantised)
        np.copyto(velocity_out, self.velocity)
        if self._noisy:
            self._rng.standard_normal(out=self._noise)
            velocity_out += self._noise * self._noise_stddev
