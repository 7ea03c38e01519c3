"""The arithmetic of the simulated hardware's fixed internal steps: the joints of
`JointDynamics` (joint_dynamics.py explains the model, with each joint's constants) and the
wheel motors of `WheelDynamics` (diffbot_dynamics.py). A module of its own so that mypyc
can compile it (py_controllers/compiled.py) while those classes, which users subclass, stay
interpreted; plain Python either way, no ROS."""

from __future__ import annotations

import math
from typing import Final

MODE_PASSIVE: Final = 0
MODE_EFFORT: Final = 1
MODE_VELOCITY: Final = 2
MODE_POSITION: Final = 3


class JointConstants:
    """One joint's parameters with the per-step constants worked out once (what
    `joint_dynamics.joint_constants` makes from a `JointParams`)."""

    def __init__(
        self,
        *,
        inertia: float,
        friction: float,
        neg_gravity: float,
        lower: float,
        upper: float,
        max_velocity: float,
        max_effort: float,
        alpha_v: float,
        alpha_p: float,
        implicit_mass: float,
        friction_impulse: float,
        brake_8a: float,
        brake_adt: float,
        brake_off: float,
        holding_brake: bool,
    ) -> None:
        self.inertia = inertia
        self.friction = friction
        self.neg_gravity = neg_gravity
        self.lower = lower
        self.upper = upper
        self.max_velocity = max_velocity
        self.max_effort = max_effort
        self.alpha_v = alpha_v
        self.alpha_p = alpha_p
        self.implicit_mass = implicit_mass
        self.inv_implicit_mass = 1.0 / implicit_mass
        self.friction_impulse = friction_impulse
        self.brake_8a = brake_8a
        self.brake_adt = brake_adt
        self.brake_adt_sq = brake_adt * brake_adt
        self.brake_off = brake_off
        self.holding_brake = holding_brake


def step_joints(
    joints: list[JointConstants],
    position: list[float],
    velocity: list[float],
    acceleration: list[float],
    effort: list[float],
    command: list[float],
    mode: list[int],
    dt: float,
    has_stops: bool,
    steps: int,
) -> None:
    """Advance every joint by `steps` internal steps of `dt` (semi-implicit Euler, damping
    and friction implicit), in place on the state lists."""
    for _ in range(steps):
        for i, c in enumerate(joints):
            q = position[i]
            v = velocity[i]
            m = mode[i]
            if m == MODE_PASSIVE and c.holding_brake:
                acceleration[i] = -v / dt
                velocity[i] = 0.0
                effort[i] = 0.0
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

            acceleration[i] = (new_v - v) / dt
            position[i] = new_q
            velocity[i] = new_v
            effort[i] = tau


def _sign(x: float) -> float:
    return 1.0 if x > 0.0 else (-1.0 if x < 0.0 else 0.0)


def step_wheels(
    motors: list[tuple[float, float, float]],
    position: list[float],
    velocity: list[float],
    command: list[float],
    dt: float,
    steps: int,
) -> None:
    """Advance every wheel motor by `steps` internal steps of `dt`, in place: the velocity
    follows the command as a first-order lag (`motors`: per wheel the lag's gain per step,
    the velocity limit and the largest velocity change per step), the position follows."""
    for _ in range(steps):
        for i, (alpha, max_v, max_dv) in enumerate(motors):
            v = velocity[i]
            target = command[i]
            target = max_v if target > max_v else (-max_v if target < -max_v else target)
            dv = alpha * (target - v)
            v += max_dv if dv > max_dv else (-max_dv if dv < -max_dv else dv)
            velocity[i] = v
            position[i] += dt * v
