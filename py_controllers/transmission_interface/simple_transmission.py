"""One actuator, one joint, through a gear or a belt (upstream's SimpleTransmission).

With reduction n (joint to actuator; negative flips the direction) and joint offset x_off:

    actuator -> joint:  effort   tau_j = n tau_a       joint -> actuator:  tau_a = tau_j / n
                        velocity v_j   = v_a / n                           v_a   = n v_j
                        position x_j   = x_a / n + x_off                   x_a   = n (x_j - x_off)

torque and force map as effort; absolute_position maps as position, actuator -> joint only.
"""

from __future__ import annotations

from collections.abc import Sequence

from py_controllers.hardware_interface.types import (
    HW_IF_POSITION,
    HW_IF_VELOCITY,
)
from py_controllers.transmission_interface.handle import (
    HW_IF_ABSOLUTE_POSITION,
    TransmissionError,
    ValueHandle,
    checked,
    names_of,
)
from py_controllers.transmission_interface.transmission import (
    EFFORT_KINDS,
    MAPPED_INTERFACES,
    Transmission,
    offset,
    reduction,
    require_handles,
)

Pair = tuple[ValueHandle, ValueHandle]  # (joint handle, actuator handle)


class SimpleTransmission(Transmission):
    """A reducer (or amplifier) between one actuator and one joint."""

    def __init__(self, joint_to_actuator_reduction: float, joint_offset: float = 0.0) -> None:
        self._reduction = reduction(joint_to_actuator_reduction, 'transmission reduction ratio')
        self._offset = offset(joint_offset, 'joint offset')
        self._efforts: list[Pair] = []
        self._velocities: list[Pair] = []
        self._positions: list[Pair] = []
        self._absolute_positions: list[Pair] = []

    def configure(
        self, joint_handles: Sequence[ValueHandle], actuator_handles: Sequence[ValueHandle]
    ) -> None:
        """Take the first handle of each interface on each side; interfaces present on one
        side only are left alone. Refused: no handles, handles of more than one joint or
        actuator, no handle of a supported interface on a side."""
        joints = checked(joint_handles, 'joint')
        actuators = checked(actuator_handles, 'actuator')
        require_handles(joints, actuators)
        for side, handles in (('joint', joints), ('actuator', actuators)):
            names = names_of(handles)
            if len(names) != 1:
                raise TransmissionError(
                    f'{side} handles must name one {side}, got {names}: a SimpleTransmission '
                    f'connects one actuator to one joint'
                )
        joint_by = _first_by_interface(joints)
        actuator_by = _first_by_interface(actuators)
        if not joint_by:
            raise TransmissionError(
                f'no joint handle is one of the interfaces {list(MAPPED_INTERFACES)}'
            )
        if not actuator_by:
            raise TransmissionError(
                f'no actuator handle is one of the interfaces {list(MAPPED_INTERFACES)}'
            )

        def pairs(*interfaces: str) -> list[Pair]:
            return [
                (joint_by[i], actuator_by[i])
                for i in interfaces
                if i in joint_by and i in actuator_by
            ]

        self._efforts = pairs(*EFFORT_KINDS)
        self._velocities = pairs(HW_IF_VELOCITY)
        self._positions = pairs(HW_IF_POSITION)
        self._absolute_positions = pairs(HW_IF_ABSOLUTE_POSITION)

    def actuator_to_joint(self) -> None:
        n, x_off = self._reduction, self._offset
        for joint, actuator in self._efforts:
            joint.value = actuator.value * n
        for joint, actuator in self._velocities:
            joint.value = actuator.value / n
        for joint, actuator in self._positions:
            joint.value = actuator.value / n + x_off
        for joint, actuator in self._absolute_positions:
            joint.value = actuator.value / n + x_off

    def joint_to_actuator(self) -> None:
        n, x_off = self._reduction, self._offset
        for joint, actuator in self._efforts:
            actuator.value = joint.value / n
        for joint, actuator in self._velocities:
            actuator.value = joint.value * n
        for joint, actuator in self._positions:
            actuator.value = (joint.value - x_off) * n

    def num_actuators(self) -> int:
        return 1

    def num_joints(self) -> int:
        return 1

    def get_actuator_reduction(self) -> float:
        """The reduction n (joint to actuator)."""
        return self._reduction

    def get_joint_offset(self) -> float:
        """The joint position offset x_off."""
        return self._offset

    def get_supported_joint_interfaces(self) -> list[str]:
        return list(MAPPED_INTERFACES)

    def get_supported_actuator_interfaces(self) -> list[str]:
        return list(MAPPED_INTERFACES)


def _first_by_interface(handles: list[ValueHandle]) -> dict[str, ValueHandle]:
    """The first handle of each supported interface."""
    found: dict[str, ValueHandle] = {}
    for handle in handles:
        if handle.interface_name in MAPPED_INTERFACES:
            found.setdefault(handle.interface_name, handle)
    return found
