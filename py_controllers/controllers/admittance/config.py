"""Values of the admittance rule: its configuration (from parameters) and its state.

Pure (numpy only, no rclpy). Axis order everywhere is x, y, z, rx, ry, rz; translations
come first, as in a twist or wrench. Joint vectors are in the order of ``joints``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

NUM_CARTESIAN_DOF = 6
FILTER_COEFFICIENT_RANGE = (0.0, 1.0)


@dataclass(frozen=True)
class AdmittanceConfig:
    """Everything the rule reads per update; rebuilt whole when parameters change.

    ``damping`` is upstream's ``damping_ratio * 2 * sqrt(mass * stiffness)``, so with zero
    stiffness an axis has no Cartesian damping and only ``joint_damping`` slows it.
    """

    ft_frame: str
    control_frame: str
    world_frame: str
    cog_frame: str
    cog_pos: np.ndarray
    cog_force: float
    filter_coefficient: float
    mass: np.ndarray
    damping_ratio: np.ndarray
    stiffness: np.ndarray
    selected_axes: np.ndarray  # 1.0 selected, 0.0 not
    joint_damping: float
    mass_inv: np.ndarray = field(init=False)
    damping: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name in ('cog_pos', 'mass', 'damping_ratio', 'stiffness', 'selected_axes'):
            array = np.array(getattr(self, name), dtype=float)
            array.setflags(write=False)
            set_(self, name, array)
        mass_inv = 1.0 / self.mass
        damping = self.damping_ratio * 2.0 * np.sqrt(self.mass * self.stiffness)
        mass_inv.setflags(write=False)
        damping.setflags(write=False)
        set_(self, 'mass_inv', mass_inv)
        set_(self, 'damping', damping)

    @classmethod
    def from_params(cls, p: Any) -> AdmittanceConfig:
        """From a parameter snapshot of admittance_controller_parameters.yaml."""
        a = p.admittance
        return cls(
            ft_frame=p.ft_sensor.frame.id,
            control_frame=p.control.frame.id,
            world_frame=p.fixed_world_frame.frame.id,
            cog_frame=p.gravity_compensation.frame.id,
            cog_pos=np.array(p.gravity_compensation.CoG.pos, dtype=float),
            cog_force=float(p.gravity_compensation.CoG.force),
            filter_coefficient=float(p.ft_sensor.filter_coefficient),
            mass=np.array(a.mass, dtype=float),
            damping_ratio=np.array(a.damping_ratio, dtype=float),
            stiffness=np.array(a.stiffness, dtype=float),
            selected_axes=np.array([1.0 if s else 0.0 for s in a.selected_axes]),
            joint_damping=float(a.joint_damping),
        )

    @property
    def frames(self) -> dict[str, str]:
        """The frames the rule looks up, by parameter name."""
        return {
            'ft_sensor.frame.id': self.ft_frame,
            'control.frame.id': self.control_frame,
            'fixed_world_frame.frame.id': self.world_frame,
            'gravity_compensation.frame.id': self.cog_frame,
        }


def config_problem(p: Any) -> str:
    """Values the schema lets through that would make the rule unstable or meaningless;
    '' when there are none (the consistency check of the parameters)."""
    problems = []
    low, high = FILTER_COEFFICIENT_RANGE
    c = p.ft_sensor.filter_coefficient
    if not (low < c <= high):
        problems.append(
            f"'ft_sensor.filter_coefficient' must be in ({low:g}, {high:g}], got {c!r} "
            '(0 ignores the sensor, outside the range the filter diverges)'
        )
    ratios = p.admittance.damping_ratio
    if any(not (math.isfinite(r) and r >= 0.0) for r in ratios):
        problems.append(f"'admittance.damping_ratio' must be finite and >= 0, got {list(ratios)}")
    for name in ('CoG.pos', 'CoG.force'):
        group, _, leaf = name.partition('.')
        value = getattr(getattr(p.gravity_compensation, group), leaf)
        values = value if isinstance(value, tuple | list) else (value,)
        if not all(math.isfinite(v) for v in values):
            problems.append(f"'gravity_compensation.{name}' must be finite, got {value!r}")
    return '; '.join(problems)


@dataclass
class JointPoint:
    """Positions, velocities and accelerations of the joints (a JointTrajectoryPoint)."""

    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray

    @classmethod
    def zeros(cls, n: int) -> JointPoint:
        return cls(np.zeros(n), np.zeros(n), np.zeros(n))

    def assign(self, other: JointPoint) -> None:
        """Copy ``other`` in place (no allocation)."""
        self.positions[:] = other.positions
        self.velocities[:] = other.velocities
        self.accelerations[:] = other.accelerations


@dataclass
class AdmittanceState:
    """What the rule integrates and reports (upstream's AdmittanceState).

    ``joint_pos/vel/acc`` are the admittance offsets added to the reference;
    ``admittance_*`` the same motion as a twist of the sensor frame in the base frame.
    """

    num_joints: int
    joint_pos: np.ndarray = field(init=False)
    joint_vel: np.ndarray = field(init=False)
    joint_acc: np.ndarray = field(init=False)
    current_joint_pos: np.ndarray = field(init=False)
    admittance_velocity: np.ndarray = field(init=False)
    admittance_acceleration: np.ndarray = field(init=False)
    admittance_position: np.ndarray = field(init=False)  # 4x4: offset of the sensor frame
    wrench_base: np.ndarray = field(init=False)  # filtered, gravity compensated
    rot_base_control: np.ndarray = field(init=False)
    ref_trans_base_ft: np.ndarray = field(init=False)  # 4x4: sensor frame at the reference

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero motion, identity transforms."""
        n = self.num_joints
        self.joint_pos = np.zeros(n)
        self.joint_vel = np.zeros(n)
        self.joint_acc = np.zeros(n)
        self.current_joint_pos = np.zeros(n)
        self.admittance_velocity = np.zeros(NUM_CARTESIAN_DOF)
        self.admittance_acceleration = np.zeros(NUM_CARTESIAN_DOF)
        self.admittance_position = np.eye(4)
        self.wrench_base = np.zeros(NUM_CARTESIAN_DOF)
        self.rot_base_control = np.eye(3)
        self.ref_trans_base_ft = np.eye(4)

    def stop(self) -> None:
        """No admittance motion (the offset stays where it is)."""
        self.joint_vel[:] = 0.0
        self.joint_acc[:] = 0.0
        self.admittance_velocity[:] = 0.0
        self.admittance_acceleration[:] = 0.0
