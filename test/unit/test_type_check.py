"""The type check of `make lint` runs with the suite too: mypy on the ROS-free packages
listed in pyproject.toml ([tool.mypy] files), which must stay ROS-free."""

import subprocess
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
FILES = tomllib.loads((ROOT / 'pyproject.toml').read_text())['tool']['mypy']['files']


def _modules() -> list[str]:
    paths: list[Path] = []
    for entry in FILES:
        path = ROOT / entry
        paths += sorted(path.rglob('*.py')) if path.is_dir() else [path]
    names = ['.'.join(p.relative_to(ROOT).with_suffix('').parts) for p in paths]
    return [n.removesuffix('.__init__') for n in names]


def test_the_checked_files_exist():
    missing = [f for f in FILES if not (ROOT / f).exists()]
    assert not missing


def test_the_checked_modules_never_import_rclpy():
    code = (
        'import importlib, sys\n'
        f'for name in {_modules()!r}:\n'
        '    importlib.import_module(name)\n'
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rclpy', 'rcl_interfaces')))\n"
    )
    result = subprocess.run(
        [sys.executable, '-c', code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '[]'


def test_mypy_finds_no_type_errors(tmp_path):
    result = subprocess.run(
        [sys.executable, '-m', 'mypy', '--cache-dir', str(tmp_path / 'cache')],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
