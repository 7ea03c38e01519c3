"""Which hot path runs (py_controllers/compiled.py): PY_CONTROLLERS_PURE=1 imports every
listed module from its `.py`; a build older than its sources is never used; without a build
the pure Python runs and says why."""

import json
import subprocess
import sys

from py_controllers import compiled

PROBE = (
    'import importlib, json\n'
    'from py_controllers import compiled\n'
    'files = {m: importlib.import_module(m).__file__ for m in compiled.MODULES}\n'
    'print(json.dumps([compiled.variant(), files]))\n'
)


def probe(**env: str) -> tuple[str, dict[str, str]]:
    """(variant, module -> file) in a fresh interpreter with `env` added."""
    import os

    out = subprocess.run(
        [sys.executable, '-c', PROBE],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    variant, files = json.loads(out)
    return variant, files


def test_pure_is_asked_for_and_every_module_comes_from_its_source():
    variant, files = probe(PY_CONTROLLERS_PURE='1')
    assert variant == 'pure Python (PY_CONTROLLERS_PURE is set)'
    assert files == {m: str(compiled.source_of(m)) for m in compiled.MODULES}


def test_the_compiled_modules_run_only_when_built_from_these_sources():
    variant, files = probe(PY_CONTROLLERS_PURE='0')
    built = compiled.STAMP.exists() and json.loads(compiled.STAMP.read_text())
    fresh = bool(built) and all(
        built.get(m) == compiled.digest(compiled.source_of(m)) for m in compiled.MODULES
    )
    if variant.startswith('compiled'):
        assert fresh
        assert all(f.endswith('.so') for f in files.values()), files
    else:  # no build, or a stale one: every module from its source, and the reason given
        assert variant.startswith('pure Python (')
        assert all(f.endswith('.py') for f in files.values()), files


def test_a_source_edited_after_the_build_turns_the_compiled_modules_off(tmp_path, monkeypatch):
    # the stamp of a build whose pid.py differed from today's
    stamp = tmp_path / 'compiled.json'
    digests = {m: compiled.digest(compiled.source_of(m)) for m in compiled.MODULES}
    digests['py_controllers.control_toolbox.pid'] = '0' * 64
    stamp.write_text(json.dumps(digests))
    monkeypatch.setattr(compiled, 'STAMP', stamp)
    monkeypatch.setattr(compiled, '_extension_of', lambda module: tmp_path / 'x.so')
    monkeypatch.delenv(compiled.PURE_ENV, raising=False)
    assert compiled._why_pure() == (
        'sources changed since the build: py_controllers.control_toolbox.pid (make setup rebuilds)'
    )
    # the stamp of a build from today's sources
    stamp.write_text(
        json.dumps({m: compiled.digest(compiled.source_of(m)) for m in compiled.MODULES})
    )
    assert compiled._why_pure() is None
