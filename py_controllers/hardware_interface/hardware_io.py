"""The resource manager's part that runs in the control loop: read() and write() of every
component due, with the one rule for results (only `ReturnType.OK` is success; None too,
with one warning), and the final write at shutdown, one component at a time (the caller
bounds each: see `Supervisor.final_write`), async components included.

A mixin of `ResourceManager` (its tables and `log_rt`), kept apart so each file has one job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from py_controllers.hardware_interface.types import RETURN_OK, ReturnType

if TYPE_CHECKING:
    from py_controllers.hardware_interface.component_lifecycle import ManagedComponent


class HardwareIO:
    """read(), write() and final_write() over the resource manager's loop lists."""

    _cycle: int
    _readers: list
    _writers: list
    _async: list
    log_rt: Any
    command_guard: Any

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
            if result is not RETURN_OK:
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
            if result is not RETURN_OK:
                self._write_outcome(managed, result, failed, deactivate)
        for managed, every in self._async:
            if every == 1 or not cycle % every:
                managed.runner.trigger(time, period)
        return failed, deactivate

    def final_writers(self) -> list[ManagedComponent]:
        """The components that get the final write (every active one, async ones too); their
        async threads are stopped first, all together, so their last runs end side by side."""
        writers = [managed for managed, _ in self._writers]
        for managed in writers:
            if managed.runner is not None:
                managed.runner.stop()
        return writers

    def final_write_one(
        self, managed: ManagedComponent, time: Any, period: Any, timeout_s: float = 1.0
    ) -> bool:
        """The last write() to one component (the loop has stopped; an async one's run under
        way is waited for, within `timeout_s`); False if it failed. The released commands
        are put back to their holds first."""
        self.command_guard.impose_holds()
        runner = managed.runner
        try:
            if runner is None:
                result = managed.component.write(time, period)
            else:
                result = runner.write_now(time, period, timeout_s)
        except Exception as exc:
            self.log_rt(managed.logger, 'error', f'write() raised: {exc!r}')
            result = ReturnType.ERROR
        failed: list[str] = []
        self._write_outcome(managed, result, failed, [])
        return not failed

    def _write_outcome(
        self, managed: ManagedComponent, result: Any, failed: list[str], deactivate: list[str]
    ) -> None:
        if result is RETURN_OK:
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
