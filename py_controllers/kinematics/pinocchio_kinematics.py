"""KinematicsInterface backed by Pinocchio, with the chain semantics of upstream KDL.

The full URDF is built once; joints that are not on the path from `base` to `tip` stay
at their neutral position (0), as upstream's reduced model locks them. Everything is
computed relative to `base`, so a `base` below the URDF root (an arm on a mobile base) or
a `tip` above `base` (a chain walked upwards, which upstream KDL supports) give the
pose and Jacobian a controller fixed to `base` would see. Not thread-safe: one instance
holds one pinocchio.Data scratch buffer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pinocchio as pin

from py_controllers.kinematics.kinematics_interface import (
    DEFAULT_NAMESPACE,
    ArrayLike,
    KinematicsError,
    KinematicsInterface,
    KinematicsParams,
    Matrix,
    as_vector,
)


def _skew(v: np.ndarray) -> np.ndarray:
    """Cross-product matrix: _skew(a) @ b == np.cross(a, b)."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


@dataclass
class _Chain:
    """What initialize() found: the model, its scratch data and the base->tip chain."""

    model: pin.Model
    data: pin.Data
    params: KinematicsParams
    base_frame: int
    links: list[str]
    """Body links base..tip: those a pose or Jacobian can be asked for."""
    link_frames: dict[str, int]
    joint_names: list[str]
    columns: np.ndarray
    """Velocity-vector index of each chain joint in the full model."""


