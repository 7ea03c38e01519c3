"""The part of a URDF that controllers need: joints, their types, limits and mimic links.

Visuals, collisions and inertials are skipped. Only `<joint>` elements that are direct
children of `<robot>` count (the `<joint>` tags inside `<ros2_control>` and `<transmission>`
are something else). Parsing is lenient where controllers do not care (a missing
`velocity` or `effort` on `<limit>` just means "no such limit") and strict where a wrong
value would move a robot wrongly (unknown joint type, a limit that is not a number).

`JointLimits` and `SoftJointLimits` live in `py_controllers.joint_limits` (ROS-free) and are
re-exported here for the parser and its users.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import NamedTuple

from py_controllers.hardware_interface.errors import UrdfError
from py_controllers.joint_limits.limits import JointLimits, SoftJointLimits  # re-exported

REVOLUTE = 'revolute'
CONTINUOUS = 'continuous'
PRISMATIC = 'prismatic'
FIXED = 'fixed'
FLOATING = 'floating'
PLANAR = 'planar'
JOINT_TYPES = (REVOLUTE, CONTINUOUS, PRISMATIC, FIXED, FLOATING, PLANAR)
MOVABLE_JOINT_TYPES = (REVOLUTE, CONTINUOUS, PRISMATIC, FLOATING, PLANAR)


class Mimic(NamedTuple):
    """`<mimic>`: position = multiplier * position(joint) + offset."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass
class UrdfJoint:
    """One URDF `<joint>`; `axis` is the unit vector as written (default x)."""

    name: str
    type: str
    parent: str
    child: str
    axis: tuple[float, float, float] = (1.0, 0.0, 0.0)
    origin_xyz: tuple[float, float, float] = (0.0, 0.0, 0.0)
    origin_rpy: tuple[float, float, float] = (0.0, 0.0, 0.0)
    limits: JointLimits = field(default_factory=JointLimits)
    mimic: Mimic | None = None
    safety: SoftJointLimits | None = None

    @property
    def is_movable(self) -> bool:
        """False only for fixed joints."""
        return self.type != FIXED


@dataclass
class UrdfModel:
    """Robot name, links and joints of a URDF; `joint_names` keeps document order."""

    name: str
    joints: dict[str, UrdfJoint] = field(default_factory=dict)
    joint_names: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)


def parse_xml(xml_text: str) -> ET.Element:
    """Parse XML text into its root element; raises UrdfError on empty or malformed text."""
    if not xml_text or not xml_text.strip():
        raise UrdfError('empty robot description')
    try:
        return ET.fromstring(xml_text)
    except ET.ParseError as exc:
        raise UrdfError(f'robot description is not well-formed XML: {exc}') from None


def parse_urdf(urdf_xml: str) -> UrdfModel:
    """Parse a URDF string; raises UrdfError if it is not a `<robot>` or a joint is malformed."""
    return urdf_model_from_element(parse_xml(urdf_xml))


def parse_urdf_joints(urdf_xml: str) -> dict[str, UrdfJoint]:
    """The URDF's joints by name, in document order; raises UrdfError like `parse_urdf`."""
    return parse_urdf(urdf_xml).joints


def urdf_model_from_element(robot: ET.Element) -> UrdfModel:
    """Build the model from an already parsed `<robot>` element (raises UrdfError)."""
    if robot.tag != 'robot':
        raise UrdfError(f'the root element is <{robot.tag}>, expected <robot>')
    model = UrdfModel(name=robot.get('name', '').strip())
    for link in robot.findall('link'):
        model.links.append(link.get('name', '').strip())
    for element in robot.findall('joint'):
        joint = _parse_joint(element)
        if joint.name in model.joints:
            raise UrdfError(f"joint '{joint.name}' is defined twice in the URDF")
        model.joints[joint.name] = joint
        model.joint_names.append(joint.name)
    return model


