"""The bench and the fault suite are run by hand, not by the tests: every module of theirs
(their `__main__` guarded) must at least import against the current package (a renamed
function once broke `make bench` with the suite green)."""

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(
    f'{folder}.{path.stem}'
    for folder in ('bench', 'faults')
    for path in (ROOT / folder).glob('*.py')
)


@pytest.mark.parametrize('name', MODULES)
def test_module_imports(name):
    importlib.import_module(name)
