"""What the simulated bus has answered, shared with the host's port (no rclpy).

A host gives up on a status packet after the SDK's timeout (about 34 ms). A real servo
answers within microseconds whatever load the host's computer is under; a simulated one
answers when its thread gets the CPU, which on a busy machine can be later than that: the
host would fail a servo that is there. So the simulator keeps, in a small shared file named
after its pseudo-terminal, how many of the bytes written to it it has read and answered, and
the host keeps there how many it has written. A host whose port is that pseudo-terminal
starts its timeout only once the simulator has answered its request (`SimProgress.answered`):
the bus runs on the simulator's time, and a timeout means a servo that really did not
answer. A simulator that has gone (closed, its process dead, or silent for `STALL_S`) leaves
the host on its own wall-clock timeouts.

A simulator on stepped time (`PtyServoBus(step_s=...)`) also shares its step and the time of
its servos at the last sync read: the component reports that time as its simulation time,
and a manager with `use_sim_time` runs its controllers on it, in step with the bus.

Layout: seven little-endian 64-bit words: magic, simulator pid, closed flag, bytes the
simulator has read and answered, bytes the hosts have written, the step in ns (0: the
servos move in wall-clock time), the servos' time in ns. Each word has one writer.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import struct
import tempfile
from pathlib import Path

MAGIC = 0x5345_5256_4F53_494D  # 'SERVOSIM'
STALL_S = 10.0  # a simulator that has not answered for this long has hung: wall clock again
_WORD = struct.Struct('<Q')
_MAGIC, _PID, _CLOSED, _DONE, _WRITTEN, _STEP, _TIME = (8 * k for k in range(7))
_SIZE = 56
DIRECTORY = Path(tempfile.gettempdir()) / 'py_controllers_servo_sim'


def progress_file(device: str) -> Path:
    """The shared file of the pseudo-terminal `device` (e.g. /dev/pts/5)."""
    return DIRECTORY / device.strip('/').replace('/', '_')


class _Words:
    def __init__(self, path: Path, create: bool) -> None:
        if create:
            DIRECTORY.mkdir(parents=True, exist_ok=True)
            staged = path.with_suffix(f'.{os.getpid()}')
            staged.write_bytes(bytes(_SIZE))
            os.replace(staged, path)  # a stale file of an earlier pty of this name is replaced
        with open(path, 'r+b') as f:
            self.map = mmap.mmap(f.fileno(), _SIZE)

    def get(self, offset: int) -> int:
        return _WORD.unpack_from(self.map, offset)[0]

    def put(self, offset: int, value: int) -> None:
        _WORD.pack_into(self.map, offset, value)


class SimSide:
    """The simulator's half: created with the pty, `done()` after answering, `close()`."""

    def __init__(self, device: str, step_ns: int = 0) -> None:
        self.path = progress_file(device)
        self._words = _Words(self.path, create=True)
        self._words.put(_PID, os.getpid())
        self._words.put(_STEP, step_ns)
        self._words.put(_MAGIC, MAGIC)
        self._read = 0

    def set_time(self, time_ns: int) -> None:
        """The servos' time after a step (stepped time only)."""
        self._words.put(_TIME, time_ns)

    def done(self, count: int) -> None:
        """`count` more bytes read, and whatever they asked for answered."""
        self._read += count
        self._words.put(_DONE, self._read)

    def close(self) -> None:
        """The simulator is gone: hosts fall back to their own timeouts."""
        self._words.put(_CLOSED, 1)
        with contextlib.suppress(OSError):
            self.path.unlink()


class SimProgress:
    """The host's half, for one open port: `wrote()` after each write, `answered()`."""

    def __init__(self, words: _Words) -> None:
        self._words = words

    @classmethod
    def attach(cls, port: str) -> SimProgress | None:
        """The simulator serving `port` (a pty or a link to one), or None (a real port)."""
        device = os.path.realpath(port)
        if not device.startswith('/dev/pts/'):
            return None
        try:
            words = _Words(progress_file(device), create=False)
        except (OSError, ValueError):
            return None
        progress = cls(words)
        if words.get(_MAGIC) != MAGIC or not progress.alive():
            return None
        return progress

    def wrote(self, count: int) -> int:
        """Count `count` bytes written; returns the total, what `answered` waits for."""
        total = self._words.get(_WRITTEN) + count
        self._words.put(_WRITTEN, total)
        return total

    def written(self) -> int:
        return self._words.get(_WRITTEN)

    def step_ns(self) -> int:
        """The simulator's step, 0 when its servos move in wall-clock time."""
        return self._words.get(_STEP)

    def time_ns(self) -> int:
        """The servos' time at the last sync read (stepped time only)."""
        return self._words.get(_TIME)

    def answered(self, written: int) -> bool:
        """Has the simulator read and answered every byte up to `written`?"""
        return self._words.get(_DONE) >= written

    def alive(self) -> bool:
        if self._words.get(_CLOSED):
            return False
        try:
            os.kill(self._words.get(_PID), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