def _parse_joint(element: ET.Element) -> UrdfJoint:
    name = (element.get('name') or '').strip()
    if not name:
        raise UrdfError("a URDF <joint> has no 'name' attribute")
    joint_type = (element.get('type') or '').strip()
    if joint_type not in JOINT_TYPES:
        raise UrdfError(
            f"joint '{name}': type '{joint_type}' is not one of {', '.join(JOINT_TYPES)}"
        )
    joint = UrdfJoint(
        name=name,
        type=joint_type,
        parent=_link_of(element, 'parent', name),
        child=_link_of(element, 'child', name),
    )
    origin = element.find('origin')
    if origin is not None:
        joint.origin_xyz = _vector(origin.get('xyz'), (0.0, 0.0, 0.0), name, 'origin xyz')
        joint.origin_rpy = _vector(origin.get('rpy'), (0.0, 0.0, 0.0), name, 'origin rpy')
    axis = element.find('axis')
    if axis is not None:
        joint.axis = _vector(axis.get('xyz'), (1.0, 0.0, 0.0), name, 'axis xyz')
    limit = element.find('limit')
    if limit is not None:
        joint.limits = _limits(limit, joint_type, name)
    elif joint_type == CONTINUOUS:
        joint.limits.angle_wraparound = True
    mimic = element.find('mimic')
    if mimic is not None:
        target = (mimic.get('joint') or '').strip()
        if not target:
            raise UrdfError(f"joint '{name}': <mimic> has no 'joint' attribute")
        joint.mimic = Mimic(
            target,
            _number(mimic.get('multiplier'), 1.0, name, 'mimic multiplier'),
            _number(mimic.get('offset'), 0.0, name, 'mimic offset'),
        )
    safety = element.find('safety_controller')
    if safety is not None:
        if safety.get('k_velocity') is None:  # required, as urdfdom has it
            raise UrdfError(f"joint '{name}': <safety_controller> has no k_velocity")
        joint.safety = SoftJointLimits(
            _number(safety.get('soft_lower_limit'), 0.0, name, 'soft_lower_limit'),
            _number(safety.get('soft_upper_limit'), 0.0, name, 'soft_upper_limit'),
            _number(safety.get('k_position'), 0.0, name, 'k_position'),
            _number(safety.get('k_velocity'), 0.0, name, 'k_velocity'),
        )
    return joint


def _limits(limit: ET.Element, joint_type: str, name: str) -> JointLimits:
    # Like urdfdom: lower/upper default to 0 and bound only revolute and prismatic
    # joints; velocity and effort are magnitudes.
    limits = JointLimits()
    if joint_type in (REVOLUTE, PRISMATIC):
        limits.lower = _number(limit.get('lower'), 0.0, name, 'limit lower')
        limits.upper = _number(limit.get('upper'), 0.0, name, 'limit upper')
        limits.has_position_limits = True
    elif joint_type == CONTINUOUS:
        limits.angle_wraparound = True
    if limit.get('velocity') is not None:
        limits.velocity = abs(_number(limit.get('velocity'), 0.0, name, 'limit velocity'))
        limits.has_velocity_limits = True
    if limit.get('effort') is not None:
        limits.effort = abs(_number(limit.get('effort'), 0.0, name, 'limit effort'))
        limits.has_effort_limits = True
    return limits


def _link_of(element: ET.Element, tag: str, name: str) -> str:
    found = element.find(tag)
    link = (found.get('link') or '').strip() if found is not None else ''
    if not link:
        raise UrdfError(f'joint \'{name}\': missing <{tag} link="..."/>')
    return link


def _number(text: str | None, default: float, joint: str, what: str) -> float:
    if text is None or not text.strip():
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or '_' in text:
        raise UrdfError(f"joint '{joint}': {what} '{text.strip()}' is not a finite number")
    return value


def _vector(
    text: str | None, default: tuple[float, float, float], joint: str, what: str
) -> tuple[float, float, float]:
    if text is None or not text.strip():
        return default
    parts = text.split()
    if len(parts) != 3:
        raise UrdfError(f"joint '{joint}': {what} '{text.strip()}' needs three numbers")
    x, y, z = (_number(p, 0.0, joint, what) for p in parts)
    return (x, y, z)
