"""Two actuators, two joints: joint 1 follows actuator 1, joint 2 both (upstream's
FourBarLinkageTransmission; a remote-actuated second joint behaves the same).

With actuator reductions n_a1, n_a2, joint reductions n_j1, n_j2 and joint offsets:

    actuator -> joint:  x_j1 = x_a1 / (n_j1 n_a1) + x_off1
                        x_j2 = (x_a2/n_a2 - x_a1/(n_j1 n_a1)) / n_j2 + x_off2
                        tau_j1 = n_j1 n_a1 tau_a1 + n_a2 tau_a2
                        tau_j2 = n_j2 n_a2 tau_a2
    joint -> actuator:  x_a1 = n_j1 n_a1 (x_j1 - x_off1)
                        x_a2 = n_a2 ((x_j1 - x_off1) + n_j2 (x_j2 - x_off2))
                        tau_a1 = (tau_j1 - tau_j2/n_j2) / (n_j1 n_a1)
                        tau_a2 = tau_j2 / (n_j2 n_a2)

Velocity maps as position without the offsets. Position, velocity and effort only, as
upstream; its configure() also accepts an interface given for one joint of the two and
then ignores it, which is refused here as its differential does.
"""

from __future__ import annotations

from py_controllers.transmission_interface.transmission import PairTransmission


class FourBarLinkageTransmission(PairTransmission):
    """A four-bar linkage between two actuators and two joints (position, velocity and
    effort: `PairTransmission`'s defaults)."""

    def actuator_to_joint(self) -> None:
        (ar1, ar2), (jr1, jr2), (off1, off2) = self._ar, self._jr, self._jo
        for j1, j2, a1, a2 in self._efforts:
            j1.value = jr1 * a1.value * ar1 + a2.value * ar2
            j2.value = jr2 * a2.value * ar2
        for j1, j2, a1, a2 in self._velocities:
            first = a1.value / (jr1 * ar1)
            j1.value = first
            j2.value = (a2.value / ar2 - first) / jr2
        for j1, j2, a1, a2 in self._positions:
            first = a1.value / (jr1 * ar1)
            j1.value = first + off1
            j2.value = (a2.value / ar2 - first) / jr2 + off2

    def joint_to_actuator(self) -> None:
        (ar1, ar2), (jr1, jr2), (off1, off2) = self._ar, self._jr, self._jo
        for j1, j2, a1, a2 in self._efforts:
            a1.value = (j1.value - j2.value / jr2) / (jr1 * ar1)
            a2.value = j2.value / (ar2 * jr2)
        for j1, j2, a1, a2 in self._velocities:
            a1.value = j1.value * jr1 * ar1
            a2.value = (j1.value + j2.value * jr2) * ar2
        for j1, j2, a1, a2 in self._positions:
            x1, x2 = j1.value - off1, j2.value - off2
            a1.value = x1 * jr1 * ar1
            a2.value = (x1 + x2 * jr2) * ar2
