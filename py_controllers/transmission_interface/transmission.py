"""The transmission contract (upstream's transmission_interface::Transmission).

A transmission maps actuator-space values to joint-space values and back, on the handles
it was configured with: `configure(joint_handles, actuator_handles)` once, then
`actuator_to_joint()` after reading the motors and `joint_to_actuator()` before writing
them. Values are mapped as they are: a NaN in gives NaN out, as upstream.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence

from py_controllers.hardware_interface.types import (
    HW_IF_EFFORT,
    HW_IF_FORCE,
    HW_IF_POSITION,
    HW_IF_TORQUE,
    HW_IF_VELOCITY,
)
from py_controllers.transmission_interface.handle import (
    HW_IF_ABSOLUTE_POSITION,
    TransmissionError,
    ValueHandle,
    checked,
    names_of,
    ordered,
)

MAPPED_INTERFACES = (
    HW_IF_POSITION,
    HW_IF_VELOCITY,
    HW_IF_EFFORT,
    HW_IF_TORQUE,
    HW_IF_FORCE,
    HW_IF_ABSOLUTE_POSITION,
)
"""What upstream's simple and differential transmissions map (absolute_position actuator ->
joint only)."""
EFFORT_KINDS = (HW_IF_EFFORT, HW_IF_TORQUE, HW_IF_FORCE)
"""The interfaces that map as effort."""

Quad = tuple[ValueHandle, ValueHandle, ValueHandle, ValueHandle]
"""Joint 1, joint 2, actuator 1, actuator 2 handles of one interface."""


class Transmission(ABC):
    """Actuator <-> joint maps for position, velocity and effort (and what a subclass adds)."""

    @abstractmethod
    def configure(
        self, joint_handles: Sequence[ValueHandle], actuator_handles: Sequence[ValueHandle]
    ) -> None:
        """Take the handles to map between; TransmissionError when they do not fit."""

    @abstractmethod
    def actuator_to_joint(self) -> None:
        """Write the joint handles from the actuator handles."""

    @abstractmethod
    def joint_to_actuator(self) -> None:
        """Write the actuator handles from the joint handles."""

    @abstractmethod
    def num_actuators(self) -> int:
        """How many actuators it connects."""

    @abstractmethod
    def num_joints(self) -> int:
        """How many joints it connects."""

    def get_supported_joint_interfaces(self) -> list[str]:
        """The joint interface names it maps."""
        return [HW_IF_POSITION, HW_IF_VELOCITY, HW_IF_EFFORT]

    def get_supported_actuator_interfaces(self) -> list[str]:
        """The actuator interface names it maps."""
        return [HW_IF_POSITION, HW_IF_VELOCITY, HW_IF_EFFORT]

    def get_actuator_position_offset(self) -> float:
        """An actuator position offset to initialise the actuator with (0 here, as upstream)."""
        return 0.0

    def get_joint_position_offset(self) -> float:
        """A joint position offset to initialise the joint with (0 here, as upstream)."""
        return 0.0


class PairTransmission(Transmission):
    """The part every two-actuator, two-joint transmission shares: its checked reductions
    and offsets, the handles paired by interface (`pair_handles`) and sorted into efforts,
    velocities, positions and absolute positions, and upstream's accessors. A subclass
    names its `INTERFACES` and `EFFORT_LIKE` kinds and writes the two maps."""

    INTERFACES: tuple[str, ...] = (HW_IF_POSITION, HW_IF_VELOCITY, HW_IF_EFFORT)
    EFFORT_LIKE: tuple[str, ...] = (HW_IF_EFFORT,)

    def __init__(
        self,
        actuator_reduction: Sequence[float],
        joint_reduction: Sequence[float],
        joint_offset: Sequence[float] = (0.0, 0.0),
    ) -> None:
        self._ar, self._jr, self._jo = pair_parameters(
            actuator_reduction, joint_reduction, joint_offset
        )
        self._efforts: list[Quad] = []
        self._velocities: list[Quad] = []
        self._positions: list[Quad] = []
        self._absolute_positions: list[Quad] = []

    def configure(
        self, joint_handles: Sequence[ValueHandle], actuator_handles: Sequence[ValueHandle]
    ) -> None:
        """Pair the handles (see `pair_handles`): TransmissionError when they do not fit."""
        quads = pair_handles(joint_handles, actuator_handles, self.INTERFACES)
        self._efforts = [quads[i] for i in self.EFFORT_LIKE if i in quads]
        self._velocities = [quads[i] for i in (HW_IF_VELOCITY,) if i in quads]
        self._positions = [quads[i] for i in (HW_IF_POSITION,) if i in quads]
        self._absolute_positions = [quads[i] for i in (HW_IF_ABSOLUTE_POSITION,) if i in quads]

    def num_actuators(self) -> int:
        return 2

    def num_joints(self) -> int:
        return 2

    def get_actuator_reduction(self) -> list[float]:
        """[n_a1, n_a2]."""
        return list(self._ar)

    def get_joint_reduction(self) -> list[float]:
        """[n_j1, n_j2]."""
        return list(self._jr)

    def get_joint_offset(self) -> list[float]:
        """[x_off1, x_off2]."""
        return list(self._jo)

    def get_supported_joint_interfaces(self) -> list[str]:
        return list(self.INTERFACES)

    def get_supported_actuator_interfaces(self) -> list[str]:
        return list(self.INTERFACES)


def reduction(value: float, what: str) -> float:
    """`value` as a gear ratio: finite and non-zero (upstream refuses zero; a NaN or
    infinite ratio would turn every mapped value into NaN or 0, so it is refused too)."""
    number = float(value)
    if number == 0.0:
        raise TransmissionError(f'{what} cannot be zero')
    if not math.isfinite(number):
        raise TransmissionError(f'{what} must be a finite number, not {number}')
    return number


def offset(value: float, what: str) -> float:
    """`value` as a position offset: finite."""
    number = float(value)
    if not math.isfinite(number):
        raise TransmissionError(f'{what} must be a finite number, not {number}')
    return number


def pair_parameters(
    actuator_reduction: Sequence[float],
    joint_reduction: Sequence[float],
    joint_offset: Sequence[float],
) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]]:
    """The checked parameters of a two-actuator, two-joint transmission."""
    if not (len(actuator_reduction) == len(joint_reduction) == len(joint_offset) == 2):
        raise TransmissionError('reduction and offset vectors must have size 2')
    ar = tuple(
        reduction(v, f'actuator reduction {i + 1}') for i, v in enumerate(actuator_reduction)
    )
    jr = tuple(reduction(v, f'joint reduction {i + 1}') for i, v in enumerate(joint_reduction))
    jo = tuple(offset(v, f'joint offset {i + 1}') for i, v in enumerate(joint_offset))
    return (ar[0], ar[1]), (jr[0], jr[1]), (jo[0], jo[1])


def require_handles(
    joint_handles: Sequence[ValueHandle], actuator_handles: Sequence[ValueHandle]
) -> None:
    """Upstream's first two checks of every configure()."""
    if not joint_handles:
        raise TransmissionError('no joint handles were passed in')
    if not actuator_handles:
        raise TransmissionError('no actuator handles were passed in')


