"""Battery states from state interfaces: one sensor_msgs/BatteryState per battery and their
aggregate, with upstream's rules (battery_state_broadcaster.cpp); no rclpy.

Per battery: the voltage (always), and each optional reading enabled for it; what is not
read is NaN (temperature, current, charge), computed (percentage, from the voltage between
``minimum_voltage`` and ``maximum_voltage`` when both are set, else NaN), UNKNOWN (status,
health) or inferred (present: voltage neither NaN nor 0). Messages hold float32: readings
are rounded as C++'s ``static_cast<float>``; status and health (uint8) are cut toward zero,
and a reading that is no number in 0..255 gives UNKNOWN (0), upstream's value for "no
reading".

The aggregate: voltage the mean over all batteries; temperature, current and percentage the
means over the batteries that have them (NaN when none has); charge, capacity and design
capacity the sums; status and health the highest; technology the batteries' common one or
UNKNOWN; present always true; location and serial number each battery's followed by ", ".
Sums and means are formed in float32 as upstream's, so NaN in one battery makes the
aggregate NaN.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from py_controllers.semantic_components.casts import to_float32, to_integer

OPTIONAL_READINGS = (
    'battery_temperature',
    'battery_current',
    'battery_charge',
    'battery_percentage',
    'battery_power_supply_status',
    'battery_power_supply_health',
    'battery_present',
)
UNKNOWN = 0  # POWER_SUPPLY_STATUS_UNKNOWN, _HEALTH_UNKNOWN and _TECHNOLOGY_UNKNOWN
_NAN = math.nan


@dataclass(frozen=True)
class BatterySpec:
    """One battery: its name, the optional readings it has (OPTIONAL_READINGS order) and
    its configured properties."""

    name: str
    readings: tuple[str, ...] = ()
    minimum_voltage: float = _NAN
    maximum_voltage: float = _NAN
    capacity: float = _NAN
    design_capacity: float = _NAN
    power_supply_technology: int = UNKNOWN
    location: str = ''
    serial_number: str = ''

    def interface_names(self) -> list[str]:
        """The state interfaces to claim: the voltage, then the enabled readings."""
        return [f'{self.name}/{r}' for r in ('battery_voltage', *self.readings)]

    @property
    def has_voltage_range(self) -> bool:
        return not (math.isnan(self.minimum_voltage) or math.isnan(self.maximum_voltage))

    @property
    def has_percentage(self) -> bool:
        """Read or computed: the battery counts in the aggregate percentage."""
        return 'battery_percentage' in self.readings or self.has_voltage_range

    def problem(self) -> str:
        """Why the spec cannot be used ('' when it can)."""
        lo, hi = self.minimum_voltage, self.maximum_voltage
        if math.isinf(lo) or math.isinf(hi):
            return f"battery '{self.name}': minimum_voltage and maximum_voltage must be finite"
        if self.has_voltage_range and lo >= hi:
            return (
                f"battery '{self.name}': maximum_voltage ({hi}) must be greater than "
                f'minimum_voltage ({lo})'
            )
        return ''


def f32_sum(values: Iterable[float]) -> float:
    """Sum as a C++ float accumulator starting at 0.0f."""
    total = 0.0
    for v in values:
        total = to_float32(total + v)
    return total


class _Slots:
    """One battery's handles in the loop: the voltage and each enabled reading (or None)."""

    __slots__ = ('charge', 'current', 'health', 'percentage', 'present', 'status',
                 'temperature', 'voltage')  # fmt: skip

    def __init__(self, spec: BatterySpec, by_name: dict[str, Any]) -> None:
        self.voltage = by_name[f'{spec.name}/battery_voltage']
        for reading in OPTIONAL_READINGS:
            slot = reading.removeprefix('battery_').removeprefix('power_supply_')
            handle = by_name[f'{spec.name}/{reading}'] if reading in spec.readings else None
            setattr(self, slot, handle)


