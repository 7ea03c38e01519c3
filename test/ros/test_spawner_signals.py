"""`spawner` and `hardware_spawner` stop promptly on SIGINT/SIGTERM, and --unload-on-kill
cleans up on a signal.

Real processes over real DDS. Times are printed (run with -s to see them); the 1 s target
is not asserted: the `wait(timeout=5)` is only a failure guard.
"""

import signal
import subprocess
import threading
import time

import pytest
from safety_rig import robot

from py_controllers.testing import BIN, CONFIG, ManagerProcess, RosHarness

CONTROLLERS = CONFIG / 'minimal_controllers.yaml'
URDF = CONFIG / 'minimal_robot.urdf'


class Tool:
    """One of our console scripts in a subprocess; its output (stdout and stderr) is read
    line by line in a thread, so a test can wait for a line instead of sleeping."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [str(BIN / args[0]), *args[1:]],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self.lines.append('')  # end of output
            self._changed.notify_all()

    @property
    def output(self) -> str:
        return ''.join(self.lines)

    def wait_for_line(self, text: str, timeout_s: float = 30.0) -> bool:
        """True once a line containing `text` was printed; False at the end of the output
        or after `timeout_s` (a failure guard only)."""
        with self._changed:
            return self._changed.wait_for(
                lambda: any(text in line for line in self.lines) or self.lines[-1:] == [''],
                timeout_s,
            ) and any(text in line for line in self.lines)

    def signal_and_wait(self, sig: int, guard_s: float = 5.0) -> float:
        """Send `sig`, wait for the exit (at most `guard_s`); seconds it took."""
        start = time.monotonic()
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=guard_s)
        finally:
            elapsed = time.monotonic() - start
            self.kill()
        self._reader.join(5)
        return elapsed

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


SIGNALS = pytest.mark.parametrize('sig', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
TOOLS = pytest.mark.parametrize(
    ('command', 'service'),
    [
        (('spawner', 'forward_position_controller'), 'list_controllers'),
        (('hardware_spawner', 'MinimalSystem', '--activate'), 'list_hardware_components'),
    ],
    ids=['spawner', 'hardware_spawner'],
)


@SIGNALS
@TOOLS
def test_signal_while_waiting_for_the_manager_exits_at_once(sig, command, service):
    # no manager on this domain: the tool waits for it (forever, by default)
    spawner = Tool(*command, '-c', '/nobody_here')
    try:
        assert spawner.wait_for_line(f"waiting for '/nobody_here/{service}'"), spawner.output
        assert spawner.proc.poll() is None, spawner.output
        elapsed = spawner.signal_and_wait(sig)
    finally:
        spawner.kill()
    name = signal.Signals(sig).name
    print(f'\n{command[0]} exited {elapsed:.3f} s after {name} while waiting for the manager')
    assert spawner.proc.returncode == 128 + sig, spawner.output  # exited itself, non-zero
    assert 'Traceback' not in spawner.output
    assert f'{name} received while waiting for' in spawner.output, spawner.output


def test_unload_on_kill_unloads_on_sigint_and_exits_0():
    with ManagerProcess([CONTROLLERS], URDF) as manager, RosHarness('unload_on_kill') as ros:
        spawner = Tool(
            'spawner',
            'forward_position_controller',
            '--unload-on-kill',
            '--controller-manager-timeout',
            '30',
        )
        try:
            # spawning completed: the spawner now waits for the signal
            assert spawner.wait_for_line('waiting for SIGINT/SIGTERM'), (
                spawner.output + manager.output()
            )
            cm = ros.manager()
            states = {c.name: c.state for c in cm.list_controllers()}
            assert states.get('forward_position_controller') == 'active', states
            elapsed = spawner.signal_and_wait(signal.SIGINT, guard_s=30.0)
        finally:
            spawner.kill()
        print(f'\nspawner --unload-on-kill unloaded and exited {elapsed:.3f} s after SIGINT')
        assert spawner.proc.returncode == 0, spawner.output + manager.output()
        assert 'Traceback' not in spawner.output
        names = [c.name for c in cm.list_controllers()]
        assert 'forward_position_controller' not in names, names
        assert manager.alive, manager.output()


@SIGNALS
def test_hardware_spawner_signal_during_a_slow_transition_exits_at_once(tmp_path, sig):
    # a component whose activation takes 5 s (a board booting), inactive at start
    urdf = tmp_path / 'robot.urdf'
    urdf.write_text(robot({'SlowBoard': ({'activate_delay_s': 5.0}, ['j1'])}))
    initially = {'hardware_components_initial_state.inactive': '[SlowBoard]'}
    with ManagerProcess([], urdf, params=initially) as manager, RosHarness('hw_signal') as ros:
        cm = ros.manager()
        (component,) = cm.list_hardware_components()
        assert component.state.label == 'inactive', manager.output()
        spawner = Tool(
            'hardware_spawner',
            'SlowBoard',
            '--activate',
            '--controller-manager-timeout',
            '30',
            *('--ros-args', '--log-level', 'hardware_spawner:=debug'),
        )
        try:
            # the request is out (the client logs this after sending it): the manager runs
            # the transition, the tool waits for the answer
            called = "'/controller_manager/set_hardware_component_state' called"
            assert spawner.wait_for_line(called), spawner.output + manager.output()
            # and the manager has it: the component is in its transition (busy: its
            # interfaces are unavailable meanwhile); a request still on the wire could be
            # lost with the tool's exit
            assert ros.spin_until(
                lambda: not any(i.is_available for i in cm.list_hardware_interfaces()[1])
            ), manager.output()
            elapsed = spawner.signal_and_wait(sig)
        finally:
            spawner.kill()
        name = signal.Signals(sig).name
        print(f'\nhardware_spawner exited {elapsed:.3f} s after {name} during a transition')
        assert spawner.proc.returncode == 128 + sig, spawner.output
        assert 'Traceback' not in spawner.output
        during = "during a call of '/controller_manager/set_hardware_component_state'"
        assert f'{name} received {during}: exiting' in spawner.output, spawner.output
        assert 'activated component' not in spawner.output
        # the manager carries the transition it started to its end and stays up
        assert ros.spin_until(lambda: cm.list_hardware_components()[0].state.label == 'active'), (
            manager.output()
        )
        assert manager.alive, manager.output()
