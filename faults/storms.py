"""Load/unload storms while a controller fails again and again: over the manager's
services, controllers are loaded, configured and unloaded back to back (three configured
at any time) while FaultInjectionController `fic` is made to fail (update() returns
ERROR) and activated again, for at least 1000 loop cycles. The loop must live on: the
process alive, its cycles still counted at its rate, nothing in the log about a loop that
stopped."""

from __future__ import annotations

import controller_manager_msgs.srv as cm_srv
from std_msgs.msg import UInt8

from faults.common import Row
from faults.fault_rig import fault_rig

CYCLES = 1000
STORM = [f'storm_{k}' for k in range(4)]
STORM_YAML = 'controller_manager:\n  ros__parameters:\n' + ''.join(
    f'    {name}: {{type: py_controllers/FaultInjectionController}}\n' for name in STORM
)
CONTROLLERS = ['joint_state_broadcaster', 'velocity_controller', 'fic']


class Tally:
    """Service calls of a storm: sent, unanswered, refused (ok false where ok was due)."""

    def __init__(self) -> None:
        self.sent = self.unanswered = self.refused = 0
        self.refusals: list[str] = []

    def count(self, what: str, ok: bool | None) -> None:
        self.sent += 1
        if ok is None:
            self.unanswered += 1
        elif not ok:
            self.refused += 1
            if len(self.refusals) < 3:
                self.refusals.append(what)


def storm_row(cycles: int = CYCLES) -> Row:
    row = Row('manager services + failing controller', f'load/unload storm, >= {cycles} cycles')
    with fault_rig(CONTROLLERS, extra_yaml=STORM_YAML) as rig:
        robot = rig.robot
        fault = robot.node.create_publisher(UInt8, '/fic/fault', 10)
        tally, failures, k = Tally(), 0, 0
        with robot.batch(row):
            start = (robot.statistics() or {}).get('cycles', 0)
            done = start
            while done - start < cycles and robot.proc.alive:
                states = robot.controller_states()
                tally.count('list_controllers', states is not None)
                if (states or {}).get('fic') == 'active':
                    fault.publish(UInt8(data=2))  # its next update() returns ERROR
                else:
                    failures += 1
                    switched = robot.switch(['fic'], [])
                    tally.count('switch fic on', None if switched is None else switched[0])
                name = STORM[k % len(STORM)]
                tally.count(
                    f'load {name}', robot.named(cm_srv.LoadController, 'load_controller', name)
                )
                tally.count(
                    f'configure {name}',
                    robot.named(cm_srv.ConfigureController, 'configure_controller', name),
                )
                if k >= 3:
                    old = STORM[(k - 3) % len(STORM)]
                    tally.count(
                        f'unload {old}',
                        robot.named(cm_srv.UnloadController, 'unload_controller', old),
                    )
                k += 1
                done = (robot.statistics() or {}).get('cycles', done)
            stats = robot.statistics()
        row.sent = tally.sent + failures
        row.unanswered += tally.unanswered
        row.note(f'{done - start} cycles, {k} loads, {failures} failures of fic')
        if tally.refused:
            row.fail(f'{tally.refused} calls refused: {tally.refusals}')
        if failures < 10:
            row.fail(f'fic failed only {failures} times')
        if stats is None or done - start < cycles:
            row.fail('the loop stopped counting cycles')
        else:
            row.note(f'{stats["measured_rate_hz"]:.0f} Hz measured afterwards')
        output = robot.proc.output()
        if 'control loop stopped' in output or 'Traceback' in output:
            row.fail('the loop stopped, or a traceback')
        row.logs = len(robot.log_lines(0, ['controller_manager'], ('ERROR', 'FATAL')))
        robot.expect_states(
            row, {'joint_state_broadcaster': 'active', 'velocity_controller': 'active'}
        )
    return row


def run(rows: list[Row]) -> None:
    rows.append(storm_row())
