"""Test-wide isolation: every pytest process gets its own ROS domain, localhost only. And a
hang guard: a test still running after HANG_S prints every thread's stack and ends the run,
so a hang costs minutes and names itself instead of eating the CI's whole budget."""

import faulthandler
import os

import pytest

# Set before any rclpy context exists; subprocesses started by tests inherit it.
os.environ.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 200))
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
os.environ.setdefault('RCUTILS_LOGGING_BUFFERED_STREAM', '1')

HANG_S = 300.0
"""No test takes a minute on a loaded 2-core host (the slowest, the model search, ~40 s)."""


_terminal_fd: list[int] = []


def pytest_configure(config):
    # Capture is suspended here, so fd 2 is still the terminal: while a test runs it is not.
    _terminal_fd.append(os.dup(2))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    # faulthandler's timer runs in C: it fires even when a hung call holds the GIL.
    faulthandler.dump_traceback_later(HANG_S, exit=True, file=_terminal_fd[0])
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
