"""Ways out that are not a plain Ctrl-C: start-up parameters that cannot work (refused at
start: exit 1, one line naming the parameter, no traceback), a read() that never returns
(the watchdog: 'control loop stalled', /diagnostics ERROR, the safe stop, exit 1) and a
second Ctrl-C while the shutdown waits on a slow component (exit 1 at once, after one
final-write attempt). SIGHUP and SIGQUIT mid-motion are in shutdown.py."""

from __future__ import annotations

import signal
import subprocess
import tempfile
import time
from pathlib import Path

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus

from faults.common import LOG_LINE, Row
from faults.fault_rig import fault_rig
from faults.robots import FAULT_CONTROLLERS, fault_robot
from faults.shutdown import EXIT_TIMEOUT_S, wait_exit
from py_controllers.testing import ManagerProcess

BAD_START_UP = [
    ('cpu_affinity', '2.5'),
    ('thread_priority', 'high'),
    ('thread_priority', '150'),
    ('lock_memory', '3'),
    ('update_rate', '0'),
    ('watchdog.periods', '0'),
]
MOVING = ['joint_state_broadcaster', 'velocity_controller', 'read_trigger', 'fic']


def refusals(output: str, name: str) -> list[str]:
    """The lines of `output` that name parameter `name`."""
    return [line for line in output.splitlines() if f"parameter '{name}'" in line]


def start_up_row(name: str, value: str) -> Row:
    row = Row('ros2_control_node -p', f'{name}:={value} (refused at start)', measured=False)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / 'robot.urdf').write_text(fault_robot(folder / 'a.json', folder / 'b.json'))
        (folder / 'controllers.yaml').write_text(FAULT_CONTROLLERS)
        with ManagerProcess(
            [folder / 'controllers.yaml'], folder / 'robot.urdf', params={name: value}
        ) as proc:
            row.sent += 1
            try:
                code = proc.process.wait(30.0)
            except subprocess.TimeoutExpired:
                code = None
            output = proc.output()
    lines = refusals(output, name)
    row.expected_errors += 1
    row.errors += int(code == 1 and len(lines) == 1)
    row.logs = len(lines)
    if code != 1:
        row.fail(f'exit status {code}, not 1')
    if len(lines) != 1:
        row.fail(f'{len(lines)} lines name the parameter')
    else:
        row.note(f'"{lines[0].strip()[:90]}"')
    if 'Traceback' in output:
        row.fail('a traceback')
    if 'control loop running' in output:
        row.fail('the loop started')
    return row


def stall_line(output: str) -> tuple[float, str] | None:
    """The (wall time, message) of the watchdog's log line about the stall."""
    for line in output.splitlines():
        m = LOG_LINE.match(line)
        if m and 'control loop stalled' in m.group(3):
            return float(line.split('] [', 2)[1]), m.group(3)
    return None


def watchdog_row() -> Row:
    """Code 6 on Arm's read gpio: its next read() never returns, the loop stalls."""
    row = Row('FaultInjectionSystem read()', 'blocks forever (watchdog)', measured=False)
    row.after_stop = 0
    with fault_rig(MOVING) as rig:
        robot = rig.robot
        diagnostics: list = []
        robot.node.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 50)
        row.sent += 1
        if not rig.drive():
            row.fail('the robot did not move')
        start = time.time()
        rig.inject('read', 6.0, lambda: not robot.proc.alive, timeout_s=30.0)
        code = wait_exit(rig, row)
        end = time.time()
        stall = stall_line(robot.proc.output())
        if stall is not None:
            row.note(f'"{stall[1][:60]}" {stall[0] - start:.1f} s after the fault was sent')
        row.note(f'exit {code} {end - start:.1f} s after it')
        if code != 1:
            row.fail(f'exit status {code}, not 1')
        stalled = [
            s.message
            for msg in diagnostics
            for s in msg.status
            if s.level == DiagnosticStatus.ERROR and 'control loop stalled' in s.message
        ]
        if not stalled:
            row.fail('no /diagnostics ERROR about the stall')
        output = robot.proc.output()
        row.logs = len(robot.log_lines(0, levels=('ERROR', 'FATAL')))
        for expected in ('control loop stalled', 'safe stop without the cycle lock'):
            if expected not in output:
                row.fail(f"no '{expected}' in the log")
        moving = rig.moving_after_stop('Aux')  # the healthy component got the final write
        row.after_stop += len(moving)
        if moving:
            row.note(f'Aux last write: {moving}')
        if not rig.record('Aux'):
            row.fail('no record of the final write on Aux')
    return row


def double_signal_row() -> Row:
    """Aux takes 30 s to deactivate; a second SIGINT during the wait ends it at once."""
    row = Row('ros2_control_node process', 'second SIGINT during a slow shutdown', after_stop=0)
    row.measured = False
    with fault_rig(
        ['joint_state_broadcaster', 'velocity_controller', 'fic'],
        aux_params={'deactivate_delay_s': 30.0},
    ) as rig:
        robot, proc = rig.robot, rig.robot.proc.process
        row.sent += 1
        if not rig.drive():
            row.fail('the robot did not move')
        proc.send_signal(signal.SIGINT)
        # Arm saves its record when it is shut down, before Aux's long deactivation
        if not robot.wait(rig.records['Arm'].exists, EXIT_TIMEOUT_S):
            row.fail('the shutdown did not reach Arm')
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        code = wait_exit(rig, row)
        row.note(f'exit {code} {time.monotonic() - start:.2f} s after the second SIGINT')
        if code != 1:
            row.fail(f'exit status {code}, not 1')
        if 'SIGINT again: exiting now' not in robot.proc.output():
            row.fail("no 'SIGINT again: exiting now'")
        moving = rig.moving_after_stop('Arm')
        row.after_stop += len(moving)
        if moving:
            row.note(f'Arm last write: {moving}')
        row.logs = len(robot.log_lines(0, levels=('ERROR', 'FATAL')))
    return row


def run(rows: list[Row]) -> None:
    for name, value in BAD_START_UP:
        rows.append(start_up_row(name, value))
    rows.append(watchdog_row())
    rows.append(double_signal_row())
