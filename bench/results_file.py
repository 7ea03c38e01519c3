"""`make bench ARGS=--write`: the run's tables into docs/bench_results.md, with date and machine.

The file holds the latest full run only; older runs stay in git history. The tables are
what the bench prints: stdout is copied while the run goes on (`tee_stdout`), then
`render` puts the date and the machine above them.
"""

from __future__ import annotations

import contextlib
import datetime
import importlib.metadata
import io
import os
import platform
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

RESULTS = Path(__file__).resolve().parent.parent / 'docs' / 'bench_results.md'


@dataclass(frozen=True)
class Machine:
    """What the figures depend on besides the code."""

    cpu: str
    cores: int
    arch: str
    system: str
    python: str
    rclpy: str

    def line(self) -> str:
        return (
            f'{self.cpu}, {self.cores} cores, {self.arch}, {self.system}; '
            f'Python {self.python}, rclpy {self.rclpy}'
        )


def cpu_model(cpuinfo: Path = Path('/proc/cpuinfo')) -> str:
    """The CPU's model name as the kernel reports it (platform's guess elsewhere)."""
    with contextlib.suppress(OSError):
        for line in cpuinfo.read_text().splitlines():
            key, _, value = line.partition(':')
            if key.strip() == 'model name' and value.strip():
                return value.strip()
    return platform.processor() or 'unknown CPU'


def rclpy_version() -> str:
    """The installed rclpy distribution's version (the ROS wheels name it either way)."""
    for name in ('rclpy', 'ros-rclpy'):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            return importlib.metadata.version(name)
    return 'not installed'


def this_machine() -> Machine:
    return Machine(
        cpu=cpu_model(),
        cores=os.cpu_count() or 0,
        arch=platform.machine(),
        system=platform.platform(),
        python=sys.version.split()[0],
        rclpy=rclpy_version(),
    )


def render(tables: str, when: datetime.datetime, machine: Machine, command: str) -> str:
    """The whole results file: what it is, when and where it was measured, the tables."""
    head = [
        '# Bench results: the latest full run',
        '',
        'Written by `make bench ARGS=--write`; what the figures mean and the targets: '
        '[speed.md](speed.md). This file holds the latest full run only; older runs are in '
        'git history (`git log -p docs/bench_results.md`).',
        '',
        f'- date: {when.strftime("%Y-%m-%d %H:%M %Z").strip()}',
        f'- machine: {machine.line()}',
        f'- command: `{command}`',
        '',
    ]
    return '\n'.join(head) + tables.strip('\n') + '\n'


class _Tee(io.TextIOBase):
    """Writes to the real stream and keeps a copy."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


@contextlib.contextmanager
def tee_stdout() -> Iterator[io.StringIO]:
    """Everything printed inside goes to stdout as before and into the yielded buffer."""
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        yield tee.copy


def write(tables: str, command: str, path: Path = RESULTS) -> Path:
    """Replace the results file with this run's tables, dated and with this machine."""
    now = datetime.datetime.now(datetime.timezone.utc)
    path.write_text(render(tables, now, this_machine(), command))
    return path
