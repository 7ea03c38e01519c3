"""Example 7's reference trajectory (no rclpy here): the tool0 origin driven along a closed
curve by a Cartesian velocity (vx, vy) = (0.6 cos 2 pi t, -0.3 sin 2 pi t) over 3 s, turned
into joint velocities by a pseudo-inverse of the chain's Jacobian (singular values below
1e-7 dropped, as KDL's ChainIkSolverVel_pinv) and integrated from all joints at 0."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from py_controllers.kinematics.pinocchio_kinematics import KinematicsInterfacePinocchio

TOTAL_S = 3.0
POINTS = 200
PINV_EPS = 1e-7


@dataclass
class ReferencePoint:
    """One trajectory point: joint positions and velocities at `time_s`."""

    positions: list[float]
    velocities: list[float]
    time_s: float


def pseudo_inverse(matrix: np.ndarray, eps: float = PINV_EPS) -> np.ndarray:
    """The SVD pseudo-inverse, singular values below `eps` (absolute) treated as 0."""
    u, s, vt = np.linalg.svd(matrix, full_matrices=False)
    inverse = np.array([1.0 / v if v >= eps else 0.0 for v in s])
    return vt.T @ np.diag(inverse) @ u.T


def reference_points(
    robot_description: str, base: str = 'base_link', tip: str = 'tool0'
) -> tuple[list[str], list[ReferencePoint]]:
    """The chain's joint names and the 200 points (the last with zero velocities)."""
    kinematics = KinematicsInterfacePinocchio()
    kinematics.initialize(robot_description, {'base': base, 'tip': tip})
    joints = kinematics.joint_names
    q = np.zeros(len(joints))
    dt = TOTAL_S / (POINTS - 1)
    points = []
    for i in range(POINTS):
        t = i / (POINTS - 1)
        twist = np.array(
            [2 * 0.3 * math.cos(2 * math.pi * t), -0.3 * math.sin(2 * math.pi * t), 0, 0, 0, 0]
        )
        qdot = pseudo_inverse(kinematics.calculate_jacobian(q, tip)) @ twist
        points.append(ReferencePoint(q.tolist(), qdot.tolist(), TOTAL_S * t))
        q = q + qdot * dt
    points[-1].velocities = [0.0] * len(joints)
    return joints, points
