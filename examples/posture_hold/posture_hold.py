"""Posture hold: keep every joint of a robot at the angle it had when the controller started.

A Python port of Choreonoid's ``SR1MinimumController`` sample written as a py_controllers
controller in one file. On activation it remembers each joint's position ``qref``; every
update it commands the effort

    u = p * (qref - q) + d * (0 - dq),   dq = (q - q_previous) / period

so only position state interfaces are needed: the velocity comes from the position
difference over the period, as in the sample. Gains may be changed at runtime
(``ros2 param set /posture_hold_controller p_gains "[...]"``).

Register it like any controller (entry point in group ``py_controllers.controllers``, or
``py_controllers.plugins.register`` in-process) under ``posture_hold/PostureHoldController``.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.parameters.controller_parameters import ControllerParameters

TYPE_NAME = 'posture_hold/PostureHoldController'


class PostureHoldController(ControllerInterface):
    """PD on effort around the posture captured at activation (Choreonoid SR1 sample)."""

    SCHEMA = Path(__file__).with_name('posture_hold_parameters.yaml')  # the tuning page reads it

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        self.joints: list[str] = []
        self.q_ref: list[float] = []
        return CallbackReturn.SUCCESS

    def _gains(self, params: Any) -> tuple[list[float], list[float]]:
        """(p_gains, d_gains) as lists; raises ValueError unless one of each per joint."""
        p, d = list(params.p_gains), list(params.d_gains)
        if len(p) != len(self.joints) or len(d) != len(self.joints):
            raise ValueError(
                f"'p_gains' ({len(p)}) and 'd_gains' ({len(d)}) need one value per joint "
                f'({len(self.joints)})'
            )
        return p, d

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        self.joints = list(params.joints)
        try:
            self.p_gains, self.d_gains = self._gains(params)
        except ValueError as exc:
            self.get_node().get_logger().error(str(exc))
            return CallbackReturn.ERROR
        self._params = params
        return CallbackReturn.SUCCESS

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual([f'{j}/effort' for j in self.joints])

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual([f'{j}/position' for j in self.joints])

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        self.q_ref = [h.value for h in self.state_interfaces]
        self._q_old = list(self.q_ref)
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        for handle in self.command_interfaces:
            handle.value = 0.0
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> ReturnType:
        params = self.parameters.latest()
        if params is not self._params:  # new gains from `ros2 param set`
            self._params = params
            # sizes that do not match the joints keep the old gains
            with contextlib.suppress(ValueError):
                self.p_gains, self.d_gains = self._gains(params)
        dt_s = period.nanoseconds * 1e-9
        if dt_s <= 0.0:
            return ReturnType.OK
        q_ref, q_old = self.q_ref, self._q_old
        p_gains, d_gains = self.p_gains, self.d_gains
        for i, (state, command) in enumerate(zip(self.state_interfaces, self.command_interfaces)):
            q = state.value
            dq = (q - q_old[i]) / dt_s
            command.value = (q_ref[i] - q) * p_gains[i] + (0.0 - dq) * d_gains[i]
            q_old[i] = q
        return ReturnType.OK
