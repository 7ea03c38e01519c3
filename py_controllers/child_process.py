"""A program of ours in a subprocess that ends like a terminal user ends it: SIGINT first."""

from __future__ import annotations

import signal
import subprocess
from typing import Any


class ChildProcess:
    """`process` (a Popen) with alive, stop() and a context manager that stops it."""

    process: subprocess.Popen

    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self.process.poll() is None

    def stop(self, timeout_s: float = 15.0) -> int:
        """SIGINT, then wait; kill if it does not stop. Returns the exit code."""
        if self.alive:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        return self.process.returncode

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
