"""The resource manager's part that runs in the control loop: read() and write() of every
component due, with the one rule for results (only `ReturnType.OK` is success; None too,
with one warning), and the final write at shutdown, async components included.

A mixin of `ResourceManager` (its tables and `log_rt`), kept apart so each file has one job.
"""

from __future__ import annotations

import time as _time
from typing import TYPE_CHECKING, Any

from py_controllers.hardware_interface.types import ReturnType

if TYPE_CHECKING:
    from py_controllers.hardware_interface.component_lifecycle import ManagedComponent


class HardwareIO:
    """read(), write() and final_write() over the resource manager's loop lists."""

    _cycle: int
    _readers: list
    _writers: list
    _async: list
    log_rt: Any

    def read(self, time: Any, period: Any) -> list[str]:
        """read() every readable component due this cycle; names of those that failed."""
        self._cycle += 1
        failed: list[str] = []
        for managed, every in self._readers:
            if every != 1 and self._cycle % every:
                continue
            runner = managed.runner
            try:
                if runner is None:
                    result = managed.component.read(time, period)
                else:
                    result = runner.collect()
            except Exception as exc:
                self.log_rt(managed.logger, 'error', f'read() raised: {exc!r}')
                result = ReturnType.ERROR
            if result is not ReturnType.OK:
                if result is None:  # the one rule: None is success, with a warning once
                    self._none_returned(managed, 'read')
                    continue
                if result is not ReturnType.ERROR:
                    self.log_rt(managed.logger, 'error', f'read() returned {result!r}: ERROR')
                managed.read_errors += 1
                failed.append(managed.name)
        return failed

    def write(self, time: Any, period: Any) -> tuple[list[str], list[str]]:
        """write() every active component due this cycle, then hand the commands to the
        async ones due (after limits, see `async_component.py`); (names that failed, names
        that asked to deactivate)."""
        failed: list[str] = []
        deactivate: list[str] = []
        cycle = self._cycle
        for managed, every in self._writers:
            if every != 1 and cycle % every:
                continue
            runner = managed.runner
            try:
                if runner is None:
                    result = managed.component.write(time, period)
                else:
                    result = runner.take_write_result()
            except Exception as exc:
                self.log_rt(managed.logger, 'error', f'write() raised: {exc!r}')
                result = ReturnType.ERROR
            self._write_outcome(managed, result, failed, deactivate)
        for managed, every in self._async:
            if every == 1 or not cycle % every:
                managed.runner.trigger(time, period)
        return failed, deactivate

    def final_write(
        self, time: Any, period: Any, timeout_s: float = 1.0, progress: list[str] | None = None
    ) -> list[str]:
        """The last write() to every active component, async ones included (the loop has
        stopped): their threads are stopped and the write runs here once a run under way
        has ended, all within `timeout_s` together; names that failed or were not reached.
        Each component's name goes to `progress` before its write (to name a stuck one)."""
        failed: list[str] = []
        deadline = _time.monotonic() + timeout_s
        for managed, _ in self._writers:
            if managed.runner is not None:
                managed.runner.stop()  # all first: their last runs end side by side
        for managed, _ in self._writers:
            runner = managed.runner
            if progress is not None:
                progress.append(managed.name)
            try:
                if runner is None:
                    result = managed.component.write(time, period)
                else:
                    left = max(0.0, deadline - _time.monotonic())
                    result = runner.write_now(time, period, left)
            except Exception as exc:
                self.log_rt(managed.logger, 'error', f'write() raised: {exc!r}')
                result = ReturnType.ERROR
            self._write_outcome(managed, result, failed, [])
        return failed

    def _write_outcome(
        self, managed: ManagedComponent, result: Any, failed: list[str], deactivate: list[str]
    ) -> None:
        if result is ReturnType.OK:
            return
        if result is ReturnType.DEACTIVATE:
            deactivate.append(managed.name)
        elif result is None:
            self._none_returned(managed, 'write')
        else:
            if result is not ReturnType.ERROR:
                self.log_rt(managed.logger, 'error', f'write() returned {result!r}: ERROR')
            managed.write_errors += 1
            failed.append(managed.name)

    def _none_returned(self, managed: ManagedComponent, where: str) -> None:
        if where not in managed.none_reported:
            managed.none_reported.add(where)
            text = f'{where}() returned None; taken as ReturnType.OK (return it explicitly)'
            self.log_rt(managed.logger, 'warning', text)
