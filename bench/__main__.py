"""`make bench`: loop periodicity and per-cycle cost of ros2_control_node vs the bare floor.

Runs the manager with the example config at 100 Hz and 1 kHz, spawns its controllers,
lets it run, reads the statistics service, and prints tables.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from bench.floor import bare_loop
from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool


def manager_run(rate_hz: int, seconds: float) -> dict:
    """Statistics of ros2_control_node at `rate_hz` with the minimal example running."""
    with tempfile.NamedTemporaryFile('w', suffix='.yaml', delete=False) as f:
        f.write(f'controller_manager:\n  ros__parameters:\n    update_rate: {rate_hz}\n')
        rate_file = f.name
    with (
        ManagerProcess(
            [CONFIG / 'minimal_controllers.yaml', rate_file], CONFIG / 'minimal_robot.urdf'
        ) as proc,
        RosHarness('bench') as ros,
    ):
        result = run_tool('spawner', 'joint_state_broadcaster', 'forward_position_controller')
        if result.returncode != 0:
            raise RuntimeError(result.stderr + proc.output())
        cm = ros.manager()
        cm.statistics()  # the manager is up; asking again only at the end keeps it undisturbed
        end = time.monotonic() + seconds
        ros.spin_until(lambda: time.monotonic() >= end, timeout_s=seconds + 1)
        stats = cm.statistics()
    os.unlink(rate_file)
    return stats


def row(label: str, s: dict) -> str:
    return (
        f'| {label:<28} | {s["mean_us"]:9.1f} | {s["stddev_us"]:8.1f} | {s["p50_us"]:8.1f} | '
        f'{s["p99_us"]:8.1f} | {s["p999_us"]:8.1f} | {s["max_us"]:9.1f} |'
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog='bench', description=__doc__.splitlines()[0])
    p.add_argument('--seconds', type=float, default=5.0, help='run time per rate')
    p.add_argument('--rates', type=int, nargs='+', default=[100, 1000])
    args = p.parse_args(argv)
    print(f'machine: {os.cpu_count()} cores, python {sys.version.split()[0]}')
    header = (
        '| what                         |  mean us |  std us |  p50 us |  p99 us | p99.9 us |'
        '   max us |\n|---|---:|---:|---:|---:|---:|---:|'
    )
    for rate in args.rates:
        floor = bare_loop(rate, args.seconds)
        stats = manager_run(rate, args.seconds)
        print(
            f'\n## {rate} Hz, {args.seconds:g} s each (periods are absolute, lateness is '
            'wake-up minus deadline)\n'
        )
        print(header)
        print(row('floor: period', floor['period']))
        print(row('floor: lateness', floor['lateness']))
        print(row('manager: period', stats['period']))
        print(row('manager: lateness', stats['lateness']))
        print(row('manager: read+update+write', stats['execution']))
        print(row('manager: read', stats['read']))
        print(row('manager: write', stats['write']))
        for name, s in sorted(stats.get('controllers', {}).items()):
            print(row(f'update: {name}', s))
        f99, m99 = floor['lateness']['p99_us'], stats['lateness']['p99_us']
        print(
            f'\nmeasured rate: floor {floor["measured_rate_hz"]:.2f} Hz, manager '
            f'{stats["measured_rate_hz"]:.2f} Hz; overruns: floor {floor["overruns"]}, '
            f'manager {stats["overruns"]} of {stats["cycles"]} cycles; '
            f'lateness p99 manager/floor = {m99 / max(f99, 1e-9):.2f}'
        )
    return 0


if __name__ == '__main__':
    sys.exit(main())
