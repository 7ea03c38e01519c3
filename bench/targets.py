"""The bench's targets (issue #39) beyond each table's own: the figures the tables leave for
the ratios judged at the end of a run, and the guard that keeps one failing table from
ending the run."""

from __future__ import annotations

import traceback
from collections.abc import Callable

NOT_MEASURED = None
"""A target's verdict when its table could not measure."""

FIGURES: dict[str, float] = {}
"""Figures the tables leave for the ratios judged at the end (all from this run)."""


def ratio_targets(targets: list[tuple[str, str, bool | None]]) -> list[str]:
    """The targets stated as ratios within this run (issue #39): what a slower or faster host
    scales alike. A figure whose table did not run (or could not measure) reads so. Returns
    notes for under the table (the cycle's ratio like for like)."""
    notes = []
    cycle, step = FIGURES.get('cycle_1k_us'), FIGURES.get('mj_step_us')
    if cycle is not None and step is not None:
        ratio = cycle / step
        targets.append(
            (
                'demo cycle at 1 kHz <= 20x the bare mj_step of arm6 (its median, same run)',
                f'{ratio:.0f}x ({cycle:.0f} / {step:.1f} us)',
                ratio <= 20.0,
            )
        )
    else:
        targets.append(('demo cycle <= 20x the bare mj_step of arm6', 'not measured', None))
    paced = FIGURES.get('mj_step_paced_us')
    if cycle is not None and paced is not None:
        notes.append(
            f'Like for like, against the mj_step paced as the loop paces its cycles (both start'
            f' on the caches a sleep leaves): the demo cycle is {cycle / paced:.0f}x'
            f' ({cycle:.0f} / {paced:.1f} us); the target above takes the step back to back.'
        )
    if 'p99_ratio' in FIGURES:
        ratio = FIGURES['p99_ratio']
        targets.append(
            (
                'wake-up p99 <= 2x the nearly empty manager (medians)',
                f'{ratio:.1f}x',
                ratio <= 2.0,
            )
        )
    if 'minimal_1k_cpu' in FIGURES:
        cpu = FIGURES['minimal_1k_cpu']
        targets.append(
            ('minimal robot at 1 kHz < 10 % of a core (median)', f'{cpu:.1f} %', cpu < 10.0)
        )
    return notes


LOOP_TARGETS = ('1 kHz rate, lateness and overruns',)
COST_TARGETS = ('demo cycle at 1 kHz',)
LATENCY_TARGETS = ('latency p50 < period + 0.5 ms',)
SCALING_TARGETS = ('100-joint quintic JTC < 300 us', 'JTC cost no worse than linear in joints')
CPU_TARGETS = ('idle at 100 Hz < 5 % of a core',)
STARTUP_TARGETS = ('start-up to active controllers < 2 s',)
MUJOCO_TARGETS = ('MuJoCo arm6 read + write < 10 % of a 1 kHz period',)
SERVO_TARGETS = ('6 STS3215 at 1 Mbaud hold a 100 Hz loop',)


def guarded(
    title: str,
    measure_table: Callable[[], None],
    targets: list[tuple[str, str, bool | None]],
    names: tuple[str, ...],
) -> bool:
    """Run one table; if it raises, print why under its title, mark the targets it would
    have judged (`names`) "not measured" unless it judged them already, and go on."""
    judged = len(targets)
    try:
        measure_table()
        return True
    except Exception as exc:  # any failure of one table: say it, keep the run going
        print(f'\n## {title}: could not measure\n')
        print(f'{type(exc).__name__}: {str(exc).strip()[-2000:]}')
        print('\n```\n' + ''.join(traceback.format_exc(limit=4)).strip()[-3000:] + '\n```')
        del targets[judged:]
        targets.extend((name, 'not measured', NOT_MEASURED) for name in names)
        return False
