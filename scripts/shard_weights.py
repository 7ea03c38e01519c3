"""Write test/shard_weights.json, the seconds each test file took, from pytest's JUnit XML
report(s) of a whole run (`pytest test --junitxml=run.xml`) or from the runner's progress
files of one (`build-progress-kilted-*.txt`: one distro's shards, the first distro's for the
browser tier); with several, their files are merged. The runner splits a suite into shards
by these weights."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def file_seconds(report: Path) -> dict[str, float]:
    """Seconds per test file (setup, call and teardown of its tests) in one report."""
    seconds: dict[str, float] = defaultdict(float)
    for case in ET.parse(report).iter('testcase'):
        module = case.get('classname', '').split('.')
        # 'test.ros.test_x' or 'test.ros.test_x.TestClass': the file is the test_ part
        parts = [p for p in module if not p[:1].isupper()]
        seconds['/'.join(parts) + '.py'] += float(case.get('time', 0.0))
    return seconds


def progress_seconds(progress: Path) -> dict[str, float]:
    """Seconds per test file in one of the runner's progress files ('took <s> <test id>')."""
    seconds: dict[str, float] = defaultdict(float)
    for line in progress.read_text().splitlines():
        if line.startswith('took '):
            _, took, test = line.split(' ', 2)
            seconds[test.split('::')[0]] += float(took)
    return seconds


def main(reports: list[str]) -> int:
    if not reports:
        print('usage: python scripts/shard_weights.py REPORT.xml|PROGRESS.txt ...')
        return 2
    merged: dict[str, float] = {}
    for report in reports:
        read = progress_seconds if report.endswith('.txt') else file_seconds
        merged.update(read(Path(report)))
    out = ROOT / 'test' / 'shard_weights.json'
    out.write_text(json.dumps({f: round(s, 1) for f, s in sorted(merged.items())}, indent=1) + '\n')
    print(f'{out.relative_to(ROOT)}: {len(merged)} files, {sum(merged.values()):.0f} s in all')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
