"""`py_controllers/FeetechSystem`: Feetech STS/SMS servos (STS3215, STS3250) on one bus.

Through Feetech's SDK as published on PyPI (`feetech-servo-sdk`, module `scservo_sdk`, the
one LeRobot uses): one sync read and one sync write per goal register each cycle, on a
thread of its own. Position (mode 0) and velocity (mode 1, constant speed) commands; the
effort state is the present current in amperes. The SO-100/SO-101 arms' servos.
Parameters: `servo_bus.servo_params`; behaviour: `servo_bus.servo_system`.
"""

from __future__ import annotations

from py_controllers.hardware.servo_bus.models import FEETECH
from py_controllers.hardware.servo_bus.servo_system import ServoBusSystem


class FeetechSystem(ServoBusSystem):
    """Feetech STS/SMS joints on one serial bus."""

    family = FEETECH
