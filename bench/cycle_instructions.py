"""Instructions per control cycle of the demo robot, counted by valgrind's callgrind: a
figure that load on the host does not move, for A/B decisions on a shared machine.

    python -m bench.cycle_instructions [--cycles 200]      # runs itself under valgrind

prints the count on the pure Python hot path and on the variant built (py_controllers/compiled.py)
side by side.

The demo's read -> update -> write is stepped in this process (`SteppedManager`, 1 kHz
steps, trajectory executing, cmd_vel driving the base, every state topic subscribed), as
`bench.demo_load.warm_cycle_us` does; only the stepped cycles are counted (callgrind's
collection is switched on while the cycles run inside a ctypes call, `ffi_call`), on the
stepping thread.

It also counts one bare `mujoco.mj_step` of arm6 (the floor of issue #39's ratio target)
the same way and prints the cycle's ratio to it in instructions: a figure no host's speed
or load moves, beside the bench's ratio in time (which moves with how fast a host runs
interpreted code against MuJoCo's tight C, and with the caches a sleep leaves cold).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

TOGGLE = 'ffi_call'


def run_cycles(cycles: int) -> None:
    """Set the demo up, then step `cycles` cycles inside one ctypes call (what is counted)."""
    from geometry_msgs.msg import TwistStamped

    from bench.demo_load import stepped_demo
    from py_controllers.realtime_tools import realtime_publisher

    with stepped_demo(update_rate=None, trajectory_s=600.0, name='bench_instructions') as stepped:
        drive = stepped.manager.controllers['diff_drive_controller'].controller
        twist = TwistStamped()
        twist.twist.linear.x, twist.twist.angular.z = 0.2, 0.4
        stepped.send(
            '/diff_drive_controller/cmd_vel',
            TwistStamped,
            twist,
            lambda: stepped.step() or drive.reference_interfaces[0].value == 0.2,
        )
        stepped.step(200)  # warm: every path taken once
        realtime_publisher.drain()

        def counted() -> None:
            for _ in range(cycles):
                stepped.step()
                realtime_publisher.drain()  # every message filled and sent, as in the loop

        ctypes.CFUNCTYPE(None)(counted)()


def run_mj_steps(steps: int) -> None:
    """`steps` bare `mj_step`s of the arm6 model inside one ctypes call (after a warm-up)."""
    import mujoco

    from bench.mujoco_step import ARM6_XML

    model = mujoco.MjModel.from_xml_path(str(ARM6_XML))
    data = mujoco.MjData(model)
    for _ in range(MJ_WARM_UP):
        mujoco.mj_step(model, data)

    def counted() -> None:
        for _ in range(steps):
            mujoco.mj_step(model, data)

    ctypes.CFUNCTYPE(None)(counted)()


MJ_WARM_UP = 500
MJ_STEPS = 2000


def thread_totals(folder: Path) -> list[int]:
    """The instructions counted in each thread's callgrind file, largest first."""
    totals = []
    for path in folder.glob('callgrind.out*'):
        match = re.search(r'^totals:\s+(\d+)', path.read_text(errors='replace'), re.M)
        if match and int(match.group(1)):
            totals.append(int(match.group(1)))
    return sorted(totals, reverse=True)


ATTEMPTS = 3
"""Runs of the valgrind child before giving up: it has exited non-zero now and then (twice in
a dozen runs, cause unknown), and a later run counted normally."""


def count(cycles: int, env: dict[str, str] | None = None, *, what: str = '--inside') -> list[int]:
    """Instructions of `cycles` stepped cycles (with `what='--inside-mj'`, bare mj_steps)
    per thread (largest first: the stepping thread), from a child process under callgrind;
    raises RuntimeError with valgrind's last words when no attempt counted."""
    failures = []
    for attempt in range(1, ATTEMPTS + 1):
        with tempfile.TemporaryDirectory() as folder:
            done = subprocess.run(
                [
                    'valgrind',
                    '--tool=callgrind',
                    # the ROS wheels' bootstrap may start Python again with its library path:
                    # follow it, or nothing is counted
                    '--trace-children=yes',
                    '--collect-atstart=no',
                    f'--toggle-collect={TOGGLE}',
                    '--separate-threads=yes',
                    f'--callgrind-out-file={folder}/callgrind.out.%p',
                    sys.executable,
                    '-m',
                    'bench.cycle_instructions',
                    what,
                    '--cycles',
                    str(cycles),
                ],
                capture_output=True,
                text=True,
                env={**os.environ, **(env or {})},
            )
            totals = thread_totals(Path(folder))
            if done.returncode == 0 and totals:
                return totals
            why = f'exit {done.returncode}, {len(totals)} threads counted'
            print(f'  (callgrind run {attempt} of {ATTEMPTS} failed: {why})', file=sys.stderr)
            failures.append(f'{why}:\n{done.stderr[-2000:]}')
    raise RuntimeError('no callgrind run counted:\n' + '\n'.join(failures))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog='cycle_instructions', description=__doc__.splitlines()[0])
    p.add_argument('--cycles', type=int, default=200)
    p.add_argument('--inside', action='store_true', help=argparse.SUPPRESS)
    p.add_argument('--inside-mj', action='store_true', help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.inside:
        run_cycles(args.cycles)
        return 0
    if args.inside_mj:
        run_mj_steps(args.cycles)
        return 0
    from py_controllers import compiled

    floor = count(MJ_STEPS, what='--inside-mj')[0] / MJ_STEPS
    print(f'instructions per stepped demo cycle ({args.cycles} cycles, callgrind):')
    for label, pure in (('pure Python', '1'), (compiled.variant(), '0')):
        per_cycle = count(args.cycles, {compiled.PURE_ENV: pure})[0] / args.cycles
        print(f'  {per_cycle:11,.0f}  {label}: {per_cycle / floor:.1f}x the bare mj_step')
    print(f'  {floor:11,.0f}  one bare mj_step of arm6 (with its Python call; {MJ_STEPS} steps)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
