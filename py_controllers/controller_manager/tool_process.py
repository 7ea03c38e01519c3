"""A command-line tool's exit status, decided by its work and not by rclpy's teardown.

Once a tool's work is done (controllers spawned, say), rclpy still has to tear the node and
DDS down, and that has been seen to crash (SIGSEGV in a middleware thread, kilted) after a
spawner had activated everything: launch and scripts then read a failure. So a tool runs in
a child process (`run_in_child`); it reports its status before the teardown starts
(`report_status`, called by client.tear_down), and the parent, the process the caller
started, exits with that status whatever the teardown does after it. Signals sent to the
parent go on to the child, which has a process group of its own (a Ctrl-C at the terminal
reaches it once), and the child stops (SIGTERM) should the parent be killed.

The fork must come before ROS is loaded: rclpy's libraries start threads when loaded
(LTTng's listeners), and a child forked from a process with threads has their state but
not them; LTTng's exit handler then crashes the child. `run_in_child` refuses to fork a
process with more than one thread.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable

FORWARDED = (
    signal.SIGINT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGABRT,
    signal.SIGUSR1,
    signal.SIGUSR2,
)
"""Signals the parent passes on to the child (the child's handlers decide what they do)."""
WAKERS = (*FORWARDED, signal.SIGCHLD)
"""What the parent waits for: a signal to pass on, or the child's end."""
PR_SET_PDEATHSIG = 1

_report_fd: int | None = None


def report_status(status: int) -> None:
    """Tell the parent the tool's exit status, now that its work is done; a no-op outside
    `run_in_child`, and after the first report."""
    global _report_fd
    if _report_fd is None:
        return
    fd, _report_fd = _report_fd, None
    try:
        os.write(fd, bytes([status & 0xFF]))
    finally:
        os.close(fd)


def run_in_child(work: Callable[[], int]) -> int:
    """Run `work()` in a child process. The child returns work's status; the parent returns
    the child's exit status, or the status the child reported when, after reporting, it was
    ended by a signal that was not passed on to it (a crash; said on stderr). A child
    ended by a signal otherwise ends the parent with the same signal, as one process would."""
    if not hasattr(os, 'fork'):
        return work()
    threads = len(os.listdir('/proc/self/task'))
    if threads > 1:
        raise RuntimeError(
            f'run_in_child: this process has {threads} threads; fork before importing rclpy'
        )
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    # Both sides start with these blocked: the child until its own handlers are in place, the
    # parent until the child has ended, taking them with sigtimedwait (see _wait_passing_on)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, WAKERS)
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        # a process group of its own: a Ctrl-C at the terminal reaches the child once, from
        # the parent, not twice (a second SIGINT would interrupt the first one's clean-up)
        os.setpgid(0, 0)
        _stop_with_parent(parent)
        global _report_fd
        _report_fd = write_fd
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        return work()
    os.close(write_fd)
    try:
        wait_status, forwarded = _wait_passing_on(pid)
        reported = _read_report(read_fd)
        while signal.sigtimedwait(WAKERS, 0) is not None:
            pass  # came after the child ended: nobody is left to pass them to
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return _outcome(reported, wait_status, forwarded)


def _wait_passing_on(pid: int) -> tuple[int, set[int]]:
    """Wait for the child to end, passing on each FORWARDED signal the parent receives; its
    wait status and the signals passed on.

    The signals stay blocked and are taken with sigtimedwait, not by Python handlers: a
    handler runs between bytecodes, so a signal that came just before `os.waitpid` entered
    the kernel waited for the child to end by itself (7 of 500 tries beside a test run: a
    Ctrl-C lost, a tool that never stopped)."""
    forwarded: set[int] = set()
    while True:
        ended, wait_status = os.waitpid(pid, os.WNOHANG)
        if ended:
            return wait_status, forwarded
        # the timeout is a backstop only: SIGCHLD, blocked, stays pending until taken here
        info = signal.sigtimedwait(WAKERS, 1.0)
        if info is not None and info.si_signo != signal.SIGCHLD:
            forwarded.add(info.si_signo)
            os.kill(pid, info.si_signo)  # not reaped yet: the pid is still the child's


def _stop_with_parent(parent: int) -> None:
    """Have the kernel send this (child) process SIGTERM when its parent dies (Linux)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os.kill(os.getpid(), signal.SIGTERM)


def _read_report(fd: int) -> int | None:
    """The status the (ended) child reported, None if it ended without one. The pipe is read
    without blocking: a process the child started may still hold its end open."""
    os.set_blocking(fd, False)
    try:
        data = os.read(fd, 1)
    except BlockingIOError:
        data = b''
    finally:
        os.close(fd)
    return data[0] if data else None


def _outcome(reported: int | None, wait_status: int, forwarded: set[int]) -> int:
    """The parent's status: the child's own, or the reported one when a signal nobody sent
    ended the child after its report (a crash in the teardown)."""
    if os.WIFEXITED(wait_status):
        return os.WEXITSTATUS(wait_status)
    sig = os.WTERMSIG(wait_status)
    name = signal.Signals(sig).name
    if reported is not None and sig not in forwarded:
        print(
            f"{os.path.basename(sys.argv[0])}: rclpy's teardown ended in {name} after the "
            f"work was done; exiting with the work's status {reported}",
            file=sys.stderr,
            flush=True,
        )
        return reported
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
    return 128 + sig  # for a signal that does not end a process by default
