"""What every demo reports: each step's outcome as it comes, the manager's health, and the
table the demo ends with (one line per step, ok or FAILED, and its detail)."""

from __future__ import annotations

from typing import Protocol

COMPLAINTS_SHOWN = 30
"""How many of the manager's last warnings and errors a failed demo prints."""


class LoggingProcess(Protocol):
    """A process whose output can be read: ManagerProcess."""

    @property
    def alive(self) -> bool: ...

    def output(self) -> str: ...


class Steps:
    """The outcomes of a demo's steps, each printed as it is recorded."""

    def __init__(self) -> None:
        self.results: list[tuple[str, bool, str]] = []

    def record(self, step: str, ok: bool, detail: str) -> bool:
        """Print and keep the outcome of one step; `ok` again."""
        print(f'  [{"ok" if ok else "FAILED"}] {step}: {detail}')
        self.results.append((step, ok, detail))
        return ok

    def check_manager(self, proc: LoggingProcess, name: str = 'ros2_control_node') -> bool:
        """After the steps: a manager that died is a failed step, with its output. When a
        step failed, the manager's last warnings and errors are printed: the reason (a
        stalled loop, an aborted goal, a lost message) is often there."""
        if not proc.alive:
            return self.record(name, False, 'the manager died:\n' + proc.output())
        if all(ok for _, ok, _ in self.results):
            return True
        complaints = [
            line for line in proc.output().splitlines() if '[WARN]' in line or '[ERROR]' in line
        ]
        shown = complaints[-COMPLAINTS_SHOWN:]
        print(f'\n== {name}: {len(complaints)} warnings and errors, the last {len(shown)}')
        for line in shown:
            print(f'   {line}')
        return True


def print_summary(results: list[tuple[str, bool, str]], title: str = 'summary') -> None:
    """Print `results` (step, ok, detail) under `== title`."""
    width = max([len('step'), *(len(step) for step, _, _ in results)]) + 2
    print(f'\n== {title}')
    print(f'  {"step":<{width}}{"result":<8}detail')
    for step, step_ok, detail in results:
        print(f'  {step:<{width}}{"ok" if step_ok else "FAILED":<8}{detail}')
