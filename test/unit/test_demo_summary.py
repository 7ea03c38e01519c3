"""What a demo reports of its manager (py_controllers/demo/summary.py)."""

from dataclasses import dataclass

from py_controllers.demo import summary
from py_controllers.demo.summary import Steps


@dataclass
class Process:
    """A finished process's output, as ManagerProcess gives it."""

    alive: bool
    text: str

    def output(self) -> str:
        return self.text


LOG = '\n'.join(
    [
        '[INFO] [1.0] [controller_manager]: control loop running at 100 Hz',
        '[WARN] [2.0] [controller_manager]: overrun: the cycle took 2004 ms',
        '[ERROR] [3.0] [arm_controller]: Aborted due to path tolerance violation',
    ]
)


def test_a_failed_step_prints_the_managers_warnings_and_errors(capsys):
    steps = Steps()
    steps.record('trajectory', False, 'aborted')
    capsys.readouterr()
    assert steps.check_manager(Process(True, LOG))
    out = capsys.readouterr().out
    assert 'ros2_control_node: 2 warnings and errors, the last 2' in out
    assert 'overrun: the cycle took 2004 ms' in out and 'path tolerance violation' in out
    assert 'control loop running' not in out
    assert len(steps.results) == 1  # nothing recorded: the manager itself is fine


def test_only_the_last_complaints_are_printed(capsys, monkeypatch):
    monkeypatch.setattr(summary, 'COMPLAINTS_SHOWN', 1)
    steps = Steps()
    steps.record('gpio', False, 'tool_io {}')
    steps.check_manager(Process(True, LOG), 'follower')
    out = capsys.readouterr().out
    assert 'follower: 2 warnings and errors, the last 1' in out
    assert 'overrun' not in out and 'path tolerance violation' in out


def test_a_good_run_prints_nothing_more_and_a_dead_manager_is_a_failed_step(capsys):
    steps = Steps()
    assert steps.record('spawner', True, 'all active')
    capsys.readouterr()
    assert steps.check_manager(Process(True, LOG))
    assert capsys.readouterr().out == ''
    assert not steps.check_manager(Process(False, 'Traceback: boom'))
    step, ok, detail = steps.results[-1]
    assert (step, ok) == ('ros2_control_node', False)
    assert detail == 'the manager died:\nTraceback: boom'


def test_the_summary_columns_fit_the_longest_step(capsys):
    summary.print_summary([('follower tracks leader', True, 'max 190 mrad'), ('bus', False, '')])
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == '  step                    result  detail'
    assert lines[3] == '  follower tracks leader  ok      max 190 mrad'
    assert lines[4].startswith('  bus                     FAILED')
