"""Build a transmission from its `<transmission>` description (upstream's loaders).

Loaders are plug-ins, found by the upstream plugin name in the entry-point group
`py_controllers.transmissions` (a third party adds one there, or with
`plugins.register(TRANSMISSIONS_GROUP, name, cls)` in a test). Each reads the reductions and
offsets of the description's joints and actuators in the order written. Where upstream
logs and returns nothing, a loader here raises TransmissionError naming the transmission;
it also refuses a description with the wrong number of joints or actuators and a value its
transmission would not use (upstream takes the first joints and ignores the rest).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from py_controllers import plugins
from py_controllers.hardware_interface.component_info import (
    TransmissionInfo,
    TransmissionJointInfo,
)
from py_controllers.transmission_interface.differential_transmission import (
    DifferentialTransmission,
)
from py_controllers.transmission_interface.four_bar_linkage_transmission import (
    FourBarLinkageTransmission,
)
from py_controllers.transmission_interface.handle import TransmissionError
from py_controllers.transmission_interface.simple_transmission import SimpleTransmission
from py_controllers.transmission_interface.transmission import Transmission

TRANSMISSIONS_GROUP = 'py_controllers.transmissions'


class TransmissionLoader(ABC):
    """Makes one kind of transmission from a TransmissionInfo."""

    @abstractmethod
    def load(self, transmission_info: TransmissionInfo) -> Transmission:
        """A new transmission; TransmissionError when the description does not fit."""


class SimpleTransmissionLoader(TransmissionLoader):
    """`transmission_interface/SimpleTransmission`: the joint's reduction and offset."""

    def load(self, transmission_info: TransmissionInfo) -> Transmission:
        (joint,), _ = _ends(transmission_info, 1, 1)
        for actuator in transmission_info.actuators:
            _unused(transmission_info, actuator, 'mechanical_reduction', 1.0)
        return _built(
            transmission_info,
            lambda: SimpleTransmission(joint.mechanical_reduction, joint.offset),
        )


class DifferentialTransmissionLoader(TransmissionLoader):
    """`transmission_interface/DifferentialTransmission`: both actuators' reductions, both
    joints' reductions and offsets."""

    def load(self, transmission_info: TransmissionInfo) -> Transmission:
        joints, actuators = _ends(transmission_info, 2, 2)
        return _built(
            transmission_info,
            lambda: DifferentialTransmission(*_pair_parameters(joints, actuators)),
        )


class FourBarLinkageTransmissionLoader(TransmissionLoader):
    """`transmission_interface/FourBarLinkageTransmission`: as the differential's."""

    def load(self, transmission_info: TransmissionInfo) -> Transmission:
        joints, actuators = _ends(transmission_info, 2, 2)
        return _built(
            transmission_info,
            lambda: FourBarLinkageTransmission(*_pair_parameters(joints, actuators)),
        )


def load_transmission(transmission_info: TransmissionInfo) -> Transmission:
    """The transmission its plugin's loader makes of `transmission_info`; TransmissionError
    for an unknown or broken plugin and for a description the loader refuses."""
    name = transmission_info.plugin
    where = f"transmission '{transmission_info.name}'"
    if not plugins.has(TRANSMISSIONS_GROUP, name):
        known = plugins.available(TRANSMISSIONS_GROUP)
        close = plugins.close_names(name, known)
        hint = f' did you mean {" or ".join(repr(c) for c in close)}?' if close else ''
        raise TransmissionError(
            f"{where}: unknown transmission plugin '{name}'.{hint} "
            f'(known: {", ".join(known) or "none"})'
        )
    try:
        cls = plugins.load(TRANSMISSIONS_GROUP, name, TransmissionLoader)
        loader = cls()
    except Exception as exc:  # a third-party loader that fails to import or to construct
        raise TransmissionError(f"{where}: plugin '{name}': {exc}") from exc
    try:
        transmission = loader.load(transmission_info)
    except TransmissionError as exc:
        if str(exc).startswith(where):
            raise
        raise TransmissionError(f'{where} ({name}): {exc}') from None
    except Exception as exc:  # a third-party loader's own failure, named
        raise TransmissionError(f"{where}: plugin '{name}' failed to load it: {exc!r}") from exc
    if not isinstance(transmission, Transmission):
        raise TransmissionError(
            f"{where}: plugin '{name}' returned {transmission!r}, not a Transmission"
        )
    return transmission


def _ends(
    info: TransmissionInfo, joints: int, actuators: int
) -> tuple[list[TransmissionJointInfo], list[TransmissionJointInfo]]:
    """The description's joints and actuators, refused unless there are as many as the
    transmission connects; an actuator's offset is never used, so it must be 0."""
    for kind, have, want in (
        ('joint', info.joints, joints),
        ('actuator', info.actuators, actuators),
    ):
        if len(have) != want:
            raise TransmissionError(
                f"transmission '{info.name}' ({info.plugin}) connects {want} {kind}(s), "
                f'the description has {len(have)}: {[e.name for e in have]}'
            )
    for actuator in info.actuators:
        _unused(info, actuator, 'offset', 0.0)
    return info.joints, info.actuators


def _unused(info: TransmissionInfo, end: TransmissionJointInfo, field: str, default: float) -> None:
    value = getattr(end, field)
    if value != default:
        raise TransmissionError(
            f"transmission '{info.name}' ({info.plugin}): <actuator name='{end.name}'> has "
            f'<{field}> {value}, which this transmission does not use (the <joint> takes it)'
        )


def _pair_parameters(
    joints: list[TransmissionJointInfo], actuators: list[TransmissionJointInfo]
) -> tuple[list[float], list[float], list[float]]:
    return (
        [a.mechanical_reduction for a in actuators],
        [j.mechanical_reduction for j in joints],
        [j.offset for j in joints],
    )


def _built(info: TransmissionInfo, make: Callable[[], Transmission]) -> Transmission:
    """`make()`, its refusal naming the transmission."""
    try:
        return make()
    except TransmissionError as exc:
        raise TransmissionError(f"transmission '{info.name}' ({info.plugin}): {exc}") from None
