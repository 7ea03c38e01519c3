"""Read the `<ros2_control>` tags of a robot description into `HardwareInfo` records.

Follows ros2_control's component parser: one `HardwareInfo` per `<ros2_control>` child of
`<robot>` (or of `<sdf><model>`), joints checked against the URDF, mimic joints resolved,
and each joint's limits merged from its URDF `<limit>` and its command interfaces'
`min`/`max`. It is stricter than upstream in a few places that would otherwise hide a
typo: unknown tags anywhere in the description, an unknown `type` or `data_type`, an
empty `<plugin>`, and a `min`/`max` that is not a number are all errors.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import math
import re
import xml.etree.ElementTree as ET

from py_controllers.hardware_interface.component_info import (
    DATA_TYPES,
    HARDWARE_TYPES,
    ComponentInfo,
    HardwareAsyncParams,
    HardwareInfo,
    InterfaceInfo,
    MimicJoint,
    TransmissionInfo,
    TransmissionJointInfo,
)
from py_controllers.hardware_interface.errors import ComponentParserError, UrdfError
from py_controllers.hardware_interface.urdf import (
    FIXED,
    JointLimits,
    UrdfJoint,
    parse_xml,
    urdf_model_from_element,
)

_logger = logging.getLogger(__name__)

_POSITIVE_INT = re.compile(r'[1-9][0-9]*')
_NON_NEGATIVE_INT = re.compile(r'[0-9]+')
_INF = math.inf

_ROS2_CONTROL_CHILDREN = ('hardware', 'properties', 'joint', 'sensor', 'gpio', 'transmission')
_HARDWARE_CHILDREN = ('plugin', 'group', 'param')
_COMPONENT_CHILDREN = ('command_interface', 'state_interface', 'param', 'limits')
_INTERFACE_CHILDREN = ('param', 'limits')
_PROPERTIES_CHILDREN = ('async',)


def parse_control_resources_from_urdf(urdf_xml: str) -> list[HardwareInfo]:
    """One HardwareInfo per `<ros2_control>` tag, in document order.

    Raises ComponentParserError (naming the tag or attribute at fault) if the text is not
    XML, has no `<ros2_control>` tag, or a tag is invalid or refers to a joint that is not
    in the URDF (checked only when the URDF has `<joint>` elements).
    """
    if not urdf_xml or not urdf_xml.strip():
        raise ComponentParserError('empty URDF passed to the ros2_control parser')
    try:
        root = parse_xml(urdf_xml)
    except UrdfError as exc:
        raise ComponentParserError(f'invalid URDF: {exc}') from None

    if root.tag == 'robot':
        container = root
    elif root.tag == 'sdf' and root.find('model') is not None:
        container = root.find('model')
    else:
        raise ComponentParserError(
            f'the root element is <{root.tag}>: expected <robot> (URDF) or <sdf><model> (SDF)'
        )
    tags = container.findall('ros2_control')
    if not tags:
        raise ComponentParserError('no <ros2_control> tag found in the URDF')
    infos = [_parse_hardware(tag) for tag in tags]

    urdf_joints: dict[str, UrdfJoint] = {}
    if root.tag == 'robot':
        try:
            urdf_joints = urdf_model_from_element(root).joints
        except UrdfError as exc:
            raise ComponentParserError(f'invalid URDF: {exc}') from None
    for info in infos:
        info.robot_description = urdf_xml
        info.urdf_joints = urdf_joints
        _resolve_joints(info, urdf_joints)
    return infos


# --- one <ros2_control> tag ---------------------------------------------------------------
def _parse_hardware(element: ET.Element) -> HardwareInfo:
    name = _required_attribute(element, 'name', 'ros2_control tag')
    where = f"<ros2_control name='{name}'>"
    hw_type = _required_attribute(element, 'type', where)
    if hw_type not in HARDWARE_TYPES:
        raise ComponentParserError(
            f"{where}: type '{hw_type}' is not one of {', '.join(HARDWARE_TYPES)}"
        )
    info = HardwareInfo(name=name, type=hw_type)
    info.rw_rate = _int_attribute(element, 'rw_rate', 0, _NON_NEGATIVE_INT, where)
    info.is_async = _bool_attribute(element, 'is_async', False, where)
    info.async_params = HardwareAsyncParams(
        thread_priority=_int_attribute(element, 'thread_priority', 50, _POSITIVE_INT, where)
    )
    seen_hardware = False
    for child in element:
        if child.tag == 'hardware':
            if seen_hardware:
                raise ComponentParserError(f'{where}: more than one <hardware> tag')
            seen_hardware = True
            _parse_hardware_tag(child, info, where)
        elif child.tag == 'properties':
            _parse_properties(child, info.async_params, where)
        elif child.tag == 'joint':
            info.joints.append(_parse_component(child, where))
        elif child.tag == 'sensor':
            info.sensors.append(_parse_component(child, where))
        elif child.tag == 'gpio':
            info.gpios.append(_parse_component(child, where))
        elif child.tag == 'transmission':
            info.transmissions.append(_parse_transmission(child, where))
        else:
            _unknown_tag(child, where, _ROS2_CONTROL_CHILDREN)
    if not seen_hardware:
        raise ComponentParserError(f'{where}: missing <hardware> tag (with its <plugin>)')
    for kind, components in (
        ('joint', info.joints),
        ('sensor', info.sensors),
        ('gpio', info.gpios),
    ):
        _check_unique(components, kind, where)
    for transmission in info.transmissions:
        _fill_transmission_interfaces(transmission, info, where)
    original = copy.copy(element)
    original.tail = None
    info.original_xml = ET.tostring(original, encoding='unicode')
    return info


def _parse_hardware_tag(element: ET.Element, info: HardwareInfo, where: str) -> None:
    plugin = element.find('plugin')
    if plugin is None:
        raise ComponentParserError(f'{where}: <hardware> has no <plugin> tag')
    info.plugin = _text(plugin)
    if not info.plugin:
        raise ComponentParserError(f'{where}: <hardware><plugin> is empty')
    group = element.find('group')
    if group is not None:
        info.group = _text(group)
    for child in element:
        if child.tag not in _HARDWARE_CHILDREN:
            _unknown_tag(child, f'{where} <hardware>', _HARDWARE_CHILDREN)
    info.hardware_parameters = _parse_params(element, f'{where} <hardware>')


def _parse_properties(element: ET.Element, params: HardwareAsyncParams, where: str) -> None:
    for child in element:
        if child.tag != 'async':
            _unknown_tag(child, f'{where} <properties>', _PROPERTIES_CHILDREN)
        at = f'{where} <properties><async>'
        if child.get('affinity') is not None:
            params.cpu_affinity_cores = _int_list(child.get('affinity', ''), 'affinity', at)
        if child.get('scheduling_policy') is not None:
            params.scheduling_policy = child.get('scheduling_policy', '').strip().lower()
        params.thread_priority = _int_attribute(
            child, 'thread_priority', params.thread_priority, _POSITIVE_INT, at
        )
        params.print_warnings = _bool_attribute(child, 'print_warnings', True, at)


# --- joints, sensors, gpios and their interfaces ------------------------------------------
def _parse_component(element: ET.Element, where: str) -> ComponentInfo:
    kind = element.tag
    name = _required_attribute(element, 'name', f'{where} <{kind}>')
    at = f"{where} <{kind} name='{name}'>"
    component = ComponentInfo(name=name, type=kind)
    if kind == 'joint' and element.get('mimic') is not None:
        component.is_mimic = _bool_attribute(element, 'mimic', False, at)
    for child in element:
        if child.tag not in _COMPONENT_CHILDREN:
            _unknown_tag(child, at, _COMPONENT_CHILDREN)
    component.enable_limits = _parse_limits_tag(element, at)
    for child in element.findall('command_interface'):
        itf = _parse_interface(child, at)
        itf.enable_limits = itf.enable_limits and component.enable_limits
        component.command_interfaces.append(itf)
    for child in element.findall('state_interface'):
        itf = _parse_interface(child, at)
        itf.enable_limits = itf.enable_limits and component.enable_limits
        component.state_interfaces.append(itf)
    component.parameters = _parse_params(element, at)
    return component


def _parse_interface(element: ET.Element, where: str) -> InterfaceInfo:
    name = _required_attribute(element, 'name', f'{where} <{element.tag}>')
    at = f"{where} <{element.tag} name='{name}'>"
    for child in element:
        if child.tag not in _INTERFACE_CHILDREN:
            _unknown_tag(child, at, _INTERFACE_CHILDREN)
    params = _parse_params(element, at)
    data_type = (element.get('data_type') or 'double').strip()
    if data_type not in DATA_TYPES:
        raise ComponentParserError(
            f"{at}: data_type '{data_type}' is not one of {', '.join(DATA_TYPES)}"
        )
    return InterfaceInfo(
        name=name,
        min=params.get('min'),
        max=params.get('max'),
        initial_value=params.get('initial_value'),
        data_type=data_type,
        size=_int_attribute(element, 'size', 1, _POSITIVE_INT, at),
        enable_limits=_parse_limits_tag(element, at),
        parameters=params,
    )


def _parse_limits_tag(element: ET.Element, where: str) -> bool:
    limits = element.find('limits')
    if limits is None:
        return True
    if limits.get('enable') is None:
        raise ComponentParserError(f"{where}: <limits> has no 'enable' attribute")
    return _bool_attribute(limits, 'enable', True, f'{where} <limits>')


def _parse_params(element: ET.Element, where: str) -> dict[str, str]:
    params: dict[str, str] = {}
    for param in element.findall('param'):
        name = (param.get('name') or '').strip()
        if not name:
            raise ComponentParserError(f"{where}: <param> has no 'name' attribute")
        params[name] = _text(param)
    return params


def _parse_transmission(element: ET.Element, where: str) -> TransmissionInfo:
    name = _required_attribute(element, 'name', f'{where} <transmission>')
    at = f"{where} <transmission name='{name}'>"
    plugin = element.find('plugin')
    if plugin is None or not _text(plugin):
        raise ComponentParserError(f'{at}: missing or empty <plugin> tag')
    # Transmission plugins read further children themselves, so unknown tags are allowed.
    return TransmissionInfo(
        name=name,
        plugin=_text(plugin),
        joints=[_parse_transmission_end(j, at) for j in element.findall('joint')],
        actuators=[_parse_transmission_end(a, at) for a in element.findall('actuator')],
        parameters=_parse_params(element, at),
    )


def _parse_transmission_end(element: ET.Element, where: str) -> TransmissionJointInfo:
    """A transmission's `<joint>` or `<actuator>`: name and role (both required, as
    upstream), `read_only`, and the `<mechanical_reduction>`/`<offset>` children, which
    must be finite numbers (upstream falls back to 1.0/0.0 on a typo; a typo in a gear
    ratio must not move a motor 50 times too far)."""
    kind = element.tag
    name = _required_attribute(element, 'name', f'{where} <{kind}>')
    at = f"{where} <{kind} name='{name}'>"
    return TransmissionJointInfo(
        name=name,
        role=_required_attribute(element, 'role', at),
        mechanical_reduction=_number_child(element, 'mechanical_reduction', 1.0, at),
        offset=_number_child(element, 'offset', 0.0, at),
        read_only=_bool_attribute(element, 'read_only', False, at),
    )


def _number_child(element: ET.Element, tag: str, default: float, where: str) -> float:
    child = element.find(tag)
    if child is None:
        return default
    value = _finite_float(_text(child))
    if value is None:
        raise ComponentParserError(f"{where}: <{tag}> '{_text(child)}' is not a finite number")
    return value


def _fill_transmission_interfaces(
    transmission: TransmissionInfo, info: HardwareInfo, where: str
) -> None:
    """As upstream: each transmission joint gets the interface names of the component's
    joint of that name; an actuator component's transmission has exactly one joint and,
    when it names no actuator, gets 'actuator1' with that joint's interfaces."""
    at = f"{where} <transmission name='{transmission.name}'>"
    joints = {joint.name: joint for joint in info.joints}
    for end in transmission.joints:
        joint = joints.get(end.name)
        if joint is None:
            raise ComponentParserError(
                f"{at} uses joint '{end.name}', which is not a <joint> of this component"
            )
        end.state_interfaces = [itf.name for itf in joint.state_interfaces]
        end.command_interfaces = [itf.name for itf in joint.command_interfaces]
    if info.type != 'actuator':
        return
    if len(transmission.joints) != 1:
        raise ComponentParserError(
            f'{at}: an actuator component takes exactly one joint in a transmission, '
            f'found {len(transmission.joints)}'
        )
    if not transmission.actuators:  # upstream appends it beside a declared one too: two
        (end,) = transmission.joints
        transmission.actuators.append(
            TransmissionJointInfo(
                'actuator1',
                'actuator1',
                state_interfaces=list(end.state_interfaces),
                command_interfaces=list(end.command_interfaces),
            )
        )


