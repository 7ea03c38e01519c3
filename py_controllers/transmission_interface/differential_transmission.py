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

from py_controllers.transmission_interface.transmission import (
    EFFORT_KINDS,
    MAPPED_INTERFACES,
    PairTransmission,
)


class DifferentialTransmission(PairTransmission):
    """A differential between two actuators and two joints."""

    INTERFACES = MAPPED_INTERFACES
    EFFORT_LIKE = EFFORT_KINDS

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
