"""transmission_interface without ROS: actuator <-> joint maps for gears, differentials and
four-bar linkages, their loaders from `<transmission>` tags (plug-ins by upstream name),
and `ComponentTransmissions`, which wires them into a hardware component."""

from __future__ import annotations

from py_controllers.transmission_interface.component_transmissions import (
    ComponentTransmissions,
    MappingSlot,
)
from py_controllers.transmission_interface.differential_transmission import (
    DifferentialTransmission,
)
from py_controllers.transmission_interface.four_bar_linkage_transmission import (
    FourBarLinkageTransmission,
)
from py_controllers.transmission_interface.handle import (
    HW_IF_ABSOLUTE_POSITION,
    ActuatorHandle,
    JointHandle,
    TransmissionError,
    ValueHandle,
)
from py_controllers.transmission_interface.loader import (
    TRANSMISSIONS_GROUP,
    DifferentialTransmissionLoader,
    FourBarLinkageTransmissionLoader,
    SimpleTransmissionLoader,
    TransmissionLoader,
    load_transmission,
)
from py_controllers.transmission_interface.simple_transmission import SimpleTransmission
from py_controllers.transmission_interface.transmission import Transmission

__all__ = [
    'HW_IF_ABSOLUTE_POSITION',
    'TRANSMISSIONS_GROUP',
    'ActuatorHandle',
    'ComponentTransmissions',
    'DifferentialTransmission',
    'DifferentialTransmissionLoader',
    'FourBarLinkageTransmission',
    'FourBarLinkageTransmissionLoader',
    'JointHandle',
    'MappingSlot',
    'SimpleTransmission',
    'SimpleTransmissionLoader',
    'Transmission',
    'TransmissionError',
    'TransmissionLoader',
    'ValueHandle',
    'load_transmission',
]
