"""Our command-line tools never hang for good: rclpy's node teardown is bounded (it has been
seen to wait forever), and a tool a test waits on too long is made to show its stacks. A
teardown that crashes does not change the tool's exit status (tool_process)."""

import os
import select
import signal
import subprocess
import sys

import pytest

from py_controllers.testing import BIN, run_tool

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


# a tool whose work is done with status 3, after which rclpy's teardown crashes (as Fast DDS
# has been seen to, kilted: SIGSEGV in a middleware thread, the spawner's controllers active)
CRASHED = """
import ctypes, sys
from py_controllers.controller_manager.tool_process import run_in_child

def work():
    import rclpy  # after the fork, as the tools import it (controller_manager/tools.py)
    from rclpy.node import Node
    from py_controllers.controller_manager import client

    rclpy.init()
    node = Node('crashed_teardown')
    CRASH_BEFORE
    node.destroy_node = lambda: ctypes.string_at(0)
    client.tear_down(node, 3)
    return 3

sys.exit(run_in_child(work))
"""


def run_crashed(crash_before: str = 'pass') -> subprocess.CompletedProcess:
    program = CRASHED.replace('CRASH_BEFORE', crash_before)
    return subprocess.run(
        [sys.executable, '-c', program], capture_output=True, text=True, timeout=60
    )


def test_a_teardown_that_crashes_ends_the_tool_with_its_status():
    result = run_crashed()
    assert result.returncode == 3, result.stdout + result.stderr
    assert "rclpy's teardown ended in SIGSEGV after the work was done; exiting with the " in (
        result.stderr
    )


def test_a_tool_that_crashes_before_its_work_is_done_ends_as_the_crash():
    result = run_crashed(crash_before='ctypes.string_at(0)')
    assert result.returncode == -signal.SIGSEGV, result.stdout + result.stderr
    assert 'after the work was done' not in result.stderr


# every console script of tools.py, with a command line that keeps it running here (no
# manager on this domain: the tools wait for one for ever) and its first line once it runs
PROGRAMS = {
    'spawner': (['nobody', '--controller-manager-timeout', '0'], 'waiting for'),
    'unspawner': (['nobody'], 'waiting for'),
    'hardware_spawner': (['nobody', '--activate'], 'waiting for'),
    'py-controllers': (['--timeout', '600', 'list'], 'waiting for'),
    'publisher_forward_position_controller': (
        ['--ros-args', '-p', 'goal_names:=[pos1]', '-p', 'pos1:=[0.0]'],
        'Publishing 1 goals',
    ),
    'publisher_joint_trajectory_controller': (
        [
            *('--ros-args', '-p', 'controller_name:=jtc', '-p', 'joints:=[j1]'),
            *('-p', 'goal_names:=[pos1]', '-p', 'pos1.positions:=[0.0]'),
        ],
        'Goal "pos1" has definition',
    ),
}


@pytest.mark.parametrize('program', PROGRAMS)
def test_a_program_runs_in_a_child_that_stops_when_the_parent_is_killed(program):
    args, first_line = PROGRAMS[program]
    tool = subprocess.Popen(
        [str(BIN / program), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        line = tool.stdout.readline()
        assert first_line in line, line  # the child is up and running
        with open(f'/proc/{tool.pid}/task/{tool.pid}/children') as children:
            (child,) = (int(pid) for pid in children.read().split())
        # a process group of its own: a Ctrl-C at the terminal reaches it once, through the
        # parent (twice, a second KeyboardInterrupt broke py-controllers' clean-up)
        assert os.getpgid(child) == child != os.getpgid(tool.pid)
        ended = os.pidfd_open(child)  # readable once the child has ended
        tool.kill()
        tool.wait(10)
        # a failure guard only: it stops within about 0.1 s
        assert select.select([ended], [], [], 30.0)[0], 'the child still runs'
        os.close(ended)
    finally:
        tool.kill()
        tool.wait(10)
        tool.stdout.close()


def test_a_process_with_threads_is_not_forked():
    # rclpy's libraries start threads when loaded (LTTng's listeners): a child forked then
    # crashed at its exit, in LTTng's exit handler
    program = (
        'import rclpy\n'
        'from py_controllers.controller_manager.tool_process import run_in_child\n'
        'run_in_child(lambda: 0)\n'
    )
    result = subprocess.run(
        [sys.executable, '-c', program], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert 'threads; fork before importing rclpy' in result.stderr


def test_the_tools_exit_cleanly_in_their_child():
    # the whole path of a tool that fails at once (a wrong command line): no crash at exit
    result = run_tool('spawner')
    assert result.returncode == 2, result.stdout + result.stderr
    assert 'the following arguments are required: controller_names' in result.stderr
    assert 'teardown ended' not in result.stderr


# a program that has reported its status (0) and is then ended by the SIGINT its parent
# passes on: the parent ends as one process would (by SIGINT), not with the status
INTERRUPTED = """
import signal, sys
from py_controllers.controller_manager.tool_process import report_status, run_in_child

def work():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # taken below, never lost
    report_status(0)
    print('reported', flush=True)
    signal.sigwait({signal.SIGINT})
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    raise KeyboardInterrupt  # uncaught, it ends Python by SIGINT

sys.exit(run_in_child(work))
"""


def test_a_signal_passed_on_ends_the_parent_as_it_ends_the_child():
    tool = subprocess.Popen(
        [sys.executable, '-c', INTERRUPTED],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert tool.stdout.readline() == 'reported\n'
        tool.send_signal(signal.SIGINT)
        _, err = tool.communicate(timeout=30)
    finally:
        tool.kill()
        tool.wait(10)
    assert tool.returncode == -signal.SIGINT, err
    assert 'teardown ended' not in err, err  # not taken for a crash
