"""Our command-line tools never hang for good: rclpy's node teardown is bounded (it has been
seen to wait forever), and a tool a test waits on too long is made to show its stacks."""

import subprocess
import sys

import pytest

from py_controllers.testing import run_tool

# a real node whose destroy_node waits forever, as rclpy's has been seen to
HUNG_TEARDOWN = """
import threading
import rclpy
from rclpy.node import Node
from py_controllers.controller_manager import client

client.TEARDOWN_BOUND_S = 1.0
rclpy.init()
node = Node('hung_teardown')
node.destroy_node = lambda: threading.Event().wait()
client.tear_down(node)
print('tear_down returned')
"""


def test_a_teardown_that_hangs_ends_the_tool_with_its_stacks():
    result = subprocess.run(
        [sys.executable, '-c', HUNG_TEARDOWN], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'tear_down returned' not in result.stdout
    assert 'Timeout (0:00:01)!' in result.stderr
    assert 'in tear_down' in result.stderr  # where it hung, for the report


def test_a_tool_still_running_fails_the_test_with_its_output_and_stacks():
    # no manager on this domain, and --controller-manager-timeout 0 waits for it forever
    with pytest.raises(AssertionError) as failed:
        run_tool('spawner', 'nobody', '--controller-manager-timeout', '0', timeout_s=5.0)
    report = str(failed.value)
    assert 'spawner still running after 5 s' in report
    assert "waiting for '/controller_manager/list_controllers'" in report  # its output
    assert 'in _wait' in report  # its stack: where it waited
