"""`make bench ARGS=--write`: the run's tables land in docs/bench_results.md, dated, with the
machine, replacing the previous run; a partial run is refused."""

import datetime
import importlib.metadata
import os

import pytest

import bench.__main__ as bench_main
from bench import results_file
from bench.results_file import Machine, cpu_model, render, tee_stdout, this_machine

TABLES = '\n## 6. Start-up\n\n| median of 3 | seconds |\n|---|---|\n| to all active | 1.1 |\n'
MACHINE = Machine('AMD EPYC', 2, 'x86_64', 'Linux-6.18', '3.11.7', '9.1.2')


def test_render_dates_the_run_names_the_machine_and_keeps_the_tables():
    when = datetime.datetime(2026, 11, 26, 22, 5, tzinfo=datetime.timezone.utc)
    text = render(TABLES, when, MACHINE, 'python -m bench --seconds 5 --rounds 3')
    lines = text.splitlines()
    assert lines[0] == '# Bench results: the latest full run'
    assert '- date: 2026-11-26 22:05 UTC' in lines
    assert '- machine: AMD EPYC, 2 cores, x86_64, Linux-6.18; Python 3.11.7, rclpy 9.1.2' in lines
    assert '- command: `python -m bench --seconds 5 --rounds 3`' in lines
    assert 'git log -p docs/bench_results.md' in text
    assert text.endswith(TABLES.lstrip('\n'))


def test_cpu_model_is_read_from_cpuinfo(tmp_path):
    info = tmp_path / 'cpuinfo'
    info.write_text('processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n')
    assert cpu_model(info) == 'AMD EPYC 7B13'


def test_this_machine_reports_the_installed_rclpy_and_the_cores():
    machine = this_machine()
    assert machine.rclpy == importlib.metadata.version('rclpy')
    assert machine.cores == os.cpu_count()


def test_tee_keeps_printing_and_keeps_a_copy(capsys):
    with tee_stdout() as copy:
        print('| a | b |')
    assert capsys.readouterr().out == '| a | b |\n'
    assert copy.getvalue() == '| a | b |\n'


def test_write_replaces_the_previous_run_with_what_the_bench_printed(tmp_path, monkeypatch):
    results = tmp_path / 'bench_results.md'
    results.write_text('# Run twenty-eight\nold tables\n')
    monkeypatch.setattr(bench_main, 'RESULTS', results)
    monkeypatch.setattr(bench_main, 'run_tables', lambda args: print(TABLES))
    assert bench_main.main(['--write', '--seconds', '2']) == 0
    text = results.read_text()
    assert 'old tables' not in text
    assert '| to all active | 1.1 |' in text
    assert 'python -m bench --seconds 2 --rounds 3`' in text  # PY_CONTROLLERS_PURE=1 first on pure
    assert f'rclpy {results_file.rclpy_version()}' in text


def test_a_partial_run_is_not_written(tmp_path, monkeypatch, capsys):
    results = tmp_path / 'bench_results.md'
    monkeypatch.setattr(bench_main, 'RESULTS', results)
    monkeypatch.setattr(bench_main, 'run_tables', lambda args: print(TABLES))
    with pytest.raises(SystemExit) as exit_:
        bench_main.main(['--write', '--only', 'startup'])
    assert exit_.value.code == 2
    assert '--write records a full run' in capsys.readouterr().err
    assert not results.exists()
