"""Test-wide isolation: every pytest process gets its own ROS domain, localhost only, with
quicker participant announcements and no intra-process shortcut (test/fastdds_profile.xml).
A hang guard: a test still running after HANG_S prints every thread's stack and ends the
process, so a hang costs minutes and names itself instead of eating the CI's whole budget.
And, with PY_CONTROLLERS_TEST_PROGRESS naming a file, each test's start, end, passed call,
failure and duration go there, and a run with that file deselects what it lists as started
(as often as it is started, less the `retry` lines): the runner (scripts/test_distros.sh)
resumes a suite after the test the process ended in, or with it once more.
With PY_CONTROLLERS_TEST_SHARD=i/n, the process runs the i-th of n shards of the test files
given (test/sharding.py), the runner's way of running a suite as several processes."""

import collections
import faulthandler
import gc
import importlib.metadata
import os
import time

import pytest
import sharding  # test/ is on sys.path (this conftest.py's folder, pytest's prepend import)

# Set before any rclpy context exists; subprocesses started by tests inherit it.
os.environ.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 200))
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
os.environ.setdefault('RCUTILS_LOGGING_BUFFERED_STREAM', '1')
# Fast DDS announces a participant every 0.25 s, not 3 s, delivers messages within a process
# through its transports and looks no types up (the file says why). Fast DDS 2 (jazzy) reads
# only the old variable; with 3 (kilted) the old one logs a deprecation warning.
FASTDDS_PROFILE = os.path.join(os.path.dirname(__file__), 'fastdds_profile.xml')
try:
    importlib.metadata.version('ros-fastrtps')  # Fast DDS 2's wheel
    os.environ['FASTRTPS_DEFAULT_PROFILES_FILE'] = FASTDDS_PROFILE
except importlib.metadata.PackageNotFoundError:
    os.environ['FASTDDS_DEFAULT_PROFILES_FILE'] = FASTDDS_PROFILE

HANG_S = float(os.environ.get('PY_CONTROLLERS_TEST_HANG_S', '300'))
"""No test takes a minute on a loaded 2-core host (the slowest, the model search, ~40 s)."""
TEARDOWN_HANG_S = min(HANG_S, 120.0)
"""A teardown (a fixture's processes stopped, nodes destroyed) takes seconds: the one hang
seen in the whole suite is rclpy's node destruction in a teardown, so it costs less here."""


PROGRESS = os.environ.get('PY_CONTROLLERS_TEST_PROGRESS')
SHARD = os.environ.get('PY_CONTROLLERS_TEST_SHARD')

_stacks_fd: list[int] = []


def _note(event: str, nodeid: str) -> None:
    if PROGRESS:
        with open(PROGRESS, 'a') as progress:  # closed at once: it must survive an _exit
            progress.write(f'{event} {nodeid}\n')


def _cpu_s() -> float:
    """CPU seconds of this process and of its children waited for (a test's subprocesses)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def _deselect(config, items, drop) -> None:
    dropped = [item for item in items if drop(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if not drop(item)]


_shard_of: dict[str, int] = {}


def _shard(config, path: str) -> int | None:
    """The shard of a test file ('test/ros/test_x.py'), from every test file under the paths
    given (so a resumed shard runs the same files); None for a file outside them."""
    if not _shard_of:
        files = sharding.test_files(config.rootpath, config.args, config.invocation_params.dir)
        _shard_of.update(
            sharding.assign(files, sharding.parse_shard(SHARD)[1], sharding.load_weights())
        )
    return _shard_of.get(path)


def pytest_ignore_collect(collection_path, config):
    """With SHARD, the other shards' test files are not collected, nor imported."""
    if not SHARD or not collection_path.name.startswith('test_') or collection_path.is_dir():
        return None
    path = collection_path.relative_to(config.rootpath).as_posix()
    return True if _shard(config, path) not in (None, sharding.parse_shard(SHARD)[0]) else None


def pytest_collection_modifyitems(config, items):
    if SHARD:  # files named on the command line are collected whatever pytest_ignore_collect says
        i = sharding.parse_shard(SHARD)[0]
        _deselect(
            config, items, lambda item: _shard(config, item.nodeid.split('::')[0]) not in (None, i)
        )
    if not PROGRESS or not os.path.exists(PROGRESS):
        return
    # a test runs again only as often as the runner has written `retry` for it
    runs: collections.Counter[str] = collections.Counter()
    with open(PROGRESS) as progress:
        for line in progress:
            event, _, nodeid = line.rstrip('\n').partition(' ')
            if event == 'start':
                runs[nodeid] += 1
            elif event == 'retry':
                runs[nodeid] -= 1
    _deselect(config, items, lambda item: runs[item.nodeid] > 0)


def pytest_collection_finish(session):
    """Move what collection built (every module imported, every test item) out of the cycle
    collector's sight: it is alive for the whole session, yet each full collection walked it
    again (a quarter of a shard's CPU: 9.2 of 35.8 s, 1,904 collections). Later objects,
    the tests' nodes and managers among them, are collected as before."""
    gc.collect()
    gc.freeze()


def pytest_runtest_logreport(report):
    if report.failed:
        _note('failed', report.nodeid)
    elif report.when == 'call' and report.passed:
        _note('passed', report.nodeid)


def pytest_configure(config):
    # Capture is suspended here, so fd 2 is still the terminal: while a test runs it is not.
    # Under the runner the hang guard's stacks go to `<progress file>.stacks`, which it prints
    # and reads (a hang inside rclpy's node destruction gets its test run once more).
    if PROGRESS:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        _stacks_fd.append(os.open(f'{PROGRESS}.stacks', flags, 0o644))
    else:
        _stacks_fd.append(os.dup(2))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    # faulthandler's timer runs in C: it fires even when a hung call holds the GIL.
    _note('start', item.nodeid)
    began = time.monotonic()
    cpu_began = _cpu_s()
    faulthandler.dump_traceback_later(HANG_S, exit=True, file=_stacks_fd[0])
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        _note(f'took {time.monotonic() - began:.2f}', item.nodeid)  # the runner's slowest files
        _note(f'cpu {_cpu_s() - cpu_began:.2f}', item.nodeid)  # and its costliest
        _note('end', item.nodeid)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    faulthandler.dump_traceback_later(TEARDOWN_HANG_S, exit=True, file=_stacks_fd[0])
