"""The robot as the 3D page draws it, without ROS: the URDF's visuals and forward kinematics.

Joints come from the project's URDF parser (hardware_interface/urdf.py); this module adds
the `<visual>` elements (box, cylinder, sphere, mesh), their materials, and the pose of
every link for given joint positions. Poses are 4x4 homogeneous matrices in the root
link's frame (or in `odom` when a root pose is given). Floating and planar joints carry
no state in /joint_states, so they are drawn at their origin.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np

from py_controllers.hardware_interface.errors import UrdfError
from py_controllers.hardware_interface.urdf import (
    CONTINUOUS,
    PRISMATIC,
    REVOLUTE,
    UrdfJoint,
    parse_xml,
    urdf_model_from_element,
)

Pose = np.ndarray
"""A 4x4 homogeneous transform."""

DEFAULT_RGBA = (0.7, 0.7, 0.7, 1.0)
Y_TO_Z = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0, 0, 0, 1]])
"""three.js draws a cylinder along its y axis, a URDF cylinder stands along z: Rx(pi/2)."""


@dataclass(frozen=True)
class Visual:
    """One `<visual>` of a link: its shape, pose in the link frame, and colour."""

    link: str
    index: int
    kind: str
    """'box' (size: x, y, z), 'cylinder' (radius, length), 'sphere' (radius) or 'mesh'."""
    size: tuple[float, ...]
    origin: Pose
    rgba: tuple[float, float, float, float] = DEFAULT_RGBA
    mesh: str = ''
    """The mesh's filename as the URDF gives it (package://, file:// or a path)."""
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)

    @property
    def key(self) -> str:
        """A name unique in the robot: `<link>/<index>`."""
        return f'{self.link}/{self.index}'


@dataclass
class SceneRobot:
    """What the 3D page needs of a URDF."""

    name: str
    root: str
    joints: list[UrdfJoint]
    """Every joint, each after the joint of its parent link (tree order)."""
    visuals: list[Visual]

    @property
    def movable(self) -> list[str]:
        """Joints whose position moves a link (revolute, continuous, prismatic)."""
        return [j.name for j in self.joints if j.type in (REVOLUTE, CONTINUOUS, PRISMATIC)]


def rpy_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """The URDF's fixed-axis roll, pitch, yaw: Rz(yaw) Ry(pitch) Rx(roll)."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def transform(xyz: tuple[float, ...] = (0.0, 0.0, 0.0), rpy: tuple[float, ...] = (0, 0, 0)) -> Pose:
    """The pose of an `<origin xyz rpy>`."""
    out = np.eye(4)
    out[:3, :3] = rpy_matrix(*rpy)
    out[:3, 3] = xyz
    return out


def axis_rotation(axis: tuple[float, float, float], angle: float) -> np.ndarray:
    """Rotation by `angle` about the unit vector along `axis` (Rodrigues)."""
    k = np.asarray(axis, dtype=float)
    k = k / np.linalg.norm(k)
    skew = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(angle) * skew + (1.0 - math.cos(angle)) * skew @ skew


def pose_from_xyz_quaternion(
    xyz: tuple[float, float, float], quaternion: tuple[float, float, float, float]
) -> Pose:
    """The pose of a position and an (x, y, z, w) quaternion (normalised here)."""
    x, y, z, w = np.asarray(quaternion, dtype=float) / np.linalg.norm(quaternion)
    out = np.eye(4)
    out[:3, :3] = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]
    out[:3, 3] = xyz
    return out


def parse_scene_robot(urdf_xml: str) -> SceneRobot:
    """The joints in tree order and every visual of a URDF (raises UrdfError)."""
    element = parse_xml(urdf_xml)
    model = urdf_model_from_element(element)
    children = {j.child for j in model.joints.values()}
    roots = [link for link in model.links if link not in children]
    if len(roots) != 1:
        raise UrdfError(f'the URDF needs exactly one root link, it has {roots or "none"}')
    by_parent: dict[str, list[UrdfJoint]] = {}
    for joint in model.joints.values():
        by_parent.setdefault(joint.parent, []).append(joint)
    ordered: list[UrdfJoint] = []
    stack = [roots[0]]
    while stack:
        for joint in by_parent.get(stack.pop(), []):
            ordered.append(joint)
            stack.append(joint.child)
    materials = {
        m.get('name', ''): rgba
        for m in element.findall('material')
        if (rgba := _rgba(m)) is not None
    }
    visuals = [
        visual
        for link in element.findall('link')
        for i, v in enumerate(link.findall('visual'))
        if (visual := _visual(link.get('name', '').strip(), i, v, materials)) is not None
    ]
    return SceneRobot(name=model.name, root=roots[0], joints=ordered, visuals=visuals)


def _floats(text: str | None, default: tuple[float, ...], what: str) -> tuple[float, ...]:
    if text is None or not text.strip():
        return default
    try:
        values = tuple(float(p) for p in text.split())
    except ValueError:
        raise UrdfError(f"{what} '{text.strip()}' is not a list of numbers") from None
    if len(values) != len(default) or not all(math.isfinite(v) for v in values):
        raise UrdfError(f"{what} '{text.strip()}' needs {len(default)} finite numbers")
    return values


def _rgba(material: ET.Element | None) -> tuple[float, float, float, float] | None:
    color = material.find('color') if material is not None else None
    if color is None:
        return None
    r, g, b, a = _floats(color.get('rgba'), DEFAULT_RGBA, 'material rgba')
    return (r, g, b, a)


def _visual(
    link: str, index: int, element: ET.Element, materials: Mapping[str, tuple]
) -> Visual | None:
    geometry = element.find('geometry')
    shape = geometry[0] if geometry is not None and len(geometry) else None
    if shape is None:
        return None
    where = f"link '{link}' visual {index}"
    origin = element.find('origin')
    pose = transform(
        _floats(origin.get('xyz') if origin is not None else None, (0.0, 0.0, 0.0), where),
        _floats(origin.get('rpy') if origin is not None else None, (0.0, 0.0, 0.0), where),
    )
    material = element.find('material')
    rgba = _rgba(material)
    if rgba is None and material is not None:
        rgba = materials.get(material.get('name', ''))
    common = {'link': link, 'index': index, 'origin': pose, 'rgba': rgba or DEFAULT_RGBA}
    if shape.tag == 'box':
        return Visual(kind='box', size=_floats(shape.get('size'), (1.0, 1.0, 1.0), where), **common)
    if shape.tag == 'cylinder':
        radius = _floats(shape.get('radius'), (1.0,), where)[0]
        length = _floats(shape.get('length'), (1.0,), where)[0]
        return Visual(kind='cylinder', size=(radius, length), **common)
    if shape.tag == 'sphere':
        return Visual(kind='sphere', size=_floats(shape.get('radius'), (1.0,), where), **common)
    if shape.tag == 'mesh':
        scale = _floats(shape.get('scale'), (1.0, 1.0, 1.0), where)
        return Visual(
            kind='mesh',
            size=(),
            mesh=shape.get('filename', '').strip(),
            scale=(scale[0], scale[1], scale[2]),
            **common,
        )
    raise UrdfError(f'{where}: geometry <{shape.tag}> is not a box, cylinder, sphere or mesh')


def joint_motion(joint: UrdfJoint, position: float) -> Pose:
    """The child's pose in the joint frame at `position` (rad or m)."""
    out = np.eye(4)
    if joint.type in (REVOLUTE, CONTINUOUS):
        out[:3, :3] = axis_rotation(joint.axis, position)
    elif joint.type == PRISMATIC:
        axis = np.asarray(joint.axis, dtype=float)
        out[:3, 3] = axis / np.linalg.norm(axis) * position
    return out


