"""`py_controllers/FaultInjectionController`: a controller that fails when told to.

It writes `value` to its `command_interfaces` every update. A `std_msgs/UInt8` on
`~/fault` makes its next update() fail: 1 raises an exception, 2 returns ERROR, 3 returns
something that is not a ReturnType, 4 raises SystemExit (which escapes every containment
and ends the control loop: the manager must then stop the robot and exit non-zero), 5
runs a catastrophic regular expression that holds the interpreter lock for minutes (no
Python thread runs meanwhile: only the GIL-free backstop can end the process), 6 sleeps
1 s in update() once (a silent loop that comes back: a stall on the wall clock, a WARN
on a simulator's time).
`activate_delay_s` makes on_activate take that long (a slow activation).
Our fault suite and tests use it to inject controller faults over ROS; so can yours.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from std_msgs.msg import UInt8

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimeBox

RAISE, ERROR, NONSENSE, EXIT, HOLD_GIL, SILENCE = 1, 2, 3, 4, 5, 6
CODES = (RAISE, ERROR, NONSENSE, EXIT, HOLD_GIL, SILENCE)
SILENCE_S = 1.0  # SILENCE: update() sleeps this long once, then the loop runs on
# backtracking over 2**40 ways to split the a's: C code that never releases the GIL
_CATASTROPHIC = re.compile(r'(a+)+$')
_NO_MATCH = 'a' * 40 + 'b'


def _fall_silent() -> None:
    """SILENCE: the loop silent for SILENCE_S, then back (update()'s `time` hides the module)."""
    time.sleep(SILENCE_S)


class InjectedControllerFault(RuntimeError):  # noqa: N818 - named for what it is in a log
    """Raised on purpose by FaultInjectionController."""


class FaultInjectionController(ControllerInterface):
    """Writes a constant; fails its next update() in the way `~/fault` asks."""

    SCHEMA = Path(__file__).parent / 'fault_injection_controller_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        self._fault: RealtimeBox[int] = RealtimeBox(0)
        self.names: list[str] = []
        self.value = 0.0
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        self.names, self.value = list(params.command_interfaces), float(params.value)
        self.activate_delay_s = float(params.activate_delay_s)
        self.get_node().create_subscription(UInt8, '~/fault', self._on_fault, 10)
        return CallbackReturn.SUCCESS

    def _on_fault(self, msg: UInt8) -> None:
        if msg.data not in CODES:
            self.get_node().get_logger().error(
                f'unknown fault code {msg.data}: {CODES[0]} to {CODES[-1]}',
                throttle_duration_sec=1.0,
            )
            return
        self._fault.set(msg.data)

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(self.names)

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        self._fault.set(0)
        if self.activate_delay_s > 0.0:
            time.sleep(self.activate_delay_s)  # a slow activation, on purpose
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> Any:
        for handle in self.command_interfaces:
            handle.value = self.value
        fault = self._fault.get()
        if not fault:
            return RETURN_OK
        self._fault.set(0)
        if fault == RAISE:
            raise InjectedControllerFault('update() raised on purpose')
        if fault == EXIT:
            raise SystemExit('update() exits on purpose')
        if fault == HOLD_GIL:
            _CATASTROPHIC.match(_NO_MATCH)
        if fault == SILENCE:
            _fall_silent()
            return RETURN_OK
        return ReturnType.ERROR if fault == ERROR else 'not a return type'
