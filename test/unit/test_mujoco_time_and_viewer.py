"""MujocoSystem's simulated time never goes backwards, and its viewer is synced from a
thread of its own, never from read() (a stand-in viewer: tests have no display)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from test_mujoco_system import NOW, PERIOD, S, arm_info, run, start

from py_controllers.hardware import mujoco_viewer
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType


def test_configured_again_the_simulation_time_continues_where_it_was():
    arm = start(arm_info())
    run(arm, 7)
    assert arm.simulation_time_ns() == 70_000_000
    assert arm.on_deactivate(S.ACTIVE) == CallbackReturn.SUCCESS
    assert arm.on_cleanup(S.INACTIVE) == CallbackReturn.SUCCESS
    assert arm.simulation_time_ns() == 70_000_000  # no simulation: the last time stands
    assert arm.on_configure(S.UNCONFIGURED) == CallbackReturn.SUCCESS
    assert arm.on_activate(S.INACTIVE) == CallbackReturn.SUCCESS
    run(arm, 1)  # nobody asked for the time in between: the new simulation counts on anyway
    assert arm.simulation_time_ns() == 80_000_000
    assert arm.sim.time_s == 0.01  # MuJoCo's own time did restart


def test_reset_after_diverging_the_time_goes_on_by_the_period(tmp_path, monkeypatch):
    arm = start(arm_info())
    monkeypatch.chdir(tmp_path)  # MuJoCo writes its warning to MUJOCO_LOG.TXT here
    run(arm, 3)
    assert arm.simulation_time_ns() == 30_000_000
    arm.sim.data.qfrc_applied[0] = 1e30  # a bad acceleration: MuJoCo resets its data
    assert arm.read(NOW, PERIOD) == ReturnType.ERROR
    assert arm.simulation_time_ns() == 40_000_000
    run(arm, 1)
    assert arm.simulation_time_ns() == 50_000_000


class StandInViewer:
    """What MujocoSystem uses of mujoco.viewer's passive handle; records who syncs it."""

    def __init__(self, data: Any) -> None:
        self.data = data
        self.sync_threads: set[int] = set()
        self.shown_times: list[float] = []
        self.synced = threading.Event()
        self.closed = False

    def is_running(self) -> bool:
        return not self.closed

    def sync(self) -> None:
        self.sync_threads.add(threading.get_ident())
        self.shown_times.append(float(self.data.time))
        self.synced.set()

    def close(self) -> None:
        self.closed = True


def test_the_viewer_is_synced_from_its_own_thread_never_from_read(monkeypatch):
    opened: list[StandInViewer] = []

    def launch(model: Any, data: Any) -> StandInViewer:
        opened.append(StandInViewer(data))
        return opened[-1]

    monkeypatch.setattr(mujoco_viewer, 'launch_passive', launch)
    arm = start(arm_info(viewer='true'))
    (viewer,) = opened
    assert viewer.data is not arm.sim.data  # the window shows a copy
    run(arm, 20)  # this thread plays the loop
    for _ in range(100):  # until a sync shows the state after the 20 reads
        assert viewer.synced.wait(10.0)
        viewer.synced.clear()
        if viewer.shown_times[-1] == arm.sim.time_s:
            break
    assert viewer.shown_times[-1] == arm.sim.time_s == pytest.approx(0.2)  # a copy of it
    assert threading.get_ident() not in viewer.sync_threads
    assert arm.on_cleanup(S.ACTIVE) == CallbackReturn.SUCCESS
    assert viewer.closed and arm.viewer is None


def test_every_divergence_is_reported_not_only_the_first(tmp_path, monkeypatch):
    arm = start(arm_info())
    monkeypatch.chdir(tmp_path)  # MuJoCo writes its warning to MUJOCO_LOG.TXT here
    for _ in range(3):
        run(arm, 1)
        arm.sim.data.qfrc_applied[0] = 1e30  # a bad acceleration: MuJoCo resets its data
        assert arm.read(NOW, PERIOD) == ReturnType.ERROR
