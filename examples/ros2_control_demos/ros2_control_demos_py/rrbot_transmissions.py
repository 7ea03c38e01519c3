"""RRBot whose joints reach their actuators through transmissions (example 8): each
`<transmission>` is a `transmission_interface/SimpleTransmission`; write() maps the joint
commands to actuator commands, the actuators move a `1 / actuator_slowdown` share of the way
each write(), and read() maps the actuator positions back to the joints.

`<hardware>` parameter (required): `actuator_slowdown` (not 0). Every transmission joint
has exactly one `position` state and command interface.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from py_controllers.transmission_interface import (
    ActuatorHandle,
    JointHandle,
    SimpleTransmissionLoader,
    TransmissionError,
)
from ros2_control_demos_py.common import Throttle, log_throttled, logger_of, read_numbers

SIMPLE = 'transmission_interface/SimpleTransmission'


@dataclass
class InterfaceData:
    """A joint's or an actuator's command and state, and the handle the transmission maps."""

    name: str
    passthrough: Any
    command: float = math.nan
    state: float = math.nan


@dataclass
class Link:
    """One transmission and the names its log lines show (one joint, one actuator)."""

    name: str
    reduction: float
    joint: InterfaceData
    actuator: InterfaceData
    transmission: Any = field(default=None)


def _g(value: float) -> str:
    """A double as `std::ostream <<` writes it by default (6 significant digits)."""
    return format(value, 'g')


class RRBotTransmissionsSystemPositionOnlyHardware(SystemInterface):
    """ros2_control_demo_example_8/RRBotTransmissionsSystemPositionOnlyHardware."""

    def on_init(self, info: Any) -> CallbackReturn:
        log = logger_of(self)
        log.info('Initializing...')
        if super().on_init(info) != CallbackReturn.SUCCESS:
            return CallbackReturn.ERROR
        values = read_numbers(self, ['actuator_slowdown'])
        if values is None:
            return CallbackReturn.ERROR
        self.actuator_slowdown = values[0]
        if self.actuator_slowdown == 0.0:
            log.fatal("hardware parameter 'actuator_slowdown' must not be 0")
            return CallbackReturn.ERROR
        self.links: list[Link] = []
        self.joints: list[InterfaceData] = []
        self.actuators: list[InterfaceData] = []
        for t in info.transmissions:
            if t.type != SIMPLE:  # only simple transmissions in this demo
                log.fatal(f"Transmission '{t.name}' of type '{t.type}' not supported in this demo")
                return CallbackReturn.ERROR
            try:
                transmission = SimpleTransmissionLoader().load(t)
            except TransmissionError as exc:
                log.fatal(f'Error while loading {t.name}: {exc}')
                return CallbackReturn.ERROR
            joints = []
            for joint in t.joints:  # one position interface per joint in this demo
                if not (joint.state_interfaces == ['position'] == joint.command_interfaces):
                    log.fatal(
                        f"Invalid transmission joint '{joint.name}' configuration for this demo"
                    )
                    return CallbackReturn.ERROR
                joints.append(InterfaceData(joint.name, JointHandle(joint.name, 'position')))
            actuators = [
                InterfaceData(a.name, ActuatorHandle(a.name, 'position')) for a in t.actuators
            ]
            try:
                transmission.configure(
                    [j.passthrough for j in joints], [a.passthrough for a in actuators]
                )
            except TransmissionError as exc:
                log.fatal(f'Error while configuring {t.name}: {exc}')
                return CallbackReturn.ERROR
            self.joints += joints
            self.actuators += actuators
            reduction = t.joints[0].mechanical_reduction
            self.links.append(Link(t.name, reduction, joints[0], actuators[0], transmission))
        self._read_log = Throttle()
        self._write_log = Throttle()
        log.info('Initialization successful')
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        log = logger_of(self)
        log.info('Configuring...')
        for data in (*self.joints, *self.actuators):
            data.command = data.state = 0.0
            data.passthrough.value = math.nan
        for joint in self.joints:  # reset values always when configuring hardware
            self.set_state(f'{joint.name}/position', 0.0)
            self.set_command(f'{joint.name}/position', 0.0)
        log.info('Configuration successful')
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        log = logger_of(self)
        log.info('Activating...')
        for joint in self.joints:  # command and state should be equal when starting
            name = f'{joint.name}/position'
            self.set_command(name, self.get_state(name))
        log.info('Activation successful')
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        log = logger_of(self)
        log.info('Deactivating...')
        log.info('Deactivation successful')
        return CallbackReturn.SUCCESS

    def read(self, time: Any, period: Any) -> ReturnType:
        for actuator in self.actuators:  # actuator: state -> transmission
            actuator.passthrough.value = actuator.state
        for link in self.links:  # transmission: actuator -> joint
            link.transmission.actuator_to_joint()
        for joint in self.joints:  # joint: transmission -> state
            joint.state = joint.passthrough.value
        log_throttled(self, self._read_log, lambda: self._lines('State data:', 'state', '<--'))
        for joint in self.joints:
            self.set_state(f'{joint.name}/position', joint.state)
        return ReturnType.OK

    def write(self, time: Any, period: Any) -> ReturnType:
        for joint in self.joints:  # joint: command -> transmission
            joint.command = self.get_command(f'{joint.name}/position')
            joint.passthrough.value = joint.command
        for link in self.links:  # transmission: joint -> actuator
            link.transmission.joint_to_actuator()
        slowdown = self.actuator_slowdown
        for actuator in self.actuators:  # actuator: transmission -> command; the motor moves
            actuator.command = actuator.passthrough.value
            actuator.state += (actuator.command - actuator.state) / slowdown
        log_throttled(self, self._write_log, lambda: self._lines('Command data:', 'command', '-->'))
        return ReturnType.OK

    def _lines(self, title: str, kind: str, arrow: str) -> str:
        """'<joint>: <value> <arrow> <transmission>(R=<reduction>) <arrow> <actuator>: <value>'
        per transmission, as upstream logs them."""
        rows = [
            f'\n\t{k.joint.name}: {_g(getattr(k.joint, kind))} {arrow} {k.name}'
            f'(R={_g(k.reduction)}) {arrow} {k.actuator.name}: {_g(getattr(k.actuator, kind))}'
            for k in self.links
        ]
        return title + ''.join(rows)
