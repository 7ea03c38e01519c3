"""What a sleep costs the next cycle on this host: the stepped demo cycle and a bare
`mj_step` of arm6, each timed right after a pause of 0, 1, 3 and 10 ms (a sleep, as the
loop sleeps between its cycles).

    python -m bench.cold_start [--cycles 300]

On a shared VM what a cycle left in the caches decays with time, most likely as other work on
the host evicts it, and the next cycle fetches it again: the same code then runs several times
slower (a busy spin in place of the sleep does not help). The
medians of both columns move with it; the code's share is their ratio, and a change that
shrinks what a cycle touches shows in the rows after a pause first.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import mujoco

from bench.common import median_after_gaps, table
from bench.mujoco_step import ARM6_XML

GAPS_S = (0.0, 0.001, 0.003, 0.01)


def mj_step_after_gaps(gaps_s: Sequence[float], count: int) -> list[float]:
    """`median_after_gaps` of one bare `mj_step` of arm6 (after a warm-up)."""
    model = mujoco.MjModel.from_xml_path(str(ARM6_XML))
    data = mujoco.MjData(model)
    for _ in range(500):
        mujoco.mj_step(model, data)
    return median_after_gaps(lambda: mujoco.mj_step(model, data), gaps_s, count)


def demo_cycle_after_gaps(gaps_s: Sequence[float], count: int) -> list[float]:
    """`median_after_gaps` of the stepped demo cycle (`stepped_demo`), every message filled
    and sent between cycles, as in the loop."""
    from bench.demo_load import stepped_demo
    from py_controllers.realtime_tools import realtime_publisher

    with stepped_demo() as stepped:
        stepped.step(200)  # warm: every path taken once
        realtime_publisher.drain()
        return median_after_gaps(stepped.step, gaps_s, count, realtime_publisher.drain)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog='cold_start', description=__doc__.splitlines()[0])
    p.add_argument('--cycles', type=int, default=300, help='cycles timed after each pause')
    args = p.parse_args(argv)
    from py_controllers import compiled

    cycle = demo_cycle_after_gaps(GAPS_S, args.cycles)
    step = mj_step_after_gaps(GAPS_S, args.cycles)
    rows = [
        [f'{gap * 1e3:g}', c, s, f'{c / s:.0f}x', f'{c / cycle[0]:.1f}x']
        for gap, c, s in zip(GAPS_S, cycle, step)
    ]
    print(f'medians over {args.cycles} calls a pause, us ({compiled.variant()}):\n')
    headers = ['pause ms', 'demo cycle', 'bare mj_step', 'ratio', 'cycle vs no pause']
    print(table(headers, rows))
    return 0


if __name__ == '__main__':
    sys.exit(main())
