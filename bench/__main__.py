"""`make bench`: how close ros2_control_node comes to this machine's floor, in tables.

1 loop floor vs manager (demo robot under load, 1 kHz)   4 scaling in joints and controllers
2 per-cycle cost at 100 Hz and 1 kHz, per controller     5 CPU use of an idle manager
3 topic-to-hardware command latency                      6 start-up to active controllers
7 simulated arms: MuJoCo vs SimulatedSystem, read + write per cycle
8 serial bus servos at 1 Mbaud: one sync write + sync read of 6 servos, the loop rate it holds

Every figure comes from this run on this machine; nothing here is asserted by the tests.
`--write` also puts the tables of a full run into docs/bench_results.md, with date and machine.
A table that cannot measure (a manager that does not come up, a message that never arrives)
says why and the run goes on; `--hog` runs a busy loop on every core beside the bench.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

from bench.command_latency import latency_run
from bench.common import table, verdict
from bench.cpu_idle import ROBOTS, IdleWindows, idle_windows
from bench.demo_load import PAUSE_S, demo_run, warm_cycle_us
from bench.floor import LoopWindows, alternating_windows
from bench.hog import cpu_hog
from bench.mujoco_step import BARE, PACED, mujoco_step_run
from bench.results_file import RESULTS, tee_stdout, this_machine
from bench.results_file import write as write_results
from bench.scaling import forward_run, jtc_run
from bench.servo_bus import servo_bus_run
from bench.startup_time import startup_run
from bench.targets import (
    COST_TARGETS,
    CPU_TARGETS,
    FIGURES,
    LATENCY_TARGETS,
    LOOP_TARGETS,
    MUJOCO_TARGETS,
    SCALING_TARGETS,
    SERVO_TARGETS,
    STARTUP_TARGETS,
    guarded,
    ratio_targets,
)
from py_controllers import compiled

TABLES = ('loop', 'cost', 'latency', 'scaling', 'cpu', 'startup', 'mujoco', 'servos')


def _lateness_row(label: str, s: dict) -> list:
    late = s['lateness']
    overrun_pct = 100.0 * s['overruns'] / max(s['cycles'], 1)
    return [
        label,
        s['measured_rate_hz'],
        late['p50_us'],
        late['p99_us'],
        late['p999_us'],
        late['max_us'],
        f'{s["overruns"]} ({overrun_pct:.2f} %)',
    ]


def loop_table(windows: LoopWindows, targets: list) -> None:
    print('\n## 1. Loop floor vs manager, 1 kHz, demo robot under load\n')
    print('Lateness is wake-up minus deadline (us). Floors: a bare Python loop (same thread')
    print('scheduling, same final spin), and the manager itself on the minimal mock robot with')
    print('only a joint state broadcaster (its executor and publishing thread alive). The three')
    print('are measured in turn, round after round, so that a busy spell of the host falls on')
    print('each alike; the ratio compares the median window of each.\n')
    headers = ['round', 'loop', 'rate Hz', 'p50', 'p99', 'p99.9', 'max', 'overruns']
    rows = []
    labels = ('bare Python', 'manager, nearly empty', 'manager, demo robot')
    for i, runs in enumerate(zip(windows.bare, windows.empty, windows.demo)):
        rows += [[i + 1, *_lateness_row(label, s)] for label, s in zip(labels, runs)]
    print(table(headers, rows))

    def median_p99(runs: list[dict]) -> float:
        return statistics.median(r['lateness']['p99_us'] for r in runs)

    demo_p99, empty_p99 = median_p99(windows.demo), median_p99(windows.empty)
    ratio = demo_p99 / max(empty_p99, 1e-9)
    FIGURES['p99_ratio'] = ratio
    bare_ratio = demo_p99 / max(median_p99(windows.bare), 1e-9)
    worst_p99 = max(r['lateness']['p99_us'] for r in windows.demo)
    rate_error = max(abs(r['measured_rate_hz'] - 1000.0) / 10.0 for r in windows.demo)
    overruns = sum(r['overruns'] for r in windows.demo)
    overrun_pct = 100.0 * overruns / max(sum(r['cycles'] for r in windows.demo), 1)
    goals = ', '.join(r['goal'] for r in windows.demo)
    print(
        f'\nMedian p99: demo {demo_p99:.1f} us, nearly empty manager {empty_p99:.1f} us '
        f'({ratio:.1f}x), bare Python {median_p99(windows.bare):.1f} us ({bare_ratio:.1f}x); '
        f'trajectory goal at the end of each demo window: {goals}'
    )
    targets += [
        (
            '1 kHz mean rate within 0.5 %, every window',
            f'{rate_error:.2f} % off',
            rate_error <= 0.5,
        ),
        (
            'p99 lateness < 100 us (10 % of the period), every window',
            f'{worst_p99:.0f} us',
            worst_p99 < 100.0,
        ),
        ('p99 lateness <= 10x the nearly empty manager (medians)', f'{ratio:.1f}x', ratio <= 10.0),
        ('overruns < 0.1 %, all windows', f'{overrun_pct:.2f} %', overrun_pct < 0.1),
    ]


def cost_table(
    runs: dict[int, dict], warm: dict[str, float], targets: list, pure: dict | None = None
) -> None:
    """Table 2; `pure`: the 1 kHz run with the pure Python hot path, a column beside it."""
    print('\n## 2. Per-cycle cost, demo robot under load (us)\n')
    columns = [(f'{r} Hz', runs[r]) for r in sorted(runs)]
    if pure is not None:
        columns.append(('1000 Hz pure Python', pure))
    headers = ['part'] + [f'{label} {k}' for label, _ in columns for k in ('mean', 'p99')]
    parts = [('read + update + write', 'execution'), ('read (3 components)', 'read')]
    parts.append(('write', 'write'))
    rows = [
        [label] + [run[key][k] for _, run in columns for k in ('mean_us', 'p99_us')]
        for label, key in parts
    ]
    names = sorted(set().union(*(run['controllers'] for _, run in columns)))
    for name in names:
        rows.append(
            [f'update: {name}']
            + [
                run['controllers'].get(name, {}).get(k, 0.0)
                for _, run in columns
                for k in ('mean_us', 'p99_us')
            ]
        )
    print(table(headers, rows))
    if pure is not None and 1000 in runs:
        built, plain = runs[1000]['execution']['mean_us'], pure['execution']['mean_us']
        gain = 100 * (plain - built) / plain
        print(
            f'\nThe hot path at 1 kHz: {compiled.variant()} {built:.0f} us, pure Python '
            f'{plain:.0f} us (the compiled one {abs(gain):.0f} % '
            f'{"faster" if gain >= 0 else "slower"}; one window each, one after the other).'
        )
    if 'error' in warm:
        print(
            '\nThe same 1 kHz cycle run back to back in one process: not measured '
            f'({warm["error"]}).'
        )
    else:
        print(
            f'\nThe same 1 kHz cycle run back to back in one process: mean {warm["mean"]:.0f} us '
            f'(p99 {warm["p99"]:.0f}) with every message filled and sent between cycles, as in '
            f'the loop; {warm["mean_unwaited"]:.0f} us without waiting for the publishing thread, '
            'which then falls behind so that most cycles skip filling messages: the arithmetic '
            'alone, with hot caches.'
        )
    if 'median_after_pause' in warm:
        print(
            f'Each cycle after a {PAUSE_S * 1e3:g} ms sleep, as in the 1 kHz loop: median '
            f'{warm["median_after_pause"]:.0f} us (the caches as this host leaves them; '
            '`python -m bench.cold_start` for longer pauses).'
        )
    if 1000 in runs:
        mean = runs[1000]['execution']['mean_us']
        FIGURES['cycle_1k_us'] = mean
        targets.append(('demo cycle < 150 us mean at 1 kHz', f'{mean:.0f} us', mean < 150.0))


def latency_table(targets: list) -> None:
    print('\n## 3. Command latency: publish on ~/commands (other process) -> hardware write\n')
    rows = []
    for rate in (100, 1000):
        r = latency_run(rate)
        limit = r['period_us'] + 500.0
        rows.append(
            [
                f'{rate} Hz',
                f'{r["received"]}/{r["sent"]}',
                r['p50_us'],
                r['p99_us'],
                r['max_us'],
                limit,
            ]
        )
        targets.append(
            (
                f'latency p50 < period + 0.5 ms at {rate} Hz',
                f'{r["p50_us"]:.0f} us',
                r['p50_us'] < limit,
            )
        )
    print(table(['rate', 'received', 'p50 us', 'p99 us', 'max us', 'target p50 us'], rows))


def scaling_table(seconds: float, targets: list) -> None:
    print('\n## 4. Scaling at 1 kHz, mock hardware (us)\n')
    rows = []
    costs = {}
    for n in (6, 30, 100, 300):
        s = jtc_run(n, seconds)
        jtc = s['controllers']['jtc']['mean_us']
        costs[n] = jtc
        rows.append(
            [
                f'{n} joints: quintic JTC + broadcaster',
                s['execution']['mean_us'],
                s['execution']['p99_us'],
                f'JTC {jtc:.0f}, broadcaster '
                f'{s["controllers"]["joint_state_broadcaster"]["mean_us"]:.0f}',
                s['measured_rate_hz'],
                s['overruns'],
            ]
        )
    for n in (1, 10, 50):
        s = forward_run(n, seconds)
        each = statistics.fmean(c['mean_us'] for c in s['controllers'].values())
        rows.append(
            [
                f'{n} forward controllers',
                s['execution']['mean_us'],
                s['execution']['p99_us'],
                f'{each:.1f} each',
                s['measured_rate_hz'],
                s['overruns'],
            ]
        )
    print(table(['what', 'cycle mean', 'cycle p99', 'update', 'rate Hz', 'overruns'], rows))
    per_joint_small = costs[6] / 6
    per_joint_large = costs[300] / 300
    targets += [
        ('100-joint quintic JTC < 300 us', f'{costs[100]:.0f} us', costs[100] < 300.0),
        (
            'JTC cost no worse than linear in joints',
            f'{per_joint_small:.1f} us/joint at 6, {per_joint_large:.2f} at 300',
            per_joint_large <= per_joint_small,
        ),
    ]


def cpu_table(runs: dict[tuple[str, int], IdleWindows], targets: list) -> None:
    """Table 5 from each robot's and rate's windows; the targets judged on the medians."""
    print('\n## 5. CPU of an idle manager (controllers active, no commands), % of a core\n')
    print('Unheard: nobody subscribes, so no state message is filled or sent. Heard: every')
    print('state topic has a subscriber, as with rviz and robot_state_publisher (100 Hz).')
    print('One manager process per row, its windows taken in turn, unheard and heard')
    print('alternating; each cell is the median, the windows in brackets in order taken.\n')

    def cell(cpus: list[float]) -> str:
        if not cpus:
            return '-'
        return f'{statistics.median(cpus):.1f} ({" / ".join(f"{c:.1f}" for c in cpus)})'

    rows = [[robot, rate, cell(w.unheard), cell(w.heard)] for (robot, rate), w in runs.items()]
    print(table(['robot', 'rate Hz', 'CPU % unheard', 'CPU % heard'], rows))
    for (robot, rate), w in runs.items():
        if rate == 1000 and robot.startswith('minimal') and w.unheard:
            FIGURES['minimal_1k_cpu'] = statistics.median(w.unheard)
        if rate != 100:
            continue
        for label, cpus in (('unheard', w.unheard), ('heard', w.heard)):
            if cpus:
                cpu = statistics.median(cpus)
                targets.append(
                    (
                        f'idle at 100 Hz < 5 % of a core, {label} (median): {robot}',
                        f'{cpu:.2f} %',
                        cpu < 5.0,
                    )
                )


def startup_table(targets: list) -> None:
    print('\n## 6. Start-up: ros2_control_node + spawner to all demo controllers active\n')
    runs = [startup_run() for _ in range(3)]
    total = statistics.median(r[0] for r in runs)
    spawner = statistics.median(r[1] for r in runs)
    print(
        table(
            ['median of 3', 'seconds'],
            [['to all active', total], ['of which spawner start-up', spawner]],
        )
    )
    targets.append(('start-up to active controllers < 2 s', f'{total:.2f} s', total < 2.0))


def mujoco_table(seconds: float, targets: list) -> None:
    print('\n## 7. Simulated arms: read + write of the hardware component per cycle (us)\n')
    print('Each component driven alone in this process, every joint in effort, 1 ms physics')
    print('steps; the bare mj_step of the same MuJoCo model is the floor.\n')
    rows = mujoco_step_run(seconds)
    headers = ['component', 'read mean', 'read p99', 'write mean', 'write p99', 'total mean']
    headers.append('total p99')
    print(
        table(
            headers,
            [[label, *c['read'], *c['write'], *c['total']] for label, c in rows],
        )
    )
    mujoco_1k = rows[0][1]['total'][0]
    floors = dict(rows)
    FIGURES['mj_step_us'] = floors[BARE]['median']
    print(
        f"\nThe bare mj_step's median (the ratio target's floor): {FIGURES['mj_step_us']:.1f} us."
    )
    if PACED in floors:
        FIGURES['mj_step_paced_us'] = floors[PACED]['median']
        print(
            f'Paced as the loop paces its cycles, its median is {FIGURES["mj_step_paced_us"]:.1f}'
            f' us, {FIGURES["mj_step_paced_us"] / FIGURES["mj_step_us"]:.1f}x the step back to'
            ' back: on this host a sleep of the loop leaves the next step that much slower.'
        )
    targets.append(
        (
            'MuJoCo arm6 read + write < 10 % of a 1 kHz period',
            f'{mujoco_1k:.0f} us',
            mujoco_1k < 100.0,
        )
    )


def servo_table(seconds: float, targets: list) -> None:
    print(
        '\n## 8. Serial bus servos at 1 Mbaud: sync write of 6 goals + sync read of 6 servos (ms)\n'
    )
    print("The components' own bus code through the vendors' SDKs, against the simulated bus")
    print("on a pty with byte timing at 1 Mbaud and each servo's return delay; the highest loop")
    print('rate is one round per cycle at the p99.\n')
    rows = servo_bus_run(seconds)
    headers = [
        'bus',
        'rounds',
        'failed',
        'wire time',
        'p50',
        'p99',
        'max',
        'highest loop rate (Hz)',
    ]
    print(
        table(
            headers,
            [
                [
                    label,
                    r['rounds'],
                    r['failed'],
                    r['wire_ms'],
                    r['p50_ms'],
                    r['p99_ms'],
                    r['max_ms'],
                    r['rate_hz'],
                ]
                for label, r in rows
            ],
        )
    )
    feetech = rows[0][1]['rate_hz']
    targets.append(('6 STS3215 at 1 Mbaud hold a 100 Hz loop', f'{feetech:.0f} Hz', feetech >= 100))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog='bench', description=__doc__.splitlines()[0])
    p.add_argument('--seconds', type=float, default=5.0, help='measuring window per run')
    p.add_argument('--only', nargs='+', choices=TABLES, default=list(TABLES))
    p.add_argument(
        '--rounds',
        type=int,
        default=3,
        help='windows of each kind in tables 1 and 5, taken in turn',
    )
    p.add_argument(
        '--write',
        action='store_true',
        help=f'also write the tables to {RESULTS.name} (date, machine): a full run only',
    )
    p.add_argument(
        '--hog',
        action='store_true',
        help='a busy loop on every core beside the run (killed at its end): a repeatable load',
    )
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error('--rounds must be at least 1')
    if args.write and set(args.only) != set(TABLES):
        p.error('--write records a full run: drop --only')
    os.environ.setdefault('ROS_DOMAIN_ID', str(100 + os.getpid() % 100))
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    with cpu_hog(args.hog) as hogged:
        print(f'# py_controllers bench\n\nmachine: {this_machine().line()}')
        print(f'hot path: {compiled.variant()} (PY_CONTROLLERS_PURE=1: the pure Python)')
        if hogged:
            print(f'load: --hog, a busy loop on each of cores {hogged} beside the bench')
        if not args.write:
            run_tables(args)
            return 0
        with tee_stdout() as tables:
            run_tables(args)
    command = f'python -m bench --seconds {args.seconds:g} --rounds {args.rounds}'
    command += ' --hog' if args.hog else ''
    if compiled.variant().startswith('pure'):
        command = 'PY_CONTROLLERS_PURE=1 ' + command
    print(f'\nwritten: {write_results(tables.getvalue(), command, RESULTS)}')
    return 0


def run_tables(args: argparse.Namespace) -> None:
    """Every table asked for, then the targets they were judged against. A table that fails
    says why in its place and its targets read "not measured"; the others still run."""
    targets: list[tuple[str, str, bool | None]] = []
    runs: dict[int, dict] = {}
    if 'loop' in args.only:

        def loop() -> None:
            windows = alternating_windows(1000, args.seconds, args.rounds)
            loop_table(windows, targets)
            runs[1000] = windows.demo[0]

        guarded('1. Loop floor vs manager', loop, targets, LOOP_TARGETS)
    if 'cost' in args.only:

        def cost() -> None:
            if 1000 not in runs:
                runs[1000] = demo_run(1000, args.seconds)
            runs[100] = demo_run(100, args.seconds)
            pure = None
            if not compiled.variant().startswith('pure'):
                pure = demo_run(1000, args.seconds, env={compiled.PURE_ENV: '1'})
            try:
                warm = warm_cycle_us()
            except Exception as exc:  # the loop's windows above still make the table
                warm = {'error': f'{type(exc).__name__}: {str(exc).strip()[-500:]}'}
            cost_table(runs, warm, targets, pure)

        guarded('2. Per-cycle cost', cost, targets, COST_TARGETS)
    if 'latency' in args.only:
        guarded('3. Command latency', lambda: latency_table(targets), targets, LATENCY_TARGETS)
    if 'scaling' in args.only:
        guarded(
            '4. Scaling', lambda: scaling_table(args.seconds, targets), targets, SCALING_TARGETS
        )
    if 'cpu' in args.only:

        def cpu() -> None:
            idle = {
                (robot, rate): idle_windows(
                    robot, rate, args.seconds, args.rounds, heard=rate == 100
                )
                for robot in ROBOTS
                for rate in (100, 1000)
            }
            cpu_table(idle, targets)

        guarded('5. CPU of an idle manager', cpu, targets, CPU_TARGETS)
    if 'startup' in args.only:
        guarded('6. Start-up', lambda: startup_table(targets), targets, STARTUP_TARGETS)
    if 'mujoco' in args.only:
        mujoco = lambda: mujoco_table(args.seconds, targets)  # noqa: E731
        guarded('7. Simulated arms', mujoco, targets, MUJOCO_TARGETS)
    if 'servos' in args.only:
        servos = lambda: servo_table(args.seconds, targets)  # noqa: E731
        guarded('8. Servo bus', servos, targets, SERVO_TARGETS)
    notes = ratio_targets(targets)
    print('\n## Targets\n')
    print(table(['target', 'measured', ''], [[t, m, verdict(ok)] for t, m, ok in targets]))
    for note in notes:
        print(f'\n{note}')


if __name__ == '__main__':
    sys.exit(main())