# --- checks against the URDF, mimic joints, limits ----------------------------------------
def _resolve_joints(info: HardwareInfo, urdf_joints: dict[str, UrdfJoint]) -> None:
    where = f"<ros2_control name='{info.name}'>"
    index = {joint.name: i for i, joint in enumerate(info.joints)}
    for i, joint in enumerate(info.joints):
        at = f"{where} <joint name='{joint.name}'>"
        urdf_joint = urdf_joints.get(joint.name)
        if urdf_joint is None and urdf_joints:
            raise ComponentParserError(f"{at}: joint '{joint.name}' is not in the URDF")
        if urdf_joint is not None and urdf_joint.type == FIXED:
            raise ComponentParserError(
                f"{at}: the URDF joint is 'fixed'; fixed joints cannot be controlled"
            )
        mimic = urdf_joint.mimic if urdf_joint is not None else None
        if mimic is None and joint.is_mimic:
            raise ComponentParserError(f'{at}: mimic="true" but the URDF joint has no <mimic>')
        if mimic is not None and joint.is_mimic is not False:
            if joint.command_interfaces:
                raise ComponentParserError(
                    f'{at}: a mimic joint cannot have command interfaces '
                    f'(set mimic="false" on the joint to command it)'
                )
            if mimic.joint not in index:
                raise ComponentParserError(
                    f"{at}: mimics joint '{mimic.joint}', which is not a <joint> of this "
                    f'<ros2_control> tag'
                )
            info.mimic_joints.append(
                MimicJoint(i, index[mimic.joint], mimic.multiplier, mimic.offset)
            )
        base = urdf_joint.limits if urdf_joint is not None else JointLimits()
        limits = dataclasses.replace(base)
        _merge_interface_limits(joint, limits, at)
        info.limits[joint.name] = limits
        if urdf_joint is not None and urdf_joint.safety is not None:
            soft = dataclasses.replace(urdf_joint.safety)
            if limits.has_position_limits:
                soft.min_position = max(soft.min_position, limits.lower)
                soft.max_position = min(soft.max_position, limits.upper)
            info.soft_limits[joint.name] = soft


