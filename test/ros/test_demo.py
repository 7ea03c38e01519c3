"""The main job in its quick mode: every step must succeed (exit status 0). The demo robot's
own quick run is the one `--dashboard` makes, below."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from py_controllers.dashboard.browser import free_port


@pytest.mark.parametrize(
    ('flags', 'steps'),
    [
        (['--mujoco'], ('hold', 'takeover', 'trajectory', 'wrench')),
        (['--admittance'], ('hold', 'chain', 'trajectory', 'push', 'release', 'running')),
    ],
    ids=['mujoco', 'admittance'],
)
def test_demo_quick_mode_succeeds(tmp_path, flags, steps):
    result = subprocess.run(
        [sys.executable, '-m', 'py_controllers.demo', *flags, '--quick', '--output', str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert 'demo succeeded' in result.stdout
    for step in steps:
        assert f'[ok] {step}' in result.stdout
    assert not list(tmp_path.iterdir())  # --quick: no plots


# the summary line of a mobile base demo (py_controllers/demo/mobile_bases.py)
BASE_NUMBERS = re.compile(
    r'\[ok\] (?P<step>[\w-]+): end (?P<end>\d+) mm / (?P<heading>[+-][\d.]+) deg from the '
    r'commanded end, closure (?P<closure>\d+) mm, worst deviation (?P<deviation>\d+) mm'
)


def children_of(pid: int) -> list[int]:
    """The processes `pid` started (Linux /proc)."""
    found = []
    for task in os.listdir(f'/proc/{pid}/task'):
        with open(f'/proc/{pid}/task/{task}/children') as children:
            found += [int(c) for c in children.read().split()]
    return found


def stop_for(pids: list[int], seconds: float) -> None:
    """SIGSTOP `pids`, then SIGCONT them `seconds` later."""
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    time.sleep(seconds)
    for pid in pids:
        os.kill(pid, signal.SIGCONT)


@pytest.mark.parametrize(
    ('flag', 'step', 'end_mm', 'heading_deg', 'deviation_mm'),
    [('--car', 'figure-eight', 50, 9.7, 100), ('--mecanum', 'square', 50, 0.3, 60)],
    ids=['car figure-eight', 'mecanum square'],
)
def test_base_demo_odometry_follows_the_commanded_path(
    tmp_path, flag, step, end_mm, heading_deg, deviation_mm
):
    """--car / --mecanum: the odometry ends where the legs, held as long as the controller
    held them, end; the path stays near that commanded one; odom -> base_link is on /tf (the
    spawner's remap of ~/tf_odometry). Late references (a busy host) move the path and the
    loop's closure, so the closure is not judged (q12, q14: 145 mm / 11 deg and 23 mm /
    20 deg against the references as sent). At the demo's own speeds: the car's steering lag
    costs 1.8 deg at 0.5 m/s; a host stalling the loop while the steering swings costs more
    (q19: 7.7 deg, 61 mm), hence the car's 9.7 deg and 100 mm. A 2 s stop of the manager
    process mid-leg costs nothing: the simulation catches that time up (q16 lost 0.5 s of
    a circle to a stall of the host: 241 mm / 21.5 deg). The commanded path rests where the
    controller's states show its reference timed out (q21: a path that held each leg from
    take-up to take-up ran 100 deg ahead of a base that had rested), and takes the
    odometry's motion where the demo itself stalled and lost states (paths.applied_path;
    a 3 s SIGSTOP of the demo passed 6 of 6 here under two busy loops, and failed without
    it, but is not part of the test: Fast DDS's shared memory transport may give up on a
    stopped process's port, and that process then hears nothing more)."""
    demo = subprocess.Popen(
        [sys.executable, '-m', 'py_controllers.demo', flag, '--no-plots', '--output', tmp_path],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines = []
        for line in demo.stdout:
            lines.append(line)
            if line.startswith('== driving'):
                # mid-leg, the manager stops for 2 s (a loaded host does that to a process);
                # the simulated base keeps following its last commands meanwhile
                threading.Timer(3.0, stop_for, (children_of(demo.pid), 2.0)).start()
        out = ''.join(lines)
        assert demo.wait(300) == 0, out[-4000:]  # a guard: about 30 s on a quiet host
    finally:
        if demo.poll() is None:
            demo.kill()
    numbers = BASE_NUMBERS.search(out)
    assert numbers and numbers['step'] == step, out[-4000:]
    # the demo's own account (legs, take-ups, stalls) goes with a miss
    assert int(numbers['end']) <= end_mm, out[-4000:]
    assert abs(float(numbers['heading'])) <= heading_deg, out[-4000:]
    assert int(numbers['deviation']) <= deviation_mm, out[-4000:]
    assert '[ok] tf' in out
    if flag == '--mecanum':
        assert 'largest |yaw| while driving: 0.000 deg' in out  # no turning at all
    assert not list(tmp_path.iterdir())


def test_demo_with_dashboard_succeeds_and_keeps_the_robot_up_until_ctrl_c(tmp_path):
    """`--quick --dashboard`: every step succeeds, then the demo serves the dashboard on the
    printed URL and keeps the robot up; Ctrl-C (SIGINT to the process group) ends all with
    status 0."""
    demo = subprocess.Popen(
        [
            sys.executable,
            '-m',
            'py_controllers.demo',
            '--quick',
            '--output',
            str(tmp_path),
            '--dashboard',
            str(free_port()),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        lines = []
        for line in demo.stdout:
            lines.append(line)
            if 'Ctrl-C ends' in line:
                break
        url = re.search(r'(http://127\.0\.0\.1:\d+/\?token=[\w-]+)', lines[-1])
        assert url, ''.join(lines[-40:])
        steps = ''.join(lines)
        for step in ('spawner', 'trajectory', 'square', 'gripper'):
            assert f'[ok] {step}' in steps, steps[-4000:]
        with urllib.request.urlopen(url.group(1), timeout=30) as page:
            assert page.status == 200
            assert 'py_controllers' in page.read().decode()
        os.killpg(demo.pid, signal.SIGINT)
        rest = demo.stdout.read()
        assert demo.wait(60) == 0, ''.join(lines[-40:]) + rest
        assert 'demo succeeded' in rest
        assert not list(tmp_path.iterdir())  # --quick: no plots
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
