"""Hardware that keeps a record, for what cannot be seen over ROS: the commands a
component got in write(), and what its joints do after the process has let go of them.

`python -m faults.recording <ros2_control_node args>` runs ros2_control_node with every
hardware plug-in named in FAULTS_RECORDED_PLUGINS also registered as `recorded/<name>`
(use `recorded_urdf()` on the description): the same class, plus

- every write() whose claimed commands (as its command-mode switches said) hold a
  non-finite value appends one JSON line to `<FAULTS_RECORD_DIR>/<component>.nonfinite`
  (none is the contract: the manager's command guard turns them into hold values before
  write(); an unclaimed interface may hold NaN, upstream's "no command", and so may an
  interface the hardware declares `nan_means_no_command`);
- every write() that carries a value on a claimed `nan_means_no_command` interface (a
  command handed to hardware that reads NaN as "nothing new") appends one line to
  `<component>.commands`;
- on_shutdown (the node's last word to it) writes `<component>.json`: the commands of the
  last write(), the positions then, and how far each joint moves in the next 3 s of its
  own simulated time (read() stepped with the component on its own hold, as a brake or a
  servo keeps the robot once the node is gone), with the velocities at the end.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

from rclpy.duration import Duration
from rclpy.time import Time

from py_controllers import plugins
from py_controllers.hardware_interface.hardware_component import HardwareComponentInterface
from py_controllers.hardware_interface.types import ReturnType
from py_controllers.testing import ManagerProcess

PREFIX = 'recorded/'
AFTER_S = 3.0
STEP_NS = 10_000_000


@cache
def recorded(cls: type) -> type:
    """`cls` with the records described above."""

    class Recorded(cls):  # type: ignore[misc, valid-type]
        _rec_claims: frozenset[str] = frozenset()

        def perform_command_mode_switch(self, start: list[str], stop: list[str]) -> Any:
            result = super().perform_command_mode_switch(start, stop)
            if result is None or result is ReturnType.OK:
                self._rec_claims = (self._rec_claims - set(stop)) | set(start)
            return result

        def write(self, time: Any, period: Any) -> Any:
            handles = self.command_interfaces
            self._rec_last_write = {n: h.value for n, h in handles.items()}
            claimed = {n: v for n, v in self._rec_last_write.items() if n in self._rec_claims}
            bad = {n: repr(v) for n, v in claimed.items() if not _finite(v, handles[n])}
            if bad:  # the failure case only: the file is written in the loop thread
                _append(self.info.name, 'nonfinite', bad)
            sent = {n: v for n, v in claimed.items() if _nan_is_no_command(handles[n]) and v == v}
            if sent:  # hardware with "NaN: nothing new" interfaces: rare, one per command
                _append(self.info.name, 'commands', {n: repr(v) for n, v in sent.items()})
            return super().write(time, period)

        def on_shutdown(self, previous_state: Any) -> Any:
            _path(self.info.name, 'json').write_text(json.dumps(self._rec_after_shutdown()))
            return super().on_shutdown(previous_state)

        def _rec_after_shutdown(self) -> dict:
            before = self._rec_positions()
            moved = dict.fromkeys(before, 0.0)
            for k in range(round(AFTER_S * 1e9 / STEP_NS)):
                self.read(Time(nanoseconds=(k + 1) * STEP_NS), Duration(nanoseconds=STEP_NS))
                now = self._rec_positions()
                moved = {j: max(moved[j], abs(now[j] - before[j])) for j in before}
            return {
                'last_write': getattr(self, '_rec_last_write', {}),
                'positions': before,
                'moved_after_s': AFTER_S,
                'moved': moved,
                'velocities': self._rec_states('velocity'),
            }

        def _rec_positions(self) -> dict[str, float]:
            return self._rec_states('position')

        def _rec_states(self, kind: str) -> dict[str, float]:
            return {
                n.rsplit('/', 1)[0]: float(h.value)
                for n, h in self.state_interfaces.items()
                if n.endswith(f'/{kind}')
            }

    Recorded.__name__ = Recorded.__qualname__ = f'Recorded{cls.__name__}'
    return Recorded


def _nan_is_no_command(handle: Any) -> bool:
    return bool(getattr(handle, 'nan_means_no_command', False))


def _finite(value: Any, handle: Any = None) -> bool:
    """A finite number, or NaN where the hardware reads NaN as "nothing new"."""
    if value != value and _nan_is_no_command(handle):
        return True
    return isinstance(value, (int, float)) and math.isfinite(value)


def _append(component: str, ext: str, entry: dict) -> None:
    with _path(component, ext).open('a') as f:
        f.write(json.dumps(entry) + '\n')


def _path(component: str, ext: str) -> Path:
    return Path(os.environ['FAULTS_RECORD_DIR']) / f'{component}.{ext}'


def recorded_urdf(urdf: str, names: list[str]) -> str:
    """`urdf` with the hardware plug-ins `names` swapped for their recorded kind."""
    for name in names:
        urdf = urdf.replace(f'<plugin>{name}</plugin>', f'<plugin>{PREFIX}{name}</plugin>')
    return urdf


def read_record(folder: Path, component: str) -> dict:
    """What `component` wrote at shutdown ({} if nothing)."""
    path = folder / f'{component}.json'
    return json.loads(path.read_text()) if path.exists() else {}


def nonfinite_writes(folder: Path) -> int:
    """write() calls so far, over every recorded component, that carried a non-finite value."""
    return sum(len(p.read_text().splitlines()) for p in folder.glob('*.nonfinite'))


def commands_written(folder: Path) -> int:
    """write() calls so far that carried a value on a claimed "NaN: nothing new" interface
    (a motion primitive handed to the robot)."""
    return sum(len(p.read_text().splitlines()) for p in folder.glob('*.commands'))


class RecordingProcess(ManagerProcess):
    """ManagerProcess running `python -m faults.recording` (records in `folder`)."""

    def __init__(
        self,
        folder: Path,
        plugin_names: list[str],
        params_files: list[Path],
        urdf: Path,
        params: dict[str, Any] | None = None,
    ) -> None:
        args = [sys.executable, '-m', 'faults.recording', '--ros-args']
        for path in params_files:
            args += ['--params-file', str(path)]
        args += ['-p', f'robot_description_file:={urdf}']
        for key, value in (params or {}).items():
            args += ['-p', f'{key}:={value}']
        env = {'FAULTS_RECORD_DIR': str(folder), 'FAULTS_RECORDED_PLUGINS': ','.join(plugin_names)}
        self.process = subprocess.Popen(
            args, stdout=self._open_log(), stderr=subprocess.STDOUT, env={**os.environ, **env}
        )


def main() -> int:
    from py_controllers.controller_manager.node import main as node_main

    for name in filter(None, os.environ.get('FAULTS_RECORDED_PLUGINS', '').split(',')):
        cls = plugins.load(plugins.HARDWARE_GROUP, name, HardwareComponentInterface)
        plugins.register(plugins.HARDWARE_GROUP, PREFIX + name, recorded(cls))
    return node_main(sys.argv)


if __name__ == '__main__':
    sys.exit(main())
