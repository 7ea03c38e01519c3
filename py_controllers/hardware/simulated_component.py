"""What the simulated components share: init error handling, activation, the read cycle.

A subclass parses its description in `_configure_from` (ValueError for anything wrong),
builds `self.dynamics` (a `FixedStepIntegrator`) in on_configure, keeps `self._feeds`
(joint index, command handle) in step with the claims in `_sync()`, and writes its states
to the handles in `_publish()`. Physics advance in read(); write() has nothing to send.
A joint whose claim ends goes back to what it does before any claim (the subclass's
`_sync()`). What runs on the loop's side (read, write, the command mode switch) logs
through `log_rt`, which the resource manager hands to the executor thread.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

from py_controllers.hardware.component_params import float_param
from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import (
    RETURN_OK,
    CallbackReturn,
    LifecycleStateId,
    ReturnType,
)

_INF = math.inf


def take_commands(
    feeds: list[tuple[int, Any]], command: Any, log_rt: Callable[[str, str], None]
) -> bool:
    """Copy claimed command handles into `command[i]`; NaN keeps the last value, an
    infinite command is refused (False, logged through the loop-safe `log_rt`): shared by
    the simulated components."""
    for i, handle in feeds:
        value = handle.value
        if value != value:  # NaN: keep the last command
            continue
        if value == _INF or value == -_INF:
            log_rt('error', f"'{handle.name}' is infinite; refusing to simulate it")
            return False
        command[i] = value
    return True


class OneCommandPerJoint:
    """Command mode switching for a component that drives each joint in one way at a time.

    Keeps `_claimed` (per joint: the claimed command kind, or None); a subclass provides
    `_index` (joint name -> index) and `_commandable(i, kind)`, and applies the claims
    returned by `_claims_after` in its perform_command_mode_switch. The mode switch runs
    on the loop's side: it logs through `log_rt` (HardwareComponentInterface).
    """

    _claimed: list[str | None]
    _index: dict[str, int]
    command_interfaces: dict[str, Any]
    log_rt: Callable[[str, str], None]

    def _commandable(self, i: int, kind: str) -> bool:
        raise NotImplementedError

    def command_modes(self) -> dict[str, bool] | None:
        """Each commandable `<joint>/<kind>`: True while the joint is driven by it."""
        modes = {}
        for name in self.command_interfaces:
            prefix, _, kind = name.rpartition('/')
            i = self._index.get(prefix)
            if i is not None and self._commandable(i, kind):
                modes[name] = self._claimed[i] == kind
        return modes

    def _claims_after(self, start: list[str], stop: list[str]) -> list[str | None]:
        """Each joint's claimed kind once `stop` is released and `start` claimed; ValueError
        naming the joint when it would be commanded in two ways."""
        claimed = list(self._claimed)
        for name in stop:
            prefix, _, kind = name.rpartition('/')
            i = self._index.get(prefix)
            if i is not None and claimed[i] == kind:
                claimed[i] = None
        starting: dict[int, str] = {}
        for name in start:
            prefix, _, kind = name.rpartition('/')
            i = self._index.get(prefix)
            if i is None or not self._commandable(i, kind):
                continue
            other = starting.get(i) or claimed[i]
            if other is not None and other != kind:
                raise ValueError(
                    f"joint '{prefix}': cannot command '{kind}' and '{other}' at the same "
                    'time; one command interface per joint'
                )
            starting[i] = kind
        for i, kind in starting.items():
            claimed[i] = kind
        return claimed

    def prepare_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        """Refuse a switch that would command a joint in two ways."""
        try:
            self._claims_after(start_interfaces, stop_interfaces)
        except ValueError as exc:
            self.log_rt('error', str(exc))
            return ReturnType.ERROR
        return ReturnType.OK


class SimulatedComponent(SystemInterface):
    """Base of the simulated systems: see the module docstring for what a subclass fills."""

    dynamics: Any
    _feeds: list[tuple[int, Any]]

    def on_init(self, info: Any) -> CallbackReturn:
        super().on_init(info)
        self._active = False
        try:
            self._configure_from(info)
        except ValueError as exc:
            self._log().error(str(exc))
            return CallbackReturn.ERROR
        return CallbackReturn.SUCCESS

    def _configure_from(self, info: Any) -> None:
        raise NotImplementedError

    def _step_parameters(self, hw: dict[str, str], where: str) -> None:
        """`sim_dt` (s, > 0, default 0.001) and `max_substeps` (>= 1, default 1000)."""
        self.sim_dt_s = float_param(hw, 'sim_dt', 0.001, where)
        self.max_substeps = int(float_param(hw, 'max_substeps', 1000, where))
        if not self.sim_dt_s > 0.0:
            raise ValueError(f"{where}: parameter 'sim_dt' must be > 0, got {self.sim_dt_s}")
        if self.max_substeps < 1:
            raise ValueError(f"{where}: parameter 'max_substeps' must be >= 1")

    def _log(self) -> Any:
        return self.logger if self.logger is not None else logging.getLogger(type(self).__module__)

    def _sync(self) -> None:
        """Bring the simulation and `self._feeds` in line with the claims and activity."""
        raise NotImplementedError

    def _publish(self) -> None:
        """Write the simulated states into the state handles."""
        raise NotImplementedError

    def on_activate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Let the claimed command interfaces drive the simulation."""
        self._active = True
        self._sync()
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Ignore commands from now on: every joint as before any claim."""
        self._active = False
        self._sync()
        return CallbackReturn.SUCCESS

    def read(self, time: Any, period: Any) -> ReturnType:
        """Take the claimed commands, integrate over `period`, report the new states."""
        if not take_commands(self._feeds, self.dynamics.command, self.log_rt):
            return ReturnType.ERROR
        if self.dynamics.advance_ns(period.nanoseconds):
            self._publish()
        return RETURN_OK

    def write(self, time: Any, period: Any) -> ReturnType:
        """Nothing to send: read() applies the commands."""
        return RETURN_OK