def _merge_interface_limits(joint: ComponentInfo, limits: JointLimits, where: str) -> None:
    """Tighten `limits` (from the URDF) with the command interfaces' `min`/`max`."""
    if not joint.enable_limits:
        limits.disable_all_limits()
        return
    for itf in joint.command_interfaces:
        at = f"{where} <command_interface name='{itf.name}'>"
        given = itf.min is not None or itf.max is not None
        low = _limit_value(itf.min, at, 'min')
        high = _limit_value(itf.max, at, 'max')
        if itf.name == 'position':
            if not (limits.has_position_limits and itf.enable_limits):
                limits.lower, limits.upper = -_INF, _INF
            if itf.enable_limits and given:
                limits.lower = max(limits.lower, -_INF if low is None else low)
                limits.upper = min(limits.upper, _INF if high is None else high)
                limits.has_position_limits = True
            limits.has_position_limits = limits.has_position_limits and itf.enable_limits
        elif itf.name in ('velocity', 'effort'):
            attr, flag = itf.name, f'has_{itf.name}_limits'
            current = getattr(limits, attr) if getattr(limits, flag) else _INF
            if itf.enable_limits and given:
                # A symmetric bound: the tighter of |min| and max.
                bound = min(abs(low) if low is not None else _INF, _INF if high is None else high)
                current = min(current, bound)
                setattr(limits, flag, True)
            setattr(limits, attr, current)
            setattr(limits, flag, getattr(limits, flag) and itf.enable_limits)
        elif itf.name == 'acceleration':
            if low is not None:
                limits.deceleration = abs(low)
                limits.has_deceleration_limits = itf.enable_limits
            if high is not None:
                limits.acceleration = abs(high)
                limits.has_acceleration_limits = itf.enable_limits
            if low is not None and high is None:
                limits.acceleration = limits.deceleration
            if high is not None and low is None:
                limits.deceleration = limits.acceleration
        elif itf.name == 'jerk':
            if low is not None:
                _logger.warning('%s: jerk takes only a max limit; min is ignored', at)
            if high is not None:
                limits.jerk = abs(high)
                limits.has_jerk_limits = itf.enable_limits
        elif given:
            _logger.warning(
                '%s: min/max are not joint limits (only position, velocity, effort, '
                'acceleration and jerk are); kept as interface parameters',
                at,
            )


