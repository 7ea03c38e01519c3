"""The main job in its quick mode: every step must succeed (exit status 0)."""

import subprocess
import sys


def test_demo_quick_mode_succeeds(tmp_path):
    result = subprocess.run(
        [sys.executable, '-m', 'py_controllers.demo', '--quick', '--output', str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert 'demo succeeded' in result.stdout
    for step in ('spawner', 'trajectory', 'square', 'gripper'):
        assert f'[ok] {step}' in result.stdout


def test_mujoco_demo_quick_mode_succeeds(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            '-m',
            'py_controllers.demo',
            '--mujoco',
            '--quick',
            '--output',
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert 'demo succeeded' in result.stdout
    for step in ('hold', 'takeover', 'trajectory', 'wrench'):
        assert f'[ok] {step}' in result.stdout


def test_admittance_demo_quick_mode_succeeds(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            '-m',
            'py_controllers.demo',
            '--admittance',
            '--quick',
            '--output',
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert 'demo succeeded' in result.stdout
    for step in ('hold', 'chain', 'trajectory', 'push', 'release', 'running'):
        assert f'[ok] {step}' in result.stdout
    assert not list(tmp_path.iterdir())  # --quick: no plots
