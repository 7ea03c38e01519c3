"""Raw register values to SI and back: the one place where ticks, velocity units and current
units meet radians, rad/s and amperes (no rclpy).

A servo's angle is (ticks - zero_tick) * 2 pi / ticks_per_rev; its velocity raw units times
the model's rev/min per unit; its current raw units times mA per unit. A joint sees the
servo through its per-joint parameters:

    joint position = offset + direction * servo angle / gear_ratio     (direction -1: reverse)
    joint velocity = direction * servo velocity / gear_ratio
    joint effort   = direction * servo current (A)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from py_controllers.hardware.servo_bus.models import ServoModel

TWO_PI = 2.0 * math.pi
RPM_TO_RAD_S = TWO_PI / 60.0


def ticks_to_rad(model: ServoModel, ticks: int) -> float:
    return (ticks - model.zero_tick) * TWO_PI / model.ticks_per_rev


def rad_to_ticks(model: ServoModel, angle: float) -> int:
    return model.zero_tick + round(angle * model.ticks_per_rev / TWO_PI)


def raw_to_rad_s(model: ServoModel, raw: int) -> float:
    return raw * model.velocity_unit_rpm * RPM_TO_RAD_S


def rad_s_to_raw(model: ServoModel, velocity: float) -> int:
    return round(velocity / (model.velocity_unit_rpm * RPM_TO_RAD_S))


def raw_to_amperes(model: ServoModel, raw: int) -> float:
    if model.current_unit_ma is None:
        return math.nan
    return raw * model.current_unit_ma / 1000.0


def amperes_to_raw(model: ServoModel, current: float) -> int:
    if model.current_unit_ma is None:
        raise ValueError(f'{model.name} has no current control')
    return round(current * 1000.0 / model.current_unit_ma)


@dataclass(frozen=True)
class JointTransform:
    """How a joint sees its servo: `offset` (joint units at the servo's centre tick),
    `reverse`, `gear_ratio` (servo radians per joint unit)."""

    offset: float = 0.0
    reverse: bool = False
    gear_ratio: float = 1.0

    @property
    def direction(self) -> float:
        return -1.0 if self.reverse else 1.0

    def position(self, model: ServoModel, ticks: int) -> float:
        return self.offset + self.direction * ticks_to_rad(model, ticks) / self.gear_ratio

    def position_ticks(self, model: ServoModel, position: float) -> int:
        return rad_to_ticks(model, self.direction * (position - self.offset) * self.gear_ratio)

    def velocity(self, model: ServoModel, raw: int) -> float:
        return self.direction * raw_to_rad_s(model, raw) / self.gear_ratio

    def velocity_raw(self, model: ServoModel, velocity: float) -> int:
        return rad_s_to_raw(model, self.direction * velocity * self.gear_ratio)

    def effort(self, model: ServoModel, raw: int) -> float:
        return self.direction * raw_to_amperes(model, raw)

    def effort_raw(self, model: ServoModel, current: float) -> int:
        return amperes_to_raw(model, self.direction * current)

    def position_range(
        self, model: ServoModel, low_ticks: int, high_ticks: int
    ) -> tuple[float, float]:
        """The joint positions a servo whose goal lies in [low_ticks, high_ticks] reaches."""
        a, b = self.position(model, low_ticks), self.position(model, high_ticks)
        return (a, b) if a <= b else (b, a)
