"""The table every demo ends with: one line per step, ok or FAILED, and its detail."""

from __future__ import annotations


def print_summary(results: list[tuple[str, bool, str]], title: str = 'summary') -> None:
    """Print `results` (step, ok, detail) under `== title`."""
    print(f'\n== {title}')
    print(f'  {"step":<14}{"result":<8}detail')
    for step, step_ok, detail in results:
        print(f'  {step:<14}{"ok" if step_ok else "FAILED":<8}{detail}')