def _limit_value(text: str | None, where: str, what: str) -> float | None:
    if text is None or text == '':
        return None
    value = _finite_float(text)
    if value is None:
        raise ComponentParserError(f"{where}: <param name='{what}'> '{text}' is not a number")
    return value


# --- small helpers ---------------------------------------------------------------------------
def _text(element: ET.Element) -> str:
    return (element.text or '').strip()


def _required_attribute(element: ET.Element, attribute: str, where: str) -> str:
    value = element.get(attribute)
    if value is None or not value.strip():
        raise ComponentParserError(f"{where}: missing '{attribute}' attribute")
    return value.strip()


def _bool_attribute(element: ET.Element, attribute: str, default: bool, where: str) -> bool:
    value = element.get(attribute)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered not in ('true', 'false'):
        raise ComponentParserError(
            f"{where}: {attribute}='{value}' is not a boolean (expected 'true' or 'false')"
        )
    return lowered == 'true'


def _int_attribute(
    element: ET.Element, attribute: str, default: int, pattern: re.Pattern[str], where: str
) -> int:
    value = element.get(attribute)
    if value is None:
        return default
    text = value.strip()
    if not pattern.fullmatch(text):
        kind = 'a positive integer' if pattern is _POSITIVE_INT else 'a non-negative integer'
        raise ComponentParserError(f"{where}: {attribute}='{value}' is not {kind}")
    return int(text)


def _int_list(text: str, attribute: str, where: str) -> list[int]:
    body = text.strip()
    if not (body.startswith('[') and body.endswith(']')):
        raise ComponentParserError(f"{where}: {attribute}='{text}' must be a list like '[0, 1]'")
    items = [item.strip() for item in body[1:-1].split(',')]
    if items == ['']:
        return []
    if not all(_NON_NEGATIVE_INT.fullmatch(item) for item in items):
        raise ComponentParserError(f"{where}: {attribute}='{text}' must list CPU numbers")
    return [int(item) for item in items]


def _finite_float(text: str) -> float | None:
    if '_' in text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _unknown_tag(child: ET.Element, where: str, allowed: tuple[str, ...]) -> None:
    raise ComponentParserError(
        f'{where}: unknown tag <{child.tag}> (expected one of: '
        f'{", ".join(f"<{tag}>" for tag in allowed)})'
    )


def _check_unique(components: list[ComponentInfo], kind: str, where: str) -> None:
    seen: set[str] = set()
    for component in components:
        if component.name in seen:
            raise ComponentParserError(f"{where}: <{kind} name='{component.name}'> appears twice")
        seen.add(component.name)
