"""A program of ours in a subprocess that ends like a terminal user ends it: SIGINT first."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import IO, Any


class ChildProcess:
    """`process` (a Popen) with alive, stop() and a context manager that stops it; a
    subclass may send the child's output to `_open_log()`, a temporary file that stop()
    reads and removes (`_logged()` keeps answering)."""

    process: subprocess.Popen
    _log: IO[str] | None = None
    _log_text: str | None = None

    def _open_log(self) -> IO[str]:
        """A temporary file for the child's output; read and removed by stop()."""
        self._log = tempfile.NamedTemporaryFile('w+', suffix='.log', delete=False)  # noqa: SIM115
        return self._log

    def _logged(self) -> str:
        """What the child wrote to its log file so far (kept after the file is removed)."""
        if self._log_text is not None:
            return self._log_text
        if self._log is None:
            return ''
        self._log.flush()
        return Path(self._log.name).read_text(errors='replace')

    def _remove_log(self) -> None:
        if self._log is None or self._log_text is not None:
            return
        self._log_text = self._logged()
        self._log.close()
        os.unlink(self._log.name)

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
        self._remove_log()
        return self.process.returncode

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
