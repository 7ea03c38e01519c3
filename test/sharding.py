"""Which pytest process of a suite runs which test file: the runner (scripts/test_distros.sh)
starts a suite as several processes side by side, each on a ROS domain of its own, because
the suite mostly waits (for processes, discovery, messages) rather than computes.

Whole files go to one shard, so module fixtures start once; the heaviest files are placed
first, each on the shard with the least time so far, from the seconds each file took in a
recorded run (test/shard_weights.json, `scripts/shard_weights.py` writes it). A file with
no record counts as the mean. The split depends only on the test files under the paths
given, not on what a resumed run has left, so a resumed shard runs the same files; a
process never imports the other shards' files (collecting them all, assertion rewriting
included, took about 10 s of a core per process)."""

from __future__ import annotations

import json
from pathlib import Path

WEIGHTS = Path(__file__).with_name('shard_weights.json')


def parse_shard(text: str) -> tuple[int, int]:
    """'i/n' -> (i, n), 1 <= i <= n; a clear error otherwise."""
    try:
        i, n = (int(part) for part in text.split('/'))
    except ValueError:
        raise ValueError(f"a shard is 'i/n' (e.g. 1/2), got {text!r}") from None
    if not 1 <= i <= n:
        raise ValueError(f'shard {i}/{n}: i must be between 1 and n')
    return i, n


def test_files(root: Path, args: list[str], cwd: Path) -> list[str]:
    """The test_*.py files under each of `args` (files or folders, relative to `cwd`; a
    node id counts as its file), as 'test/ros/test_x.py' paths relative to `root`."""
    files: set[Path] = set()
    for arg in args:
        path = (cwd / arg.split('::')[0]).resolve()
        files.update(path.rglob('test_*.py') if path.is_dir() else [path])
    root = root.resolve()
    return sorted(f.relative_to(root).as_posix() for f in files if f.name.startswith('test_'))


def load_weights(path: Path = WEIGHTS) -> dict[str, float]:
    """Seconds per test file of a recorded run ({} when there is no record)."""
    return json.loads(path.read_text()) if path.exists() else {}


def assign(files: list[str], n: int, weights: dict[str, float]) -> dict[str, int]:
    """Each file's shard (1..n): heaviest first, to the shard with the least time so far."""
    known = [weights[f] for f in files if f in weights]
    mean = sum(known) / len(known) if known else 1.0
    load = [0.0] * n
    shard_of: dict[str, int] = {}
    for f in sorted(set(files), key=lambda f: (-weights.get(f, mean), f)):
        lightest = min(range(n), key=lambda s: (load[s], s))
        load[lightest] += weights.get(f, mean)
        shard_of[f] = lightest + 1
    return shard_of
