"""`py_controllers/FaultInjectionSystem`: a mock system that fails on purpose, for tests.

It mirrors commands to states like `mock_components/GenericSystem` and, as its `<param>`s
say, fails in one of the ways real hardware and careless plug-ins do, so that the
manager's safety net can be shown to hold (our fault suite and tests use it; so can yours):

  activate_delay_s, configure_delay_s,   seconds the transition takes (a board booting)
  deactivate_delay_s, on_error_delay_s
  read_delay_s, write_delay_s            seconds each read()/write() takes (a slow bus)
  read_fault_at / write_fault_at         the N-th read()/write() call fails (1-based; 0: never)
  read_fault / write_fault               error | raise | deactivate (write only) | bad_result
                                         | exit (raises SystemExit: escapes all containment)
                                         | block (never returns: a dead bus; the watchdog's)
  on_error_result                        what on_error returns: success | failure | error |
                                         raise | any integer (e.g. 3, not a CallbackReturn)
  record_file                            JSON written on deactivate and shutdown: number of
                                         writes and the command values of the last write()
  record_every_change                    true: also after each write() whose commands differ
                                         from the last one (a process killed at once, by a
                                         second signal or the backstop, leaves its last write)

Faults can also be injected while it runs, over ROS: give it a `<gpio name="faults">` with
command interfaces `read` and/or `write` and command them (a forward command controller
on joint `faults`, interface `read`): when the value changes to a fault code, the next
read()/write() fails that way once. Codes: 1 error, 2 raise, 3 bad_result, 4 exit,
5 deactivate (write only), 6 block.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from py_controllers.hardware.mock_generic_system import GenericSystem
from py_controllers.hardware_interface.types import (
    RETURN_OK,
    CallbackReturn,
    LifecycleStateId,
    ReturnType,
)

_READ_FAULTS = ('error', 'raise', 'bad_result', 'exit', 'block')
_WRITE_FAULTS = (*_READ_FAULTS, 'deactivate')
FAULT_CODES = {
    1.0: 'error',
    2.0: 'raise',
    3.0: 'bad_result',
    4.0: 'exit',
    5.0: 'deactivate',
    6.0: 'block',
}
_NEVER = threading.Event()  # what a blocked read()/write() waits for
_RESULTS = {'success': CallbackReturn.SUCCESS, 'failure': CallbackReturn.FAILURE}


class InjectedFault(RuntimeError):  # noqa: N818 - named for what it is in a log
    """Raised on purpose by FaultInjectionSystem."""


class FaultInjectionSystem(GenericSystem):
    """GenericSystem that fails where its parameters say."""

    def on_init(self, info: Any) -> CallbackReturn:
        result = super().on_init(info)
        p = info.hardware_parameters
        where = f"hardware '{info.name}'"
        self.delays = {
            hook: float(p.get(f'{hook}_delay_s', 0.0) or 0.0)
            for hook in ('activate', 'configure', 'deactivate', 'on_error', 'read', 'write')
        }
        self.io_threads: set[int] = set()  # the threads read() and write() ran in
        self.read_fault_at = int(p.get('read_fault_at', 0) or 0)
        self.write_fault_at = int(p.get('write_fault_at', 0) or 0)
        self.read_fault = str(p.get('read_fault', 'error'))
        self.write_fault = str(p.get('write_fault', 'error'))
        if self.read_fault not in _READ_FAULTS:
            raise ValueError(f'{where}: read_fault must be one of {_READ_FAULTS}')
        if self.write_fault not in _WRITE_FAULTS:
            raise ValueError(f'{where}: write_fault must be one of {_WRITE_FAULTS}')
        self.on_error_result = str(p.get('on_error_result', 'success')).strip().lower()
        self.record_file = str(p.get('record_file', '') or '')
        self.record_every_change = str(p.get('record_every_change', 'false')).lower() == 'true'
        self.reads = 0
        self.writes = 0
        self.last_write: dict[str, float] = {}
        # a write and its record together: the final write of a second signal (another
        # thread) waits for a record under way, which the process's exit would cut short
        self._record_lock = threading.RLock()
        self._seen = {'read': 0.0, 'write': 0.0}  # last trigger values acted on
        return result

    def _triggered(self, where: str) -> str | None:
        """The fault commanded over the `faults/<where>` gpio since the last call, if any."""
        handle = self.command_interfaces.get(f'faults/{where}')
        if handle is None or handle.value == self._seen[where] or handle.value != handle.value:
            return None
        self._seen[where] = handle.value
        return FAULT_CODES.get(handle.value)

    # --- lifecycle ---------------------------------------------------------------------
    def _pause(self, hook: str) -> None:
        if self.delays[hook] > 0.0:
            time.sleep(self.delays[hook])

    def on_configure(self, previous_state: LifecycleStateId) -> CallbackReturn:
        self._pause('configure')
        return super().on_configure(previous_state)

    def on_activate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        self._pause('activate')
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        self._pause('deactivate')
        self.save_record()
        return CallbackReturn.SUCCESS

    def on_shutdown(self, previous_state: LifecycleStateId) -> CallbackReturn:
        self.save_record()
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: LifecycleStateId) -> Any:
        self._pause('on_error')
        self.save_record()
        text = self.on_error_result
        if text == 'raise':
            raise InjectedFault('on_error raised on purpose')
        if text == 'error':
            return CallbackReturn.ERROR
        if text in _RESULTS:
            return _RESULTS[text]
        return int(text)  # deliberately not a CallbackReturn

    def save_record(self) -> None:
        """Write what the component was last told to do to `record_file` (if set)."""
        if self.record_file:
            with self._record_lock:
                record = {'writes': self.writes, 'reads': self.reads, 'last_write': self.last_write}
                path = Path(self.record_file)
                partial = path.with_suffix('.partial')
                partial.write_text(json.dumps(record))
                partial.replace(path)  # whole or not at all, whenever the process ends

    # --- the loop ----------------------------------------------------------------------
    def read(self, time: Any, period: Any) -> Any:
        self.io_threads.add(threading.get_ident())
        self._pause('read')
        self.reads += 1
        if self.reads == self.read_fault_at:
            return _fail(self.read_fault, 'read')
        fault = self._triggered('read')
        if fault is not None and fault != 'deactivate':
            return _fail(fault, 'read')
        return super().read(time, period)

    def write(self, time: Any, period: Any) -> Any:
        self.io_threads.add(threading.get_ident())
        self._pause('write')
        self.writes += 1
        with self._record_lock:
            written = {name: h.value for name, h in self.command_interfaces.items()}
            changed = repr(written) != repr(self.last_write)  # NaN == NaN here
            self.last_write = written
            if changed and self.record_every_change:
                self.save_record()
        if self.writes == self.write_fault_at:
            return _fail(self.write_fault, 'write')
        fault = self._triggered('write')
        if fault is not None:
            return _fail(fault, 'write')
        return RETURN_OK


def _fail(kind: str, where: str) -> Any:
    if kind == 'raise':
        raise InjectedFault(f'{where}() raised on purpose')
    if kind == 'exit':
        raise SystemExit(f'{where}() exits on purpose')
    if kind == 'deactivate':
        return ReturnType.DEACTIVATE
    if kind == 'bad_result':
        return 'not a return type'
    if kind == 'block':
        _NEVER.wait()
    return ReturnType.ERROR
