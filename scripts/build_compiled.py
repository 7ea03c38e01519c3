"""Build the hot path's modules (py_controllers.compiled.MODULES) with mypyc, next to their
sources, and record each source's hash (py_controllers/compiled.json): the package imports
them only while every source is unchanged. Run by scripts/setup.sh with the venv's Python;
`--clean` removes what a build left. Exit status 0 also when no compiler is there (the pure
Python then runs, and this says so)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ['PY_CONTROLLERS_PURE'] = '1'  # nothing compiled is imported while building

from py_controllers import compiled  # noqa: E402


def clean() -> None:
    """Remove every compiled module beside its source (also of modules no longer listed)."""
    for built in (ROOT / 'py_controllers').rglob('*.cpython-*.so'):
        if built.with_name(built.name.split('.')[0] + '.py').exists():
            built.unlink()
    for lib in (ROOT / 'py_controllers').glob('compiled__mypyc*.so'):
        lib.unlink()
    compiled.STAMP.unlink(missing_ok=True)


def up_to_date() -> bool:
    """Every module built from its current source."""
    try:
        built = json.loads(compiled.STAMP.read_text())
    except (OSError, ValueError):
        return False
    return set(built) == set(compiled.MODULES) and all(
        built[m] == compiled.digest(compiled.source_of(m))
        and any(compiled.source_of(m).parent.glob(compiled.source_of(m).stem + '.cpython-*.so'))
        for m in compiled.MODULES
    )


def main() -> int:
    # both distros' setups share the checkout (and run side by side in make test): one
    # build at a time, and none while the modules are up to date
    lock_path = ROOT / 'build' / 'mypyc.lock'
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open('w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if '--clean' in sys.argv:
            clean()
            return 0
        if up_to_date():
            print(f'[compiled] {len(compiled.MODULES)} modules up to date')
            return 0
        clean()
        return build()


def build() -> int:
    if shutil.which(os.environ.get('CC', 'cc')) is None and shutil.which('gcc') is None:
        print('[compiled] no C compiler: the pure Python hot path runs')
        return 0
    build_temp = ROOT / 'build' / f'mypyc-py{sys.version_info[0]}{sys.version_info[1]}'
    sources = [str(compiled.source_of(m).relative_to(ROOT)) for m in compiled.MODULES]
    code = (
        'from setuptools import setup\n'
        'from mypyc.build import mypycify\n'
        f'setup(name="py_controllers_compiled", ext_modules=mypycify({sources!r}, '
        'group_name="py_controllers.compiled", opt_level="3"))\n'
    )
    result = subprocess.run(
        [sys.executable, '-c', code, 'build_ext', '--inplace', '--build-temp', str(build_temp)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        clean()
        log = build_temp / 'build.log'
        build_temp.mkdir(parents=True, exist_ok=True)
        log.write_text(result.stdout + result.stderr)
        print(f'[compiled] mypyc build failed (see {log}): the pure Python hot path runs')
        return 0
    stamp = {m: compiled.digest(compiled.source_of(m)) for m in compiled.MODULES}
    compiled.STAMP.write_text(json.dumps(stamp, indent=1) + '\n')
    print(f'[compiled] {len(compiled.MODULES)} modules built with mypyc')
    return 0


if __name__ == '__main__':
    sys.exit(main())
