"""Holes the release transaction closes on paths beside the plain switch: a failed
activation and a refused chained mode on the MuJoCo arm, a chained follower's topic input,
the second signal, the final write and the hardware shutdown bounded per component, a
service waiting on a stuck loop. Each fails without its fix."""

from __future__ import annotations

import signal
import threading

import pytest
from geometry_msgs.msg import TwistStamped
from rclpy.parameter import Parameter
from release_rig import STRICT, load, start
from safety_rig import robot, running_manager
from safety_rig import start as start_safety

from py_controllers.controller_interface.controller_interface import CallbackReturn, ReturnType
from py_controllers.controller_manager import process_signals, supervision
from py_controllers.controller_manager.invariants import check_invariants
from py_controllers.hardware_interface.types import LifecycleStateId as S
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

ARM6 = (CONFIG / 'mujoco' / 'arm6.urdf').read_text()
EFFORTS = [f'joint{i}/effort' for i in range(1, 7)]
LIMIT_RAD = 0.005


@pytest.fixture
def harness():
    with RosHarness('release_paths') as h:
        yield h


def positions(sm):
    return [sm.state(f'joint{i}/position') for i in range(1, 7)]


def drift_after(sm, cycles):
    before = positions(sm)
    sm.step(cycles)
    return max(abs(a - b) for a, b in zip(positions(sm), before, strict=True))


@pytest.mark.parametrize('how', ['on_activate fails', 'follower refuses chained mode'])
def test_a_failed_effort_activation_leaves_the_mujoco_arm_holding(harness, how):
    sm = SteppedManager(harness, ARM6)
    try:
        m = sm.manager
        sm.step(100)  # settled on MujocoSystem's own position servo
        interfaces = list(EFFORTS)
        if how == 'follower refuses chained mode':
            load(m, 'refusing', 'Refusing')
            assert m.switch_controller(['refusing'], [], STRICT)[0]
            interfaces.append('refusing/x/velocity')
        ctrl = load(m, 'effort', 'Scripted', interfaces=interfaces, value=0.0)
        if how == 'on_activate fails':
            ctrl.results['on_activate'] = CallbackReturn.FAILURE
        ok, msg = m.switch_controller(['effort'], [], STRICT)
        assert not ok, msg
        # 3 s: the shoulder fell 2.3 rad before (effort drives on, nobody commanding them)
        assert drift_after(sm, 300) < LIMIT_RAD
        assert check_invariants(m) == []
    finally:
        sm.shutdown()


DIFF_DRIVE = """diff_drive_controller:
  ros__parameters:
    left_wheel_names: [left_wheel_joint]
    right_wheel_names: [right_wheel_joint]
    wheel_separation: 0.40
    wheel_radius: 0.05
    cmd_vel_timeout: 5.0
"""


def test_a_chained_diff_drive_whose_leader_fails_ignores_cmd_vel_from_while_it_was_chained(
    harness, tmp_path
):
    (tmp_path / 'diff_drive.yaml').write_text(DIFF_DRIVE)
    sm = SteppedManager(harness, (CONFIG / 'diffbot.urdf').read_text())
    try:
        m = sm.manager
        name = 'diff_drive_controller'
        m.node.set_parameters(
            [
                Parameter(f'{name}.type', value='diff_drive_controller/DiffDriveController'),
                Parameter(f'{name}.params_file', value=str(tmp_path / 'diff_drive.yaml')),
            ]
        )
        assert m.load_controller('diff_drive_controller')[0]
        assert m.configure_controller('diff_drive_controller')[0]
        assert m.switch_controller(['diff_drive_controller'], [], STRICT)[0]
        drive = m.controllers['diff_drive_controller'].controller
        refs = ['diff_drive_controller/linear/velocity', 'diff_drive_controller/angular/velocity']
        leader = start(m, 'leader', 'Scripted', interfaces=refs, value=0.0)
        sm.step(5)
        assert drive.is_in_chained_mode()
        # a cmd_vel arrives while the leader commands the base (chained: not used)
        now = sm.catch_up_with_clock()
        msg = TwistStamped()
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(now, 1_000_000_000)
        msg.twist.linear.x = 0.5
        sm.send('/diff_drive_controller/cmd_vel', TwistStamped, msg, lambda: drive._cmd.get())
        sm.step(5)
        wheel = 'left_wheel_joint/velocity'
        assert sm.command(wheel) == pytest.approx(0.0, abs=1e-9)  # the leader says 0
        leader.results['update'] = ReturnType.ERROR
        sm.step(50)
        assert not drive.is_in_chained_mode()
        # before: the base drove off at the 0.5 m/s that came in while it was chained
        assert sm.command(wheel) == pytest.approx(0.0, abs=1e-9)
    finally:
        sm.shutdown()