def joint_values(robot: SceneRobot, positions: Mapping[str, float]) -> dict[str, float]:
    """The position of every movable joint: measured, from its mimicked joint, or 0."""
    out: dict[str, float] = {}
    for joint in robot.joints:
        value = positions.get(joint.name)
        if joint.mimic is not None and joint.mimic.joint in positions:
            m = joint.mimic
            value = positions[m.joint] * m.multiplier + m.offset
        out[joint.name] = float(value) if value is not None and math.isfinite(value) else 0.0
    return out


def link_poses(
    robot: SceneRobot, positions: Mapping[str, float], root_pose: Pose | None = None
) -> dict[str, Pose]:
    """The pose of every link for joint `positions` (missing or non-finite ones count as 0),
    with the root link at `root_pose` (identity by default)."""
    values = joint_values(robot, positions)
    poses = {robot.root: np.eye(4) if root_pose is None else np.asarray(root_pose, dtype=float)}
    for joint in robot.joints:
        origin = transform(joint.origin_xyz, joint.origin_rpy)
        poses[joint.child] = poses[joint.parent] @ origin @ joint_motion(joint, values[joint.name])
    return poses


def drawn_pose(link_pose: Pose, visual: Visual) -> Pose:
    """Where the three.js object of `visual` goes (a cylinder turned from y to z)."""
    pose = link_pose @ visual.origin
    return pose @ Y_TO_Z if visual.kind == 'cylinder' else pose


def root_pose_from_odometry(
    robot: SceneRobot, odom_pose: Pose, base_frame: str, positions: Mapping[str, float]
) -> Pose:
    """The root link's pose in odom, given the pose of `base_frame` in odom (a diff drive's
    odometry names its base frame, which may be a child of the URDF's root)."""
    in_root = link_poses(robot, positions).get(base_frame.lstrip('/'))
    if in_root is None:
        return np.asarray(odom_pose, dtype=float)
    return odom_pose @ np.linalg.inv(in_root)


def rotation_angle(a: Pose, b: Pose) -> float:
    """The angle (rad, 0..pi) of the rotation taking the orientation of `a` to that of `b`."""
    relative = a[:3, :3].T @ b[:3, :3]
    return math.acos(max(-1.0, min(1.0, (float(np.trace(relative)) - 1.0) / 2.0)))


def resolve_mesh(filename: str, package_share: Callable[[str], str | None]) -> Path | None:
    """The local file of a mesh filename (package://pkg/..., file:///...,  or an absolute
    path); None when it is not on this machine. `package_share(pkg)` finds a package."""
    parsed = urlparse(filename)
    if parsed.scheme == 'package':
        share = package_share(parsed.netloc)
        path = Path(share) / unquote(parsed.path).lstrip('/') if share else None
    elif parsed.scheme == 'file':
        path = Path(unquote(parsed.path))
    elif parsed.scheme == '' and filename.startswith('/'):
        path = Path(filename)
    else:
        path = None
    return path if path is not None and path.is_file() else None


def hex_color(rgba: tuple[float, float, float, float]) -> str:
    """'#rrggbb' of an rgba in 0..1."""
    r, g, b = (max(0, min(255, round(c * 255))) for c in rgba[:3])
    return f'#{r:02x}{g:02x}{b:02x}'
