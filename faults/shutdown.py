"""Every way out stops the robot: SIGINT, SIGTERM, SIGHUP (a closed terminal) and SIGQUIT
mid-motion (exit 0), and a loop killed by a SystemExit from hardware or a controller (exit
1, FATAL in the log). Either way the hardware's last write() must carry 0 velocity:
anything else is a command after stop. Each run is a fresh ros2_control_node."""

from __future__ import annotations

import signal
import subprocess

from faults.common import Row
from faults.fault_rig import CONTROLLERS, FaultRig, fault_rig

EXIT_TIMEOUT_S = 15.0


def wait_exit(rig: FaultRig, row: Row) -> int | None:
    try:
        return rig.robot.proc.process.wait(EXIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        row.fail(f'still running {EXIT_TIMEOUT_S:g} s later')
        return None


def check_records(rig: FaultRig, row: Row) -> None:
    """Both components' last write() must have stopped every velocity."""
    moving = rig.moving_after_stop('Arm') + rig.moving_after_stop('Aux')
    if moving:
        row.after_stop = (row.after_stop or 0) + len(moving)
        row.note(f'last write: {", ".join(moving)}')
    if rig.record('Arm').get('writes', 0) < 10:
        row.fail('no record of the motion')


def signal_row(sig: signal.Signals, runs: int) -> Row:
    row = Row(
        'ros2_control_node process', f'{sig.name} mid-motion (1.5 rad/s) x{runs}', after_stop=0
    )
    for _ in range(runs):
        with fault_rig(['joint_state_broadcaster', 'velocity_controller', 'fic']) as rig:
            robot = rig.robot
            row.sent += 1
            with robot.batch(row):
                if not rig.drive():
                    row.fail('the robot did not move')
            if not robot.proc.alive:
                continue
            robot.proc.process.send_signal(sig)
            code = wait_exit(rig, row)
            if code not in (0, None):
                row.crashes += 1
                row.fail(f'exit status {code}')
            row.logs = (row.logs or 0) + len(robot.log_lines(0, levels=('ERROR', 'FATAL')))
            check_records(rig, row)
    return row


def loop_death_row(kind: str, inject: str) -> Row:
    """A SystemExit escapes all containment: the loop ends loudly and the robot stops."""
    row = Row('control loop (SystemExit escapes)', kind, after_stop=0, measured=False)
    with fault_rig(CONTROLLERS) as rig:
        robot = rig.robot
        row.sent += 1
        if not rig.drive():
            row.fail('the robot did not move')
        dead = lambda: not robot.proc.alive  # noqa: E731
        if inject == 'read':
            rig.inject('read', 4.0, dead, timeout_s=15.0)
        else:
            rig.fail_controller(4, dead, timeout_s=15.0)
        code = wait_exit(rig, row)
        if code != 1:
            row.fail(f'exit status {code}, not 1')
        output = robot.proc.output()
        if 'the control loop stopped on an unhandled error' not in output:
            row.fail('no FATAL line about the loop')
        row.logs = len(robot.log_lines(0, levels=('FATAL',)))
        check_records(rig, row)
    return row


def run(signals: int, rows: list[Row]) -> None:
    rows.append(loop_death_row('hardware read() raises SystemExit', 'read'))
    rows.append(loop_death_row('controller update() raises SystemExit', 'update'))
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        rows.append(signal_row(sig, signals))
