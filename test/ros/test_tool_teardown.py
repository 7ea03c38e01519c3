"""Our command-line tools never hang for good: rclpy's node teardown is bounded (it has been
seen to wait forever), and a tool a test waits on too long is made to show its stacks."""

import subprocess
import sys

import pytest

from py_controllers.testing import run_tool

# a real node whose destroy_node waits forever, as rclpy's has been seen to: HANG is the
# waiting call, with the GIL released (as a blocking wait) or held (a C call that never
# returns, here a regular expression's exponential backtracking)
HUNG_TEARDOWN = """
import re, sys, threading
import rclpy
from rclpy.node import Node
from py_controllers.controller_manager import client

client.TEARDOWN_BOUND_S = 1.0
rclpy.init()
node = Node('hung_teardown')
node.destroy_node = lambda: HANG
client.tear_down(node, 3)
print('tear_down returned')
"""
RELEASED = 'threading.Event().wait()'
HELD = "re.match(r'(a+)+$', 'a' * 64 + 'b')"


def run_hung(hang: str) -> subprocess.CompletedProcess:
    program = HUNG_TEARDOWN.replace('HANG', hang)
    return subprocess.run(
        [sys.executable, '-c', program], capture_output=True, text=True, timeout=60
    )


def test_a_teardown_that_hangs_ends_the_tool_with_its_status_and_stacks():
    result = run_hung(RELEASED)
    assert result.returncode == 3, result.stdout + result.stderr  # the work's status
    assert 'tear_down returned' not in result.stdout
    assert 'within 1 s; the work is done: exiting with status 3' in result.stderr
    assert 'in tear_down' in result.stderr  # where it hung, for the report


def test_a_teardown_that_hangs_holding_the_gil_still_ends_the_tool():
    result = run_hung(HELD)
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'tear_down returned' not in result.stdout
    assert 'Timeout (0:00:02)!' in result.stderr  # faulthandler's C timer, twice the bound
    assert 'in tear_down' in result.stderr


def test_a_tool_still_running_fails_the_test_with_its_output_and_stacks():
    # no manager on this domain, and --controller-manager-timeout 0 waits for it forever
    with pytest.raises(AssertionError) as failed:
        run_tool('spawner', 'nobody', '--controller-manager-timeout', '0', timeout_s=5.0)
    report = str(failed.value)
    assert 'spawner still running after 5 s' in report
    assert "waiting for '/controller_manager/list_controllers'" in report  # its output
    assert 'in _wait' in report  # its stack: where it waited