class KinematicsInterfacePinocchio(KinematicsInterface):
    """Upstream kinematics_interface_pinocchio (and _kdl) for one base->tip chain."""

    def __init__(self) -> None:
        """An uninitialized plug-in: every call but initialize() raises KinematicsError."""
        self._chain: _Chain | None = None

    # --- set-up ----------------------------------------------------------------------------
    def initialize(
        self,
        robot_description: str,
        params: KinematicsParams | Mapping[str, Any],
        *,
        param_namespace: str = DEFAULT_NAMESPACE,
    ) -> None:
        """Parse the URDF and find the chain; raises KinematicsError naming what is wrong."""
        if not isinstance(params, KinematicsParams):
            params = KinematicsParams.from_mapping(params, param_namespace)
        if not isinstance(robot_description, str) or not robot_description.strip():
            raise KinematicsError('robot_description is empty: pass the URDF XML string')
        try:
            model = pin.buildModelFromXML(robot_description)
        except Exception as exc:  # pinocchio raises ValueError/RuntimeError on bad URDF
            raise KinematicsError(f'cannot build a model from the URDF: {exc}') from exc

        links = [f.name for f in model.frames if f.type == pin.FrameType.BODY]
        base = params.base or links[0]  # upstream: the URDF root link when base is unset
        for role, name in (('base', base), ('tip', params.tip)):
            if not model.existBodyName(name):
                raise KinematicsError(
                    f"{role} link '{name}' is not in the URDF; available links: " + ', '.join(links)
                )
        base_frame = model.getFrameId(base, pin.FrameType.BODY)
        tip_frame = model.getFrameId(params.tip, pin.FrameType.BODY)
        link_path, joint_frames = _path(model, base_frame, tip_frame)

        joint_names: list[str] = []
        columns: list[int] = []
        for frame_id in joint_frames:
            frame = model.frames[frame_id]
            joint = model.joints[frame.parentJoint]
            if joint.nv != 1:  # URDF floating/planar: no single joint position to give
                raise KinematicsError(
                    f"joint '{frame.name}' on the chain from '{base}' to '{params.tip}' has "
                    f'{joint.nv} degrees of freedom; only 1-DoF joints are supported'
                )
            joint_names.append(frame.name)
            columns.append(joint.idx_v)

        self._chain = _Chain(
            model=model,
            data=model.createData(),
            params=params,
            base_frame=base_frame,
            links=[model.frames[f].name for f in link_path],
            link_frames={model.frames[f].name: f for f in link_path},
            joint_names=joint_names,
            columns=np.array(columns, dtype=int),
        )

    @property
    def joint_names(self) -> list[str]:
        """Names of the chain's movable joints, base to tip (upstream's joint order)."""
        return list(self._initialized().joint_names)

    @property
    def base(self) -> str:
        """The link every pose and Jacobian is relative to."""
        return self._initialized().links[0]

    @property
    def chain_links(self) -> list[str]:
        """Links a pose or Jacobian can be asked for: the path base..tip, in that order."""
        return list(self._initialized().links)

    # --- kinematics ------------------------------------------------------------------------
    def calculate_link_transform(self, joint_pos: ArrayLike, link_name: str) -> Matrix:
        """4x4 homogeneous pose of `link_name` in the base frame."""
        chain, link_frame = self._update(joint_pos, link_name, jacobians=False)
        data = chain.data
        relative = data.oMf[chain.base_frame].actInv(data.oMf[link_frame])
        return np.array(relative.homogeneous)

    def calculate_jacobian(self, joint_pos: ArrayLike, link_name: str) -> Matrix:
        """6xN Jacobian of the `link_name` origin, rows (v, w) in base-frame axes (as KDL)."""
        chain, link_frame = self._update(joint_pos, link_name, jacobians=True)
        model, data = chain.model, chain.data
        j_link = _frame_jacobian(model, data, link_frame)[:, chain.columns]
        j_base = _frame_jacobian(model, data, chain.base_frame)[:, chain.columns]
        base_pose, link_pose = data.oMf[chain.base_frame], data.oMf[link_frame]
        # velocity of the link origin relative to a frame moving with base (zero if base is
        # fixed): v_link - v_base - w_base x r, with r from the base origin to the link origin
        offset = link_pose.translation - base_pose.translation
        linear = j_link[:3] - j_base[:3] + _skew(offset) @ j_base[3:]
        angular = j_link[3:] - j_base[3:]
        rotation_t = base_pose.rotation.T
        return np.vstack((rotation_t @ linear, rotation_t @ angular))

    def calculate_jacobian_inverse(self, joint_pos: ArrayLike, link_name: str) -> Matrix:
        """Nx6 damped inverse (J^T J + alpha I)^-1 J^T, upstream's formula and damping."""
        jacobian = self.calculate_jacobian(joint_pos, link_name)
        alpha = self._initialized().params.alpha
        damped = jacobian.T @ jacobian + alpha * np.eye(jacobian.shape[1])
        try:
            # float64 in, float64 out (asarray copies nothing; numpy's stub says floating[Any])
            return np.asarray(np.linalg.solve(damped, jacobian.T), dtype=np.float64)
        except np.linalg.LinAlgError as exc:  # singular J with alpha = 0
            raise KinematicsError(
                f"Jacobian of '{link_name}' is singular and alpha is 0: {exc}"
            ) from exc

    # --- helpers ---------------------------------------------------------------------------
    def _initialized(self) -> _Chain:
        """The chain; raises unless initialize() succeeded (upstream's verify_initialized)."""
        if self._chain is None:
            raise KinematicsError(
                'the Pinocchio kinematics plugin was not initialized: call initialize() first'
            )
        return self._chain

    def _update(
        self, joint_pos: ArrayLike, link_name: str, *, jacobians: bool
    ) -> tuple[_Chain, int]:
        """Check the inputs, run forward kinematics; the chain and the frame id of
        `link_name`."""
        chain = self._initialized()
        q_chain = as_vector(joint_pos, 'joint_pos', len(chain.joint_names), chain.joint_names)
        link_frame = chain.link_frames.get(link_name)
        if link_frame is None:
            raise KinematicsError(
                f"link '{link_name}' is not in the chain from '{chain.links[0]}' to "
                f"'{chain.links[-1]}'; available links: " + ', '.join(chain.links)
            )
        model, data = chain.model, chain.data
        velocity = np.zeros(model.nv)
        velocity[chain.columns] = q_chain
        # integrate from neutral maps 1-DoF positions into q (continuous joints: cos, sin)
        q = pin.integrate(model, pin.neutral(model), velocity)
        if jacobians:
            pin.computeJointJacobians(model, data, q)
        else:
            pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        return chain, link_frame


def _frame_jacobian(model: pin.Model, data: pin.Data, frame_id: int) -> np.ndarray:
    """6 x nv Jacobian of a frame's origin in world axes (eigenpy gives 6x1 as a 1-D array)."""
    aligned = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
    return np.asarray(pin.getFrameJacobian(model, data, frame_id, aligned)).reshape(6, model.nv)


def _path(model: pin.Model, base: int, tip: int) -> tuple[list[int], list[int]]:
    """Body frames from base to tip through the tree, and the movable joint frames crossed."""

    def ancestry(frame_id: int) -> list[int]:
        # body -> its joint frame -> parent body ..., up to the URDF root body
        bodies = [frame_id]
        while model.frames[bodies[-1]].parentFrame != 0:
            bodies.append(model.frames[model.frames[bodies[-1]].parentFrame].parentFrame)
        return bodies

    up, down = ancestry(base), ancestry(tip)
    common = next(b for b in up if b in down)  # both reach the root, so one is shared
    up = up[: up.index(common)]  # base .. below the common ancestor
    down = down[: down.index(common)][::-1]  # below the common ancestor .. tip
    # walking up crosses each body's own joint; walking down, the joint of the child body
    crossed = [model.frames[b].parentFrame for b in up + down]
    movable = [f for f in crossed if model.frames[f].type == pin.FrameType.JOINT]
    return [*up, common, *down], movable
