"""The kinematics_interface contract: what a kinematics plug-in computes, without ROS.

Mirrors upstream ros-controls/kinematics_interface (kinematics_interface.hpp), in Python:
results are returned as numpy arrays and bad input raises KinematicsError instead of
returning false. Conventions, as upstream KDL (the reference implementation):
- the joint vector holds the movable joints of the chain from `base` to `tip`, in chain
  order; joints off that chain (a mobile base above `base`, a gripper beside the arm) are
  not part of it;
- poses and Jacobians are relative to the `base` link: a Jacobian's rows are
  (vx, vy, vz, wx, wy, wz) of the link origin, expressed in the axes of `base`;
- the Jacobian inverse is damped least squares, (J^T J + alpha I)^-1 J^T.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike
Vector = npt.NDArray[np.float64]
Matrix = npt.NDArray[np.float64]

# upstream kinematics_interface_kdl / _pinocchio initialize(): rclcpp::Parameter("alpha", 0.000005)
DEFAULT_ALPHA = 0.000005
DEFAULT_NAMESPACE = 'kinematics'


class KinematicsError(Exception):
    """A kinematics call got bad input or was made before initialize()."""


@dataclass(frozen=True)
class KinematicsParams:
    """The upstream plug-in parameters: chain `base` ('' = URDF root link), `tip`, damping."""

    base: str
    tip: str
    alpha: float = DEFAULT_ALPHA

    def __post_init__(self) -> None:
        """Reject values upstream would fail on later (no tip) or that break the inverse."""
        if not isinstance(self.base, str):
            raise KinematicsError(f'kinematics base must be a link name, got {self.base!r}')
        if not isinstance(self.tip, str) or not self.tip:
            raise KinematicsError(f'kinematics tip must be a link name, got {self.tip!r}')
        if isinstance(self.alpha, bool) or not isinstance(self.alpha, (int, float)):
            raise KinematicsError(f'kinematics alpha must be a number, got {self.alpha!r}')
        if not math.isfinite(self.alpha) or self.alpha < 0.0:
            raise KinematicsError(f'kinematics alpha must be finite and >= 0, got {self.alpha}')

    @classmethod
    def from_mapping(
        cls, params: Mapping[str, Any], namespace: str = DEFAULT_NAMESPACE
    ) -> KinematicsParams:
        """Read 'base'/'tip'/'alpha', bare, as '<namespace>.tip', or nested under namespace."""
        nested = params.get(namespace) if namespace else None
        sources: list[Mapping[str, Any]] = [params]
        if isinstance(nested, Mapping):
            sources.append(nested)

        def get(key: str, default: Any) -> Any:
            for source in sources:
                if key in source:
                    return source[key]
                if namespace and f'{namespace}.{key}' in source:
                    return source[f'{namespace}.{key}']
            return default

        tip = get('tip', None)
        if tip is None:
            raise KinematicsError("missing kinematics parameter 'tip' (the end effector link)")
        return cls(base=get('base', ''), tip=tip, alpha=get('alpha', DEFAULT_ALPHA))


class KinematicsInterface(ABC):
    """Forward kinematics, Jacobians and delta conversions for one base->tip chain."""

    @abstractmethod
    def initialize(
        self,
        robot_description: str,
        params: KinematicsParams | Mapping[str, Any],
        *,
        param_namespace: str = DEFAULT_NAMESPACE,
    ) -> None:
        """Build the chain from a URDF string; raises KinematicsError on a bad URDF/link."""

    @property
    @abstractmethod
    def joint_names(self) -> list[str]:
        """Names of the chain's movable joints, in the order of every joint vector."""

    @property
    def dof(self) -> int:
        """Length of every joint vector (number of movable joints in the chain)."""
        return len(self.joint_names)

    @abstractmethod
    def calculate_link_transform(self, joint_pos: ArrayLike, link_name: str) -> Matrix:
        """4x4 homogeneous pose of `link_name` in the base frame."""

    @abstractmethod
    def calculate_jacobian(self, joint_pos: ArrayLike, link_name: str) -> Matrix:
        """6xN Jacobian of the `link_name` origin, rows (v, w) in base-frame axes."""

    @abstractmethod
    def calculate_jacobian_inverse(self, joint_pos: ArrayLike, link_name: str) -> Matrix:
        """Nx6 damped least-squares inverse (J^T J + alpha I)^-1 J^T of that Jacobian."""

    def convert_joint_deltas_to_cartesian_deltas(
        self, joint_pos: ArrayLike, delta_theta: ArrayLike, link_name: str
    ) -> Vector:
        """Cartesian delta (x, y, z, wx, wy, wz) = J @ delta_theta at `link_name`."""
        jacobian = self.calculate_jacobian(joint_pos, link_name)
        return jacobian @ as_vector(delta_theta, 'delta_theta', jacobian.shape[1])

    def convert_cartesian_deltas_to_joint_deltas(
        self, joint_pos: ArrayLike, delta_x: ArrayLike, link_name: str
    ) -> Vector:
        """Joint delta = damped J^-1 @ delta_x for a Cartesian delta applied at `link_name`."""
        jacobian_inverse = self.calculate_jacobian_inverse(joint_pos, link_name)
        return jacobian_inverse @ as_vector(delta_x, 'delta_x', 6)


def as_vector(values: ArrayLike, what: str, size: int, names: Sequence[str] = ()) -> Vector:
    """`values` as a finite float vector of length `size`; KinematicsError says what is wrong."""
    try:
        vector = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise KinematicsError(f'{what} must be a vector of numbers: {exc}') from exc
    if vector.ndim != 1 or vector.shape[0] != size:
        joints = f' (joints: {", ".join(names)})' if names else ''
        raise KinematicsError(f'{what} has shape {vector.shape}, expected {size} values{joints}')
    if not np.all(np.isfinite(vector)):
        raise KinematicsError(f'{what} contains NaN or inf: {vector.tolist()}')
    return vector
