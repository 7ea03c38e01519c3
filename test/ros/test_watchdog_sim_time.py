"""The watchdog on a simulator's time against the wall clock, in ros2_control_node: the
same 1 s silence of the loop (FaultInjectionController's SILENCE, an update() that
sleeps once) ends a wall-clock manager (a stall: the robot went uncontrolled) and is only a
WARN on a MuJoCo use_sim_time manager, whose physics waited for the loop (stop 55's CI:
0.33 s on a loaded host ended such a manager)."""

from __future__ import annotations

from pathlib import Path

import pytest
from std_msgs.msg import UInt8

from py_controllers.controllers.fault_injection.controller import SILENCE
from py_controllers.testing import CONFIG, GUARD_S, ManagerProcess, RosHarness, run_tool

URDF = CONFIG / 'mujoco' / 'two_link_arm.urdf'
CONTROLLERS = """
controller_manager:
  ros__parameters:
    update_rate: 100
    fic:
      type: py_controllers/FaultInjectionController
"""


def silence_the_loop(manager: ManagerProcess, ros: RosHarness, until: str) -> None:
    """Spawn `fic`, send it SILENCE once it runs, wait for `until` in the manager's output."""
    result = run_tool('spawner', 'fic', '--controller-manager-timeout', '30')
    assert result.returncode == 0, result.stdout + result.stderr + manager.output()
    fault = ros.node.create_publisher(UInt8, '/fic/fault', 10)
    assert ros.spin_until(lambda: fault.get_subscription_count() > 0), manager.output()
    fault.publish(UInt8(data=SILENCE))
    assert ros.spin_until(lambda: until in manager.output(), GUARD_S), manager.output()


@pytest.fixture
def params_file(tmp_path: Path) -> Path:
    path = tmp_path / 'controllers.yaml'
    path.write_text(CONTROLLERS)
    return path


def test_a_silence_on_a_simulators_time_is_a_warning_and_the_manager_runs_on(params_file):
    with (
        ManagerProcess([params_file], URDF, params={'use_sim_time': 'true'}) as manager,
        RosHarness('watchdog_sim_time') as ros,
    ):
        silence_the_loop(manager, ros, 'without a cycle')
        output = manager.output()
        assert 'not a stall while it drives the simulator' in output
        assert 'meanwhile ran' in output  # what the loop thread did: it slept
        assert 'stalled' not in output
        client = ros.manager()
        cycles = client.statistics()['cycles']
        assert ros.spin_until(lambda: client.statistics()['cycles'] > cycles + 10)
        assert manager.alive, manager.output()  # the loop runs on


def test_the_same_silence_on_the_wall_clock_is_a_stall_that_ends_the_manager(params_file):
    with (
        ManagerProcess([params_file], URDF) as manager,
        RosHarness('watchdog_wall_time') as ros,
    ):
        silence_the_loop(manager, ros, 'control loop stalled')
        assert manager.process.wait(GUARD_S) == 1, manager.output()
        output = manager.output()
        assert 'meanwhile ran' in output and 'in _fall_silent' in output
