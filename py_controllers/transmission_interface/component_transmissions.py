"""A hardware component's transmissions in a few lines: built from its `<transmission>`
tags, mapping actuator states to its joint states and its joint commands to actuator
commands.

    self.gears = ComponentTransmissions(info)                          # on_init
    self.gears.configure(self.state_interfaces, self.command_interfaces)  # on_configure
    ... fill self.gears.actuator_states; self.gears.actuator_to_joint()  # read()
    self.gears.joint_to_actuator(); send self.gears.actuator_commands    # write()

Each transmission is loaded twice, once for the state path and once for the command path,
so neither overwrites the other's values. The joint side of each path maps the interfaces
the component's `<joint>` declares and the transmission supports (others are the
component's own business); an actuator has the interfaces of its transmission's joints
(or those its TransmissionInfo lists: an actuator component's implicit `actuator1` has its
joint's).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, MutableMapping
from typing import Any

from py_controllers.hardware_interface.component_info import (
    HardwareInfo,
    TransmissionInfo,
    TransmissionJointInfo,
)
from py_controllers.transmission_interface.handle import (
    ActuatorHandle,
    TransmissionError,
    ValueHandle,
)
from py_controllers.transmission_interface.loader import load_transmission
from py_controllers.transmission_interface.transmission import Transmission


class MappingSlot:
    """A handle onto `mapping[key]` ('joint/interface'), for joint values kept in a dict."""

    __slots__ = ('interface_name', 'key', 'mapping', 'prefix_name')

    def __init__(self, mapping: MutableMapping[str, float], key: str) -> None:
        self.mapping = mapping
        self.key = key
        self.prefix_name, _, self.interface_name = key.rpartition('/')

    @property
    def value(self) -> float:
        return self.mapping[self.key]

    @value.setter
    def value(self, value: float) -> None:
        self.mapping[self.key] = value


class ComponentTransmissions:
    """The transmissions of one hardware component and the actuator values they map."""

    def __init__(self, info: HardwareInfo) -> None:
        """Load every `<transmission>` of `info` (TransmissionError naming the one at fault:
        unknown plugin, a description its loader refuses, a joint or an actuator in two)."""
        self.infos: list[TransmissionInfo] = list(info.transmissions)
        self._state_side = [load_transmission(t) for t in self.infos]
        self._command_side = [load_transmission(t) for t in self.infos]
        _check_each_once(self.infos)
        self.actuator_states: dict[str, ActuatorHandle] = {}
        """Actuator state values by 'actuator/interface': fill them, then actuator_to_joint()."""
        self.actuator_commands: dict[str, ActuatorHandle] = {}
        """Actuator command values by 'actuator/interface', after joint_to_actuator()."""
        self._states: list[Transmission] = []
        self._commands: list[Transmission] = []
        self._configured = False

    @property
    def transmissions(self) -> list[Transmission]:
        """The state-path transmissions, in `<transmission>` order (for their parameters)."""
        return list(self._state_side)

    def configure(self, joint_states: Mapping[str, Any], joint_commands: Mapping[str, Any]) -> None:
        """Connect the transmissions to the component's joint-side values by
        'joint/interface': its handles (`self.state_interfaces`, `self.command_interfaces`)
        or dicts of floats, which are then written in place. TransmissionError when a value
        the description declares is missing or a transmission refuses the handles."""
        self._configured = False
        self.actuator_states, self.actuator_commands = {}, {}
        self._states, self._commands = [], []
        for info, state, command in zip(self.infos, self._state_side, self._command_side):
            where = f"transmission '{info.name}'"
            for transmission, values, actuators, kind, out in (
                (state, joint_states, self.actuator_states, 'state', self._states),
                (command, joint_commands, self.actuator_commands, 'command', self._commands),
            ):
                joints = _joint_handles(info, transmission, values, kind, where)
                if not joints:
                    continue  # nothing of this kind goes through the transmission
                owned = _actuator_handles(info, transmission, joints, kind)
                try:
                    transmission.configure(joints, owned)
                except TransmissionError as exc:
                    raise TransmissionError(f'{where}, {kind} interfaces: {exc}') from None
                actuators.update({h.name: h for h in owned})
                out.append(transmission)
        self._configured = True

    def actuator_to_joint(self) -> None:
        """Joint states from the actuator states (call in read())."""
        if not self._configured:
            raise TransmissionError('ComponentTransmissions: configure() before mapping')
        for transmission in self._states:
            transmission.actuator_to_joint()

    def joint_to_actuator(self) -> None:
        """Actuator commands from the joint commands (call in write())."""
        if not self._configured:
            raise TransmissionError('ComponentTransmissions: configure() before mapping')
        for transmission in self._commands:
            transmission.joint_to_actuator()


def _interfaces(end: TransmissionJointInfo, kind: str) -> list[str]:
    return end.state_interfaces if kind == 'state' else end.command_interfaces


def _joint_handles(
    info: TransmissionInfo,
    transmission: Transmission,
    values: Mapping[str, Any],
    kind: str,
    where: str,
) -> list[ValueHandle]:
    supported = transmission.get_supported_joint_interfaces()
    handles: list[ValueHandle] = []
    for joint in info.joints:
        for interface in _interfaces(joint, kind):
            if interface not in supported:
                continue
            key = f'{joint.name}/{interface}'
            if key not in values:
                raise TransmissionError(
                    f"{where}: the joint {kind} values have no '{key}', which the <joint> declares"
                )
            value = values[key]
            if isinstance(value, (int, float)):
                handles.append(MappingSlot(values, key))  # type: ignore[arg-type]
            else:
                handles.append(value)
    return handles


def _actuator_handles(
    info: TransmissionInfo, transmission: Transmission, joints: list[ValueHandle], kind: str
) -> list[ActuatorHandle]:
    supported = transmission.get_supported_actuator_interfaces()
    mirrored = list(dict.fromkeys(h.interface_name for h in joints))
    handles: list[ActuatorHandle] = []
    for actuator in info.actuators:
        interfaces = _interfaces(actuator, kind) or mirrored
        handles.extend(
            ActuatorHandle(actuator.name, i, math.nan) for i in interfaces if i in supported
        )
    return handles


def _check_each_once(infos: list[TransmissionInfo]) -> None:
    """A joint or an actuator in two transmissions would be written by both: refused."""
    for kind in ('joints', 'actuators'):
        owner: dict[str, str] = {}
        for info in infos:
            for end in getattr(info, kind):
                if end.name in owner:
                    raise TransmissionError(
                        f"{kind[:-1]} '{end.name}' is in transmissions '{owner[end.name]}' "
                        f"and '{info.name}'"
                    )
                owner[end.name] = info.name
