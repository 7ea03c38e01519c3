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
from urllib.parse import parse_qs, urlsplit

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
    """The dashboard in a subprocess; `url` (no token) and `token` (the one it printed,
    None with `--no-token`) once it listens."""

    def __init__(
        self,
        *args: str,
        port: int | None = None,
        host: str = '127.0.0.1',
        timeout_s: float = 60.0,
    ) -> None:
        self.port = port or free_port()
        if host != '127.0.0.1':
            args = ('--host', host, *args)
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
        shown_host = f'[{host}]' if ':' in host else host
        self.url = f'http://{shown_host}:{self.port}'
        address = next(line for line in self.lines if line.startswith('dashboard: http'))
        self.token = parse_qs(urlsplit(address.split()[1]).query).get('token', [None])[0]

    def address(self, path: str = '/') -> str:
        """`path` with the token in the query: the first page a browser opens (the session
        remembers the token for the others)."""
        if not self.token:
            return self.url + path
        return f'{self.url}{path}{"&" if "?" in path else "?"}token={self.token}'

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
