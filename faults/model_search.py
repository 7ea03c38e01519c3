"""The long model-based search of `make faults`: faults/manager_model.py's state machine with
a random seed and many more examples than `make test`'s bounded run. One row: the steps run
(stepped cycles after generated operations and faults), the invariants broken (0 is the
contract), and the seed that reproduces the search."""

from __future__ import annotations

import random
import sys
import time
from collections import Counter

from hypothesis import HealthCheck, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.stateful import run_state_machine_as_test

from faults import manager_model
from faults.common import Row

STEPS_PER_EXAMPLE = 100


def run(steps: int, rows: list[Row], *, seed: int | None = None) -> dict[str, int]:
    """Search until at least `steps` cycles ran; one row in `rows`; the figures."""
    seed = random.randrange(2**32) if seed is None else seed
    figures: Counter[str] = Counter()
    broken: list[str] = []
    start = time.monotonic()

    class Counted(manager_model.ManagerModel):
        def step(self, cycles: int = 1) -> None:
            super().step(cycles)
            figures['steps'] += cycles
            figures['most running'] = max(figures['most running'], len(self.cm.active))

        def teardown(self) -> None:
            figures['examples'] += 1
            figures['held at once'] = max(
                figures['held at once'], len(self.cm.rm.command_guard.held())
            )
            super().teardown()

    examples = max(1, steps // (STEPS_PER_EXAMPLE // 2))  # a run averages about half its cap
    search = settings(
        max_examples=examples,
        stateful_step_count=STEPS_PER_EXAMPLE,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
    )
    rng = random.Random(seed)
    try:
        while figures['steps'] < steps:  # one Hypothesis run at a time, each with its seed
            hypothesis_seed(rng.randrange(2**32))(Counted)
            run_state_machine_as_test(Counted, settings=search)
    except Exception as exc:  # a counterexample: Hypothesis prints the shrunk steps
        broken = [line for line in str(exc).splitlines() if ': ' in line][:5]
        print(exc, file=sys.stderr)
    row = Row('manager model (faults/manager_model.py)', 'generated operations and faults')
    row.sent = figures['steps']
    row.measured = False
    row.note(
        f'{figures["examples"]} examples, {figures["steps"]} steps, seed {seed}, '
        f'{time.monotonic() - start:.0f} s; up to {figures["most running"]} controllers '
        f'running and {figures["held at once"]} interfaces held at once'
    )
    if broken:
        row.fail(f'{len(broken)} invariants broken: ' + '; '.join(broken))
    else:
        row.note('0 invariants broken')
    rows.append(row)
    return {**figures, 'broken': len(broken), 'seed': seed}
