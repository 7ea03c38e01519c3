"""`py_controllers/MotionPrimitivesMockSystem`: hardware that executes motion primitives.

A stand-in for a robot controller in motion primitives mode (upstream's UR and KUKA drivers),
for tests and demos of `motion_primitives_controllers/MotionPrimitivesForwardController`. It
exports the controller's interfaces under `<tf_prefix>motion_primitive/` (command interfaces
with NaN as "nothing new"; states execution_status and ready_for_new_primitive) besides
any joints of its `<ros2_control>` tag, and moves no joint.

In write() it takes the row the controller wrote (motion_type not NaN) and clears the row to
NaN, as the UR driver does. A primitive executes for `execution_cycles` reads (EXECUTING, not
ready), then the robot is SUCCESS and ready. Inside MOTION_SEQUENCE_START .. END it stays
EXECUTING and ready for the next primitive, and is SUCCESS once END came and the last one
finished. STOP_MOTION drops everything: STOPPING for `stopping_cycles` reads, then STOPPED
(nothing accepted) until RESET_STOP makes it IDLE and ready. An unknown motion_type is an
ERROR. Ready only while the controller claims `motion_type`. `taken` lists the rows taken.

Parameters: `tf_prefix` (''), `execution_cycles` (10), `stopping_cycles` (1).
"""

from __future__ import annotations

import math
from typing import Any

from py_controllers.controllers.motion_primitives import primitives as mp
from py_controllers.hardware.component_params import float_param
from py_controllers.hardware_interface.handle import CommandInterface, StateInterface
from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import RETURN_OK, CallbackReturn, ReturnType

_NAN = math.nan
_PRIMITIVES = frozenset(mp.TYPE_NAMES)


def _cycles(params: dict[str, str], name: str, default: int, where: str) -> int:
    value = float_param(params, name, default, where)
    if value < 1 or value != int(value):
        raise ValueError(f"{where}: parameter '{name}' must be a whole number >= 1, not {value}")
    return int(value)


class MotionPrimitivesMockSystem(SystemInterface):
    """Acknowledges motion primitives after a fixed number of cycles (see the module)."""

    def on_init(self, info: Any) -> CallbackReturn:
        super().on_init(info)
        params = info.hardware_parameters
        where = f"hardware '{info.name}'"
        try:
            self.execution_cycles = _cycles(params, 'execution_cycles', 10, where)
            self.stopping_cycles = _cycles(params, 'stopping_cycles', 1, where)
        except ValueError as exc:
            self.log_rt('error', str(exc))
            return CallbackReturn.ERROR
        self.tf_prefix = str(params.get('tf_prefix', ''))
        self.taken: list[tuple[float, ...]] = []
        self._clear()
        self._status, self._ready = mp.IDLE, mp.NOT_READY
        return CallbackReturn.SUCCESS

    def _clear(self) -> None:
        self._countdown = 0  # reads left of the primitive (or stop) under way
        self._in_sequence = False

    def _names(self, names: tuple[str, ...]) -> list[str]:
        return mp.interface_names(self.tf_prefix, names)

    def export_command_interfaces(self) -> list[CommandInterface]:
        prefix = f'{self.tf_prefix}{mp.PREFIX}'
        own = [CommandInterface(prefix, n, nan_means_no_command=True) for n in mp.COMMAND_NAMES]
        return super().export_command_interfaces() + own

    def export_state_interfaces(self) -> list[StateInterface]:
        prefix = f'{self.tf_prefix}{mp.PREFIX}'
        own = [StateInterface(prefix, n, 0.0) for n in mp.STATE_NAMES]
        return super().export_state_interfaces() + own

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        self._row = [self.command_interfaces[n] for n in self._names(mp.COMMAND_NAMES)]
        status, ready = self._names(mp.STATE_NAMES)
        self._status_handle = self.state_interfaces[status]
        self._ready_handle = self.state_interfaces[ready]
        self._motion_type = self._row[0].name
        self._publish()
        return CallbackReturn.SUCCESS

    def perform_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        if self._motion_type in stop_interfaces:  # nobody sends primitives: stop, not ready
            self._clear()
            self._status, self._ready = mp.IDLE, mp.NOT_READY
        if self._motion_type in start_interfaces:
            self._clear()
            self._status, self._ready = mp.IDLE, mp.READY
        return ReturnType.OK

    def _publish(self) -> None:
        self._status_handle.value = float(self._status)
        self._ready_handle.value = float(self._ready)

    def read(self, time: Any, period: Any) -> ReturnType:
        if self._countdown > 0:
            self._countdown -= 1
            if self._countdown == 0:
                self._finished()
        self._publish()
        return RETURN_OK

    def _finished(self) -> None:
        if self._status == mp.STOPPING:
            self._status, self._ready = mp.STOPPED, mp.NOT_READY
        elif self._in_sequence:
            self._ready = mp.READY  # still EXECUTING: the next primitive may come
        else:
            self._status, self._ready = mp.SUCCESS, mp.READY

    def write(self, time: Any, period: Any) -> ReturnType:
        kind = self._row[0].value
        if kind != kind:
            return RETURN_OK
        row = tuple(h.value for h in self._row)
        for handle in self._row:
            handle.value = _NAN
        self.taken.append(row)
        self._take(round(kind))
        self._publish()
        return RETURN_OK

    def _take(self, kind: int) -> None:
        if kind == mp.STOP_MOTION:
            self._clear()
            self._status, self._ready = mp.STOPPING, mp.NOT_READY
            self._countdown = self.stopping_cycles
        elif kind == mp.RESET_STOP:
            if self._status == mp.STOPPED:
                self._status, self._ready = mp.IDLE, mp.READY
        elif self._status in (mp.STOPPING, mp.STOPPED):
            self.log_rt('warning', f'motion_type {kind} ignored: stopped, waiting for RESET_STOP')
        elif kind == mp.MOTION_SEQUENCE_START:
            self._in_sequence = True
        elif kind == mp.MOTION_SEQUENCE_END:
            self._in_sequence = False
            if self._countdown == 0 and self._status == mp.EXECUTING:
                self._status = mp.SUCCESS
        elif kind in _PRIMITIVES:
            self._status, self._ready = mp.EXECUTING, mp.NOT_READY
            self._countdown = self.execution_cycles
        else:
            self.log_rt('error', f'unknown motion_type {kind}')
            self._clear()
            self._status, self._ready = mp.ERROR, mp.READY
