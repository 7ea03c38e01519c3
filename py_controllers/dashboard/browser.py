"""Helpers for driving the dashboard from a real browser: the tests and the screenshot
script use them.

`DashboardProcess` starts `python -m py_controllers.dashboard` as a user would (it
inherits the environment, so ROS_DOMAIN_ID too) and waits for the line it prints once it
listens. `launch_chromium` starts Debian's Chromium headless through Playwright (never a
browser Playwright downloads).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from typing import Any

from py_controllers.child_process import ChildProcess

CHROMIUM_ARGS = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
]
CHROMIUM_CANDIDATES = ('/usr/bin/chromium', '/usr/bin/chromium-browser')


def chromium_path() -> str | None:
    """Debian's Chromium, if installed (`scripts/setup_browser.sh` installs it)."""
    for path in CHROMIUM_CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    return shutil.which('chromium')


def launch_chromium(playwright: Any) -> Any:
    """A headless Chromium browser from `sync_playwright()` (raises if none installed)."""
    path = chromium_path()
    if path is None:
        raise FileNotFoundError('no chromium: run scripts/setup_browser.sh')
    return playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return int(s.getsockname()[1])


class DashboardProcess(ChildProcess):
    """The dashboard in a subprocess; `url` once it listens."""

    def __init__(self, *args: str, port: int | None = None, timeout_s: float = 60.0) -> None:
        self.port = port or free_port()
        self.process = subprocess.Popen(
            [sys.executable, '-m', 'py_controllers.dashboard', '--port', str(self.port), *args],
            stdout=subprocess.PIPE,
            stderr=self._open_log(),
            text=True,
            env={**os.environ, 'PYTHONUNBUFFERED': '1'},
        )
        self.lines: list[str] = []
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if not self._ready.wait(timeout_s) or not self.alive:
            self.stop()
            raise RuntimeError(f'the dashboard did not start:\n{self.output()}')
        self.url = f'http://127.0.0.1:{self.port}'

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip('\n'))
            if line.startswith('dashboard: http'):
                self._ready.set()
        self._ready.set()  # ended: let the waiter see it

    def output(self) -> str:
        """What it printed, stdout then stderr."""
        return '\n'.join(self.lines) + '\n' + self._logged()