def pair_handles(
    joint_handles: Sequence[ValueHandle],
    actuator_handles: Sequence[ValueHandle],
    interfaces: Sequence[str],
) -> dict[str, Quad]:
    """The handles of a two-joint, two-actuator transmission, by interface, for the
    interfaces given on both sides. Refused, as upstream's differential: no handles, other
    than two joint or two actuator names, an interface given for one of the two joints (or
    actuators) only, no interface given on both sides."""
    joints = checked(joint_handles, 'joint')
    actuators = checked(actuator_handles, 'actuator')
    require_handles(joints, actuators)
    found: dict[str, dict[str, list[ValueHandle]]] = {}
    for side, handles in (('joint', joints), ('actuator', actuators)):
        names = names_of(handles)
        if len(names) != 2:
            raise TransmissionError(
                f'there should be exactly two unique {side} names but was given {names}'
            )
        found[side] = {i: ordered(handles, names, i) for i in interfaces}
        for interface, some in found[side].items():
            if some and len(some) != 2:
                raise TransmissionError(
                    f'not enough valid {side} {interface} handles: '
                    f'{[h.prefix_name for h in some]} for the {side}s {names}'
                )
    quads: dict[str, Quad] = {}
    for i in interfaces:
        if found['joint'][i] and found['actuator'][i]:
            (j1, j2), (a1, a2) = found['joint'][i], found['actuator'][i]
            quads[i] = (j1, j2, a1, a2)
    if not quads:
        raise TransmissionError(
            'no pair-wise interface available between joints and actuators: joints have '
            f'{[i for i in interfaces if found["joint"][i]]}, '
            f'actuators {[i for i in interfaces if found["actuator"][i]]}'
        )
    return quads
