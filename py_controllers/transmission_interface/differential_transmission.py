"""Two actuators, two joints, through a differential (upstream's DifferentialTransmission).

With actuator reductions n_a1, n_a2, joint reductions n_j1, n_j2 and joint offsets:

    actuator -> joint:  x_j1 = (x_a1/n_a1 + x_a2/n_a2) / (2 n_j1) + x_off1
                        x_j2 = (x_a1/n_a1 - x_a2/n_a2) / (2 n_j2) + x_off2
                        tau_j1 = n_j1 (n_a1 tau_a1 + n_a2 tau_a2)
                        tau_j2 = n_j2 (n_a1 tau_a1 - n_a2 tau_a2)
    joint -> actuator:  x_a1 = n_a1 (n_j1 (x_j1 - x_off1) + n_j2 (x_j2 - x_off2))
                        x_a2 = n_a2 (n_j1 (x_j1 - x_off1) - n_j2 (x_j2 - x_off2))
                        tau_a1 = (tau_j1/n_j1 + tau_j2/n_j2) / (2 n_a1)
                        tau_a2 = (tau_j1/n_j1 - tau_j2/n_j2) / (2 n_a2)

Velocity maps as position without the offsets; torque and force as effort;
absolute_position as position, actuator -> joint only. Joint 1 and actuator 1 are the
names of the first handles given (see `names_of`).
"""

from __future__ import annotations

from collections.abc import Sequence

from py_controllers.hardware_interface.types import (
    HW_IF_EFFORT,
    HW_IF_FORCE,
    HW_IF_POSITION,
    HW_IF_TORQUE,
    HW_IF_VELOCITY,
)
from py_controllers.transmission_interface.handle import HW_IF_ABSOLUTE_POSITION, ValueHandle
from py_controllers.transmission_interface.transmission import (
    Quad,
    Transmission,
    pair_handles,
    pair_parameters,
)

INTERFACES = [
    HW_IF_POSITION,
    HW_IF_VELOCITY,
    HW_IF_EFFORT,
    HW_IF_TORQUE,
    HW_IF_FORCE,
    HW_IF_ABSOLUTE_POSITION,
]
EFFORT_LIKE = (HW_IF_EFFORT, HW_IF_TORQUE, HW_IF_FORCE)


class DifferentialTransmission(Transmission):
    """A differential between two actuators and two joints."""

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
        quads = pair_handles(joint_handles, actuator_handles, INTERFACES)
        self._efforts = [quads[i] for i in EFFORT_LIKE if i in quads]
        self._velocities = [quads[i] for i in (HW_IF_VELOCITY,) if i in quads]
        self._positions = [quads[i] for i in (HW_IF_POSITION,) if i in quads]
        self._absolute_positions = [quads[i] for i in (HW_IF_ABSOLUTE_POSITION,) if i in quads]

    def actuator_to_joint(self) -> None:
        (ar1, ar2), (jr1, jr2), (off1, off2) = self._ar, self._jr, self._jo
        for j1, j2, a1, a2 in self._efforts:
            t1, t2 = a1.value * ar1, a2.value * ar2
            j1.value = jr1 * (t1 + t2)
            j2.value = jr2 * (t1 - t2)
        for j1, j2, a1, a2 in self._velocities:
            v1, v2 = a1.value / ar1, a2.value / ar2
            j1.value = (v1 + v2) / (2.0 * jr1)
            j2.value = (v1 - v2) / (2.0 * jr2)
        for j1, j2, a1, a2 in (*self._positions, *self._absolute_positions):
            x1, x2 = a1.value / ar1, a2.value / ar2
            j1.value = (x1 + x2) / (2.0 * jr1) + off1
            j2.value = (x1 - x2) / (2.0 * jr2) + off2

    def joint_to_actuator(self) -> None:
        (ar1, ar2), (jr1, jr2), (off1, off2) = self._ar, self._jr, self._jo
        for j1, j2, a1, a2 in self._efforts:
            t1, t2 = j1.value / jr1, j2.value / jr2
            a1.value = (t1 + t2) / (2.0 * ar1)
            a2.value = (t1 - t2) / (2.0 * ar2)
        for j1, j2, a1, a2 in self._velocities:
            v1, v2 = j1.value * jr1, j2.value * jr2
            a1.value = (v1 + v2) * ar1
            a2.value = (v1 - v2) * ar2
        for j1, j2, a1, a2 in self._positions:
            x1, x2 = (j1.value - off1) * jr1, (j2.value - off2) * jr2
            a1.value = (x1 + x2) * ar1
            a2.value = (x1 - x2) * ar2

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
        return list(INTERFACES)

    def get_supported_actuator_interfaces(self) -> list[str]:
        return list(INTERFACES)