def test_a_second_signal_lets_no_cycle_overwrite_the_holds(harness):
    node = running_manager(harness, robot({'Arm': ({}, ['j1'])}))
    m, loop = node.manager, node.loop
    try:
        start_safety(m, 'pushing', interfaces=['j1/velocity'], value=1.5)
        assert harness.spin_until(lambda: m.rm.command_interfaces['j1/velocity'].value == 1.5)
        node.emergency_stop()  # what the second SIGINT runs before os._exit(1)
        cycles = loop.stats.cycles
        # the loop reaches the cycle lock the emergency keeps (before: it ran on, and the
        # controller wrote 1.5 over the hold)
        assert harness.spin_until(lambda: loop.waiting_for_lock or loop.stats.cycles > cycles + 2)
        assert loop.stats.cycles == cycles
        assert m.rm.command_interfaces['j1/velocity'].value == 0.0
    finally:
        m.cycle_lock.release()  # the emergency keeps it for good; the test lets go
        node.shutdown()


def test_a_signal_during_the_emergency_stop_returns_at_once(harness, monkeypatch):
    """q13's [(SIGTERM, 0.3), (SIGHUP, 0.3), (SIGHUP, 0.0)]: the third signal's handler ran
    on top of the second's emergency stop (inside the loop's stop request), started another
    one and waited for good on the lock the one it interrupted held: no hold was written."""
    node = running_manager(harness, robot({'Arm': ({}, ['j1'])}))
    m = node.manager
    exits, stop_requests = [], []

    class Exited(BaseException):
        pass

    def exit_now(status):
        exits.append(status)
        raise Exited

    request_stop = node.loop.request_stop

    def request_stop_then_a_signal():
        stop_requests.append(1)
        request_stop()
        if len(stop_requests) == 1:
            signal.raise_signal(signal.SIGHUP)  # its handler runs here, on top of this one

    monkeypatch.setattr(process_signals.os, '_exit', exit_now)
    monkeypatch.setattr(node.loop, 'request_stop', request_stop_then_a_signal)
    signals = process_signals.ProcessSignals()
    try:
        signals.runtime = node
        start_safety(m, 'pushing', interfaces=['j1/velocity'], value=1.5)
        assert harness.spin_until(lambda: m.rm.command_interfaces['j1/velocity'].value == 1.5)
        signal.raise_signal(signal.SIGTERM)  # the safe stop is asked for
        assert signals.stop.is_set() and exits == []
        with pytest.raises(Exited):
            signal.raise_signal(signal.SIGHUP)  # the emergency stop, and a third signal in it
        assert (len(stop_requests), exits) == (1, [1])
        assert m.rm.command_interfaces['j1/velocity'].value == 0.0
    finally:
        signals.close()
        if stop_requests:
            m.cycle_lock.release()  # the emergency keeps it for good; the test lets go
        node.shutdown()


class _Blocking:
    """Makes a component's method block until released (a dead bus, a stuck driver)."""

    def __init__(self, component, method):
        self.release = threading.Event()
        self.calls = 0
        original = getattr(component, method)

        def blocking(*args):
            self.calls += 1
            self.release.wait(30.0)
            return original(*args)

        setattr(component, method, blocking)


def _recording_writes(component):
    calls = []
    original = component.write

    def write(time, period):
        calls.append(dict(component.command_interfaces))
        return original(time, period)

    component.write = write
    return calls


def test_one_blocking_final_write_starves_no_other_component(harness):
    sm = SteppedManager(harness, robot({'A': ({}, ['j1']), 'B': ({}, ['j2'])}))
    try:
        m = sm.manager
        stuck = _Blocking(m.rm.components['A'].component, 'write')
        written = _recording_writes(m.rm.components['B'].component)
        failed = m.supervisor.final_write(timeout_s=0.5)
        # before: one pass, A first: B never got its final write
        assert failed == ['A'] and stuck.calls == 1 and len(written) == 1
        stuck.release.set()
    finally:
        sm.shutdown()


def test_one_stuck_hardware_shutdown_starves_no_other_component(harness, monkeypatch):
    monkeypatch.setattr(supervision, 'HARDWARE_SHUTDOWN_TIMEOUT_S', 0.5)
    sm = SteppedManager(harness, robot({'A': ({}, ['j1']), 'B': ({}, ['j2'])}))
    a, b = (sm.manager.rm.components[n] for n in ('A', 'B'))
    stuck = _Blocking(a.component, 'on_deactivate')
    sm.shutdown()
    # before: one sequential pass; A's deactivation used the whole bound and B was left
    assert stuck.calls == 1 and b.state == S.FINALIZED
    stuck.release.set()


def test_a_service_gives_up_on_a_stuck_loop_instead_of_waiting_forever(harness):
    node = running_manager(
        harness, robot({'Arm': ({'read_fault_at': 20, 'read_fault': 'block'}, ['j1'])}),
        **{'watchdog.exit_on_stall': False},
    )  # fmt: skip
    m = node.manager
    try:
        assert harness.spin_until(lambda: m.rm.components['Arm'].component.reads >= 20)
        answer = []
        load = lambda: answer.append(m.load_controller('late', 'release/Commanding'))  # noqa: E731
        caller = threading.Thread(target=load)
        caller.start()
        caller.join(20.0)
        # before: the call waited for the cycle lock the stuck loop holds, for good
        assert not caller.is_alive(), 'the service call is still waiting'
        assert answer and not answer[0][0] and 'did not let go of its lock' in answer[0][1]
        assert 'late' not in m.controllers
    finally:
        node.shutdown()