class BatteryStates:
    """Fills the per-battery messages and the aggregate from the batteries' handles."""

    def __init__(self, specs: Sequence[BatterySpec]) -> None:
        self.specs = tuple(specs)
        self._slots: list[_Slots] = []
        self._has_charge = any('battery_charge' in s.readings for s in self.specs)
        self._counts = {
            'temperature': sum('battery_temperature' in s.readings for s in self.specs),
            'current': sum('battery_current' in s.readings for s in self.specs),
            'percentage': sum(s.has_percentage for s in self.specs),
        }

    def interface_names(self) -> list[str]:
        return [n for spec in self.specs for n in spec.interface_names()]

    def bind(self, handles: Iterable[Any]) -> None:
        """Take the handles (by name) for the loop; KeyError when one is missing."""
        by_name = {h.name: h for h in handles}
        self._slots = [_Slots(spec, by_name) for spec in self.specs]

    def init_messages(self, raw: Sequence[Any], total: Any) -> None:
        """The fields that do not change: per battery in ``raw``, and the aggregate."""
        for spec, msg in zip(self.specs, raw):
            msg.header.frame_id = spec.name
            for field in ('voltage', 'temperature', 'current', 'charge', 'percentage'):
                setattr(msg, field, _NAN)
            msg.capacity = to_float32(spec.capacity)
            msg.design_capacity = to_float32(spec.design_capacity)
            msg.power_supply_status = msg.power_supply_health = UNKNOWN
            msg.power_supply_technology = spec.power_supply_technology
            msg.present = True
            msg.location, msg.serial_number = spec.location, spec.serial_number
        for field in ('voltage', 'temperature', 'current', 'charge', 'percentage'):
            setattr(total, field, _NAN)
        total.capacity = f32_sum(to_float32(s.capacity) for s in self.specs)
        total.design_capacity = f32_sum(to_float32(s.design_capacity) for s in self.specs)
        total.power_supply_status = total.power_supply_health = UNKNOWN
        technologies = {s.power_supply_technology for s in self.specs}
        total.power_supply_technology = technologies.pop() if len(technologies) == 1 else UNKNOWN
        total.present = True
        total.location = ''.join(f'{s.location}, ' for s in self.specs)
        total.serial_number = ''.join(f'{s.serial_number}, ' for s in self.specs)

    def update_raw(self, raw: Sequence[Any]) -> None:
        """Read every battery into its message (loop thread)."""
        for spec, slots, msg in zip(self.specs, self._slots, raw):
            voltage = to_float32(slots.voltage.value)
            msg.voltage = voltage
            if slots.temperature is not None:
                msg.temperature = to_float32(slots.temperature.value)
            if slots.current is not None:
                msg.current = to_float32(slots.current.value)
            if slots.charge is not None:
                msg.charge = to_float32(slots.charge.value)
            if slots.percentage is not None:
                msg.percentage = to_float32(slots.percentage.value)
            elif spec.has_voltage_range:
                lo, hi = spec.minimum_voltage, spec.maximum_voltage
                msg.percentage = to_float32((voltage - lo) * 100.0 / (hi - lo))
            if slots.status is not None:
                msg.power_supply_status = to_integer(slots.status.value, 0, 255, UNKNOWN)
            if slots.health is not None:
                msg.power_supply_health = to_integer(slots.health.value, 0, 255, UNKNOWN)
            if slots.present is not None:
                present = slots.present.value
                msg.present = not math.isnan(present) and bool(present)
            else:
                msg.present = not math.isnan(voltage) and voltage != 0.0

    def update_total(self, raw: Sequence[Any], total: Any) -> None:
        """The aggregate of the per-battery messages ``update_raw`` just filled."""
        voltage = temperature = current = charge = percentage = 0.0
        status = health = UNKNOWN
        for spec, slots, m in zip(self.specs, self._slots, raw):
            voltage = to_float32(voltage + m.voltage)
            if slots.temperature is not None:
                temperature = to_float32(temperature + m.temperature)
            if slots.current is not None:
                current = to_float32(current + m.current)
            if slots.charge is not None:
                charge = to_float32(charge + m.charge)
            if spec.has_percentage:
                percentage = to_float32(percentage + m.percentage)
            if slots.status is not None:
                status = max(status, m.power_supply_status)
            if slots.health is not None:
                health = max(health, m.power_supply_health)
        counts = self._counts
        total.voltage = to_float32(voltage / len(self.specs))
        if counts['temperature']:
            total.temperature = to_float32(temperature / counts['temperature'])
        if counts['current']:
            total.current = to_float32(current / counts['current'])
        if self._has_charge:
            total.charge = charge
        if counts['percentage']:
            total.percentage = to_float32(percentage / counts['percentage'])
        total.power_supply_status, total.power_supply_health = status, health
