"""The runner's split of a suite into processes (test/sharding.py): every file in exactly
one shard, whole, balanced by recorded seconds, the same split whatever a resumed run has
left."""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sharding

ROOT = Path(__file__).resolve().parents[2]

FILES = [f'test/ros/test_{name}.py' for name in 'abcdefgh']
WEIGHTS = dict(zip(FILES, [40.0, 35.0, 30.0, 10.0, 8.0, 5.0, 3.0, 1.0]))


def loads(shard_of, n, weights):
    load = [0.0] * n
    for f, s in shard_of.items():
        load[s - 1] += weights[f]
    return load


@pytest.mark.parametrize('n', [1, 2, 3, 4])
def test_every_file_goes_to_exactly_one_shard_and_the_shards_are_balanced(n):
    shard_of = sharding.assign(FILES * 3, n, WEIGHTS)  # a file once per test in it
    assert sorted(shard_of) == FILES
    assert set(shard_of.values()) <= set(range(1, n + 1))
    load = loads(shard_of, n, WEIGHTS)
    assert max(load) - min(load) <= max(WEIGHTS.values())  # greedy: within the heaviest file


def test_the_split_is_by_weight_not_by_count():
    shard_of = sharding.assign(FILES, 2, WEIGHTS)
    assert loads(shard_of, 2, WEIGHTS) == [66.0, 66.0]  # 40+10+8+5+3 / 35+30+1
    assert shard_of['test/ros/test_b.py'] == shard_of['test/ros/test_c.py'] == 2


def test_a_file_without_a_record_counts_as_the_mean_and_the_split_is_deterministic():
    new = 'test/ros/test_new.py'
    first = sharding.assign([*FILES, new], 2, WEIGHTS)
    assert first == sharding.assign([new, *reversed(FILES)], 2, WEIGHTS)
    assert first[new] in (1, 2)
    assert sharding.assign(FILES, 2, {}) == sharding.assign(FILES, 2, {})  # no record at all


@pytest.mark.parametrize('text', ['1', '0/2', '3/2', 'a/b', '1/2/3'])
def test_a_bad_shard_is_a_clear_error(text):
    with pytest.raises(ValueError, match='shard'):
        sharding.parse_shard(text)
    assert sharding.parse_shard('2/3') == (2, 3)


def test_the_files_are_the_test_files_under_the_paths_given(tmp_path):
    for name in ('test/ros/test_a.py', 'test/ros/helper.py', 'test/unit/test_b.py', 'other.py'):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text('')
    assert sharding.test_files(tmp_path, ['test'], tmp_path) == [
        'test/ros/test_a.py',
        'test/unit/test_b.py',
    ]
    # relative to where pytest ran; a node id counts as its file
    assert sharding.test_files(tmp_path, ['ros/test_a.py::test_x'], tmp_path / 'test') == [
        'test/ros/test_a.py'
    ]


def test_each_shard_process_imports_only_its_files_and_together_all(tmp_path):
    """conftest.py's hooks, in real pytest processes on a copy of test/ with four files
    that note their import: a shard never imports the other shards' files, and every file
    runs in exactly one shard, whether its folder or the file itself is named."""
    (tmp_path / 'pytest.ini').write_text('[pytest]\n')
    (tmp_path / 'test').mkdir()
    for helper in ('conftest.py', 'sharding.py'):
        shutil.copy(ROOT / 'test' / helper, tmp_path / 'test' / helper)
    imported = tmp_path / 'imported.txt'
    for name in 'abcd':
        (tmp_path / 'test' / f'test_{name}.py').write_text(
            f"open({str(imported)!r}, 'a').write('{name}\\n')\n\ndef test_{name}():\n    pass\n"
        )

    # not the runner's progress file or shard: this run's own
    ours = {k: v for k, v in os.environ.items() if not k.startswith('PY_CONTROLLERS_TEST_')}

    def run(shard: str, *args: str) -> tuple[set[str], set[str]]:
        imported.write_text('')
        result = subprocess.run(
            [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', *args],
            cwd=tmp_path,
            env={**ours, 'PY_CONTROLLERS_TEST_SHARD': shard},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode in (0, 5), result.stdout + result.stderr
        ran = {line.split('::')[1] for line in result.stdout.splitlines() if 'PASSED' in line}
        return ran, set(imported.read_text().split())

    for args in (('-rA', 'test'), ('-rA', *(f'test/test_{n}.py' for n in 'abcd'))):
        (ran_1, imported_1), (ran_2, imported_2) = run('1/2', *args), run('2/2', *args)
        assert ran_1.isdisjoint(ran_2) and ran_1 and ran_2, (ran_1, ran_2)
        assert ran_1 | ran_2 == {f'test_{n}' for n in 'abcd'}
        if args[1] == 'test':  # a folder: the other shard's files are not even imported
            assert {f'test_{n}' for n in imported_1} == ran_1
            assert {f'test_{n}' for n in imported_2} == ran_2


def test_weights_are_read_from_the_runners_progress_files(tmp_path):
    script = ROOT / 'scripts' / 'shard_weights.py'
    spec = importlib.util.spec_from_file_location('shard_weights', script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    progress = tmp_path / 'build-progress-kilted-1.txt'
    progress.write_text(
        'start test/ros/test_a.py::test_x\ntook 2.50 test/ros/test_a.py::test_x\n'
        'took 1.25 test/ros/test_a.py::test_y[p 1]\ntook 4.00 test/unit/test_b.py::test_z\n'
    )
    assert module.progress_seconds(progress) == {
        'test/ros/test_a.py': 3.75,
        'test/unit/test_b.py': 4.0,
    }
