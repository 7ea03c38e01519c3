"""The admittance rule: a mass-spring-damper in the control frame, integrated in joint space.

Pure (numpy, no rclpy); the kinematics come in as an object with the methods of
``py_controllers.kinematics.KinematicsInterface`` (see :class:`Kinematics`). As upstream's
``admittance_rule_impl.hpp``, every update:

1. takes the measured wrench from the sensor frame to the fixed world frame, removes the
   end effector's weight there (gravity points along -z of that frame) and smooths it with
   ``c * new + (1 - c) * old``; the result, in the base frame, is ``wrench_base``;
2. measures the displacement ``X`` of the sensor frame between the current joint
   positions and the reference ones (translation, and rotation as a rotation vector);
3. in the control frame (rotation ``R``, mass ``M``, damping ``D``, stiffness ``K`` diagonal
   there, unselected axes get no force):
   ``x_ddot = R M^-1 (S R^T F - D R^T x_dot - K R^T X)``;
4. ``q_ddot = J^+ x_ddot - joint_damping * q_dot`` (``J^+`` the kinematics' Jacobian inverse of
   the sensor frame), integrated semi-implicitly: ``q_dot += q_ddot dt``, ``q += q_dot dt``;
5. the desired joint state is the reference plus that offset.

One deliberate difference: upstream multiplies by the rotation *of the world frame in the
base frame* where the rotation from base to world is meant; both agree when the world frame
is not rotated against the base (the usual ``base_link``/``world`` set-up). Here the
rotations are used as their names say.

Bad input never moves the robot: a non-finite wrench, reference, current position or
period, or a failing kinematics call, makes :meth:`AdmittanceRule.update` hold the last good
command (positions; zero velocity and acceleration) and return the reason.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from py_controllers.controllers.admittance.config import (
    AdmittanceConfig,
    AdmittanceState,
    JointPoint,
)


class Kinematics(Protocol):
    """The kinematics the rule needs (``py_controllers.kinematics.KinematicsInterface``).

    Transforms are 4x4 of a link in the chain's base frame; Jacobians are of the link's
    origin, expressed in the base frame, linear rows first. Errors are raised.
    """

    def calculate_link_transform(self, q: np.ndarray, link: str) -> np.ndarray: ...

    def calculate_jacobian(self, q: np.ndarray, link: str) -> np.ndarray: ...

    def calculate_jacobian_inverse(self, q: np.ndarray, link: str) -> np.ndarray: ...


def rotation_vector(r: np.ndarray) -> np.ndarray:
    """Axis times angle (rad, in [0, pi]) of the rotation matrix ``r``."""
    cos = max(-1.0, min(1.0, (float(np.trace(r)) - 1.0) * 0.5))
    angle = math.acos(cos)
    skew = np.array([r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]])
    if angle < 1e-9:
        return 0.5 * skew  # first order: sin(angle) ~ angle
    sin = math.sin(angle)
    if sin > 1e-6:
        return skew * (angle / (2.0 * sin))
    # angle ~ pi: the axis is the column of r + I with the largest norm
    b = r + np.eye(3)
    axis = b[:, int(np.argmax(np.linalg.norm(b, axis=0)))]
    return axis / np.linalg.norm(axis) * angle


def _all_finite(values: Any) -> bool:
    return bool(np.all(np.isfinite(values)))


class AdmittanceRule:
    """The admittance of one kinematic chain; ``update()`` once per control cycle."""

    def __init__(self, kinematics: Kinematics, num_joints: int, config: AdmittanceConfig) -> None:
        self.kinematics = kinematics
        self.num_joints = num_joints
        self.config = config
        self.state = AdmittanceState(num_joints)
        #: Filtered, gravity-compensated wrench in the fixed world frame.
        self.wrench_world = np.zeros(6)
        #: The last good desired positions: what a hold commands.
        self.last_good_positions = np.zeros(num_joints)
        self._weight = np.zeros(3)
        self._rot6 = np.zeros((6, 6))
        self._apply_weight()

    def set_config(self, config: AdmittanceConfig) -> None:
        """Use ``config`` from the next update on (masses, frames, filter, ...)."""
        self.config = config
        self._apply_weight()

    def _apply_weight(self) -> None:
        self._weight[:] = (0.0, 0.0, -self.config.cog_force)

    def reset(self, positions: np.ndarray) -> None:
        """Forget all motion and the filtered wrench; hold ``positions`` until an update."""
        self.state.reset()
        self.wrench_world[:] = 0.0
        self.last_good_positions[:] = positions

    def check_frames(self, q: np.ndarray, config: AdmittanceConfig | None = None) -> str:
        """'' when the kinematics know every frame of ``config``; else which one not."""
        config = config or self.config
        for name, frame in config.frames.items():
            try:
                self.kinematics.calculate_link_transform(q, frame)
            except Exception as exc:
                return f"'{name}' is '{frame}': {exc}"
        try:
            self.kinematics.calculate_jacobian_inverse(q, config.ft_frame)
        except Exception as exc:
            return f"no Jacobian inverse of '{config.ft_frame}': {exc}"
        return ''

    # --- the loop -------------------------------------------------------------------------
    def update(
        self,
        current_positions: np.ndarray,
        measured_wrench: np.ndarray,
        reference: JointPoint,
        dt_s: float,
        desired: JointPoint,
    ) -> str:
        """Fill ``desired`` from the reference and the admittance; '' or why it holds.

        ``measured_wrench`` is (force x, y, z, torque x, y, z) in the sensor frame.
        On any problem ``desired`` holds the last good positions with zero velocity and
        acceleration, the admittance stops there, and the reason is returned.
        """
        problem = self._input_problem(current_positions, measured_wrench, reference, dt_s)
        if not problem:
            try:
                problem = self._step(current_positions, measured_wrench, reference, dt_s)
            except Exception as exc:
                problem = f'kinematics failed: {exc}'
        if problem:
            self.hold(reference, desired)
            return problem
        s = self.state
        np.add(reference.positions, s.joint_pos, out=desired.positions)
        np.add(reference.velocities, s.joint_vel, out=desired.velocities)
        np.add(reference.accelerations, s.joint_acc, out=desired.accelerations)
        self.last_good_positions[:] = desired.positions
        return ''

    def hold(self, reference: JointPoint, desired: JointPoint) -> None:
        """Command the last good positions, standing still; the offset is kept such that
        the next good update continues from there."""
        self.state.stop()
        if _all_finite(reference.positions):
            np.subtract(self.last_good_positions, reference.positions, out=self.state.joint_pos)
        desired.positions[:] = self.last_good_positions
        desired.velocities[:] = 0.0
        desired.accelerations[:] = 0.0

    @staticmethod
    def _input_problem(
        current: np.ndarray, wrench: np.ndarray, reference: JointPoint, dt_s: float
    ) -> str:
        if not _all_finite(wrench):
            return f'wrench {np.round(wrench, 6).tolist()} is not finite'
        if not (
            _all_finite(reference.positions)
            and _all_finite(reference.velocities)
            and _all_finite(reference.accelerations)
        ):
            return f'reference positions {reference.positions.tolist()} (or derivatives) not finite'
        if not _all_finite(current):
            return f'current joint positions {current.tolist()} are not finite'
        if not (math.isfinite(dt_s) and dt_s >= 0.0):
            return f'period {dt_s!r} s is not a finite time step'
        return ''

    def _step(self, q: np.ndarray, wrench: np.ndarray, reference: JointPoint, dt_s: float) -> str:
        c, s, kin = self.config, self.state, self.kinematics
        cache: dict[str, np.ndarray] = {}

        def transform(link: str) -> np.ndarray:
            if link not in cache:
                cache[link] = np.asarray(kin.calculate_link_transform(q, link), dtype=float)
            return cache[link]

        s.ref_trans_base_ft[:] = kin.calculate_link_transform(reference.positions, c.ft_frame)
        rot_base_world = transform(c.world_frame)[:3, :3]
        s.rot_base_control[:] = transform(c.control_frame)[:3, :3]
        rot_base_cog = transform(c.cog_frame)[:3, :3]
        trans_base_ft = transform(c.ft_frame)
        s.current_joint_pos[:] = q

        # 1. wrench: sensor -> world, minus the end effector's weight, smoothed; -> base
        rot_world_base = rot_base_world.T
        rot_world_ft = rot_world_base @ trans_base_ft[:3, :3]
        force = rot_world_ft @ wrench[:3] - self._weight
        cog_world = rot_world_base @ rot_base_cog @ c.cog_pos
        torque = rot_world_ft @ wrench[3:] - np.cross(cog_world, self._weight)
        a = c.filter_coefficient
        w = self.wrench_world
        w[:3] = a * force + (1.0 - a) * w[:3]
        w[3:] = a * torque + (1.0 - a) * w[3:]
        s.wrench_base[:3] = rot_base_world @ w[:3]
        s.wrench_base[3:] = rot_base_world @ w[3:]

        # 2. displacement of the sensor frame from where the reference puts it
        x = np.empty(6)
        x[:3] = trans_base_ft[:3, 3] - s.ref_trans_base_ft[:3, 3]
        rot = trans_base_ft[:3, :3] @ s.ref_trans_base_ft[:3, :3].T
        x[3:] = rotation_vector(rot)
        s.admittance_position[:3, :3] = rot
        s.admittance_position[:3, 3] = x[:3]

        # 3. mass-spring-damper, diagonal in the control frame
        r6 = self._rot6
        r6[:3, :3] = s.rot_base_control
        r6[3:, 3:] = s.rot_base_control
        f_control = (r6.T @ s.wrench_base) * c.selected_axes
        x_dot = s.admittance_velocity
        x_ddot = r6 @ (
            c.mass_inv * (f_control - c.damping * (r6.T @ x_dot) - c.stiffness * (r6.T @ x))
        )

        # 4. to joint space, joint damping, integration
        j_inv = np.asarray(kin.calculate_jacobian_inverse(q, c.ft_frame), dtype=float)
        jac = np.asarray(kin.calculate_jacobian(q, c.ft_frame), dtype=float)
        joint_acc = j_inv @ x_ddot - c.joint_damping * s.joint_vel
        if not _all_finite(joint_acc):
            return f'admittance acceleration {joint_acc.tolist()} is not finite'
        s.joint_acc[:] = joint_acc
        s.joint_vel += joint_acc * dt_s
        s.joint_pos += s.joint_vel * dt_s
        s.admittance_velocity[:] = jac @ s.joint_vel
        s.admittance_acceleration[:] = jac @ s.joint_acc
        return ''
