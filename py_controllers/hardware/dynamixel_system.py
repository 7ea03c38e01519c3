"""`py_controllers/DynamixelSystem`: ROBOTIS Dynamixel X-series servos (Protocol 2.0) on one bus.

Through ROBOTIS's `dynamixel-sdk`; one sync read (a fast sync read where the firmware has
it) and one sync write per goal register each cycle, on a thread of its own. Position,
velocity and current (the `effort` interfaces, in amperes) commands; models XL330-M077/M288,
XL430-W250 (no current), XM430-W210/W350, XM540-W150/W270 (`servo_bus.models`). Also loads
as upstream's `dynamixel_hardware/DynamixelHardware` with its parameters (`usb_port`,
`baud_rate`, `use_dummy`, per joint `id` and the raw gains), so those URDFs run unchanged.
Parameters: `servo_bus.servo_params`; behaviour: `servo_bus.servo_system`.
"""

from __future__ import annotations

from py_controllers.hardware.servo_bus.models import DYNAMIXEL
from py_controllers.hardware.servo_bus.servo_system import ServoBusSystem


class DynamixelSystem(ServoBusSystem):
    """Dynamixel X-series joints on one serial bus."""

    family = DYNAMIXEL
