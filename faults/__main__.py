"""`make faults`: the safety net of ros2_control_node under malformed input and faults.

Every ROS entry point of every controller and of the manager gets N malformed inputs of
each kind (non-finite and huge values on every command topic among them: no non-finite
command may reach write()); controllers and hardware fail on purpose; a read() blocks for
good (the watchdog); load/unload storms run while a controller fails; start-up parameters
that cannot work are given; a serial cable is cut and restored K times, and a servo
arm's bus is cut K times, a servo silenced, overloaded and garbled; SIGINT, SIGTERM,
SIGHUP, SIGQUIT and a second SIGINT arrive mid-motion; every release path (deactivate,
unspawn, error, fallback, shutdown) is timed on each simulated hardware kind. Everything
goes through real ros2_control_node processes and their public ROS interfaces (hardware
records, for what ROS cannot show: faults/recording.py). One markdown table, a verdict;
exit status 0 only when nothing crashed, stalled, went unanswered or moved after stop,
every bad input got an error back and every controller ended in its expected state.

Columns: inputs sent (requests, messages, goals, injected faults); crashes (a process that
died when it should not have); stalls (measured batches whose longest loop period, from
~/get_statistics after ~/reset_statistics, exceeded 2 periods) and the worst period; no
answer (service calls and action goals without a response, accepted goals without a
result); errors back (bad inputs answered ok/success false with a message, a rejected
goal, a failed SetParameters with a reason; on a topic, the controller's state unchanged
and a log line about it); log lines (WARN/ERROR of the loggers concerned: controllers
throttle a callback's lines to one a second); commands after stop (a non-zero velocity in
the hardware's writes once its controllers were stopped); states as expected
(list_controllers and the other checks of the row, with notes).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable

from faults import (
    base_inputs,
    config_inputs,
    controller_inputs,
    description_inputs,
    exits,
    injected,
    manager_inputs,
    model_search,
    pid_inputs,
    primitive_inputs,
    release,
    serial_cut,
    servo_bus,
    storms,
)
from faults.common import Row
from faults.report import failures, table, verdict

GROUPS: dict[str, Callable[[argparse.Namespace, list[Row]], None]] = {
    'manager': lambda a, rows: manager_inputs.run(a.n, rows),
    'config': lambda a, rows: config_inputs.run(a.n, rows),
    'description': lambda a, rows: description_inputs.run(a.n, rows, quick=a.quick),
    'controllers': lambda a, rows: controller_inputs.run(a.n, rows),
    'pid': lambda a, rows: pid_inputs.run(a.n, rows),
    'bases': lambda a, rows: base_inputs.run(a.n, rows),
    'primitives': lambda a, rows: primitive_inputs.run(a.n, rows),
    'injected': lambda a, rows: injected.run(a.cuts, a.signals, a.n, rows),
    'exits': lambda a, rows: exits.run(rows),
    'storms': lambda a, rows: storms.run(rows),
    'serial': lambda a, rows: serial_cut.run(a.cuts, rows),
    'servos': lambda a, rows: servo_bus.run(a.cuts, rows),
    'release': lambda a, rows: release.run(rows),
    'model': lambda a, rows: model_search.run(a.model_steps, rows),
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog='faults', description=__doc__.splitlines()[0])
    p.add_argument('--n', type=int, default=20, help='malformed inputs of each kind')
    p.add_argument('--cuts', type=int, default=5, help='cable cuts, and injections of each fault')
    p.add_argument('--signals', type=int, default=2, help='SIGINT and SIGTERM runs of each')
    p.add_argument(
        '--model-steps', type=int, default=20_000, help='cycles of the long model search'
    )
    p.add_argument('--quick', action='store_true', help='N=4, K=2, one run per signal')
    p.add_argument('--only', nargs='+', choices=list(GROUPS), default=list(GROUPS))
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.cuts, args.signals = min(args.n, 4), min(args.cuts, 2), 1
        args.model_steps = min(args.model_steps, 2_000)
    # tests use domains 1-200, the bench 100-199: stay clear of both (valid up to 232)
    os.environ.setdefault('ROS_DOMAIN_ID', str(201 + os.getpid() % 31))
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    print(
        f'# py_controllers fault suite\n\nmachine: {platform.machine()}, {os.cpu_count()} cores, '
        f'Python {sys.version.split()[0]}; N={args.n} inputs per kind, K={args.cuts} cuts and '
        f'injections per fault, {args.signals} run(s) per signal\n',
        flush=True,
    )
    start = time.monotonic()
    load_at_start = os.getloadavg()[0]
    rows: list[Row] = []
    for name in args.only:
        t0 = time.monotonic()
        try:
            GROUPS[name](args, rows)
        except Exception as exc:  # the suite itself failed: a row says so, the run fails
            traceback.print_exc()
            row = Row(f'({name} group)', 'the suite could not finish this group')
            row.fail(f'{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ""}')
            rows.append(row)
        print(f'{name}: {time.monotonic() - t0:.0f} s', file=sys.stderr, flush=True)
    elapsed = time.monotonic() - start
    print(table(rows))
    print(f'\n{verdict(rows, elapsed)}')
    # the stall count (periods over two) moves with the host's load: say what it was
    print(
        f'\nHost load average (1 min): {load_at_start:.1f} at the start, '
        f'{os.getloadavg()[0]:.1f} at the end, on {os.cpu_count()} cores.'
    )
    return 1 if failures(rows) else 0


if __name__ == '__main__':
    sys.exit(main())
