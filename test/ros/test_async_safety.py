"""is_async hardware and the safety contract: the component's thread never sees a command a
controller is still computing or one the limits have not clamped, the final write at
shutdown reaches it with the hold values, transitions never run beside its read()/write(),
and a component still in a transition at shutdown is shut down once the transition ends."""

from __future__ import annotations

import threading
import time

import pytest
from safety_rig import Commanding, robot, running_manager, start

from py_controllers import plugins
from py_controllers.controller_interface.controller_interface import ReturnType
from py_controllers.hardware.fault_injection import FaultInjectionSystem
from py_controllers.hardware_interface.types import CallbackReturn
from py_controllers.hardware_interface.types import LifecycleStateId as S
from py_controllers.testing import RosHarness

UPDATING = threading.Event()  # set while Overshooting.update() runs


class Overshooting(Commanding):
    """Computes its command in two steps: 50.0 first, 5.0 (over the 2 rad/s limit) last,
    with a 3 ms computation between them (a slow update)."""

    def update(self, time_, period):
        UPDATING.set()
        for handle in self.command_interfaces:
            handle.value = 50.0
        time.sleep(0.003)
        for handle in self.command_interfaces:
            handle.value = 5.0
        UPDATING.clear()
        return ReturnType.OK


class Recording(FaultInjectionSystem):
    """Records every write() (j1's velocity command, its thread, whether an update ran);
    its read() can be held (`hold_reads`), its on_deactivate gated (`deactivate_gate`)."""

    def on_init(self, info):
        result = super().on_init(info)
        self.written: list[tuple[float, str, bool]] = []
        self.hold_reads = False
        self.read_gate = threading.Event()
        self.reading = False
        self.hook_beside_io: list[str] = []
        self.deactivate_gate: threading.Event | None = None
        self.deactivating = threading.Event()
        self.shutdowns = 0
        self.shut_down = threading.Event()
        return result

    def read(self, time_, period):
        self.reading = True
        try:
            if self.hold_reads:
                self.read_gate.wait(20.0)
            return super().read(time_, period)
        finally:
            self.reading = False

    def write(self, time_, period):
        handle = self.command_interfaces.get('j1/velocity')
        value = handle.value if handle is not None else float('nan')
        self.written.append((value, threading.current_thread().name, UPDATING.is_set()))
        return super().write(time_, period)

    def on_deactivate(self, previous_state):
        if self.reading:
            self.hook_beside_io.append('on_deactivate')
        self.deactivating.set()
        if self.deactivate_gate is not None:
            self.deactivate_gate.wait(20.0)
        return super().on_deactivate(previous_state)

    def on_shutdown(self, previous_state):
        self.shutdowns += 1
        self.shut_down.set()
        return CallbackReturn.SUCCESS


plugins.register(plugins.CONTROLLERS_GROUP, 'safety/Overshooting', Overshooting)
plugins.register(plugins.HARDWARE_GROUP, 'test/RecordingAsync', Recording)


@pytest.fixture
def harness():
    with RosHarness('async_safety') as h:
        yield h


def async_robot(policy: str = 'synchronized', *, rw_rate: int = 0, second: bool = False) -> str:
    """'Slow' (j1): an is_async Recording component; with `second`, 'Other' (j2) too."""
    components = {'Slow': ({}, ['j1'])}
    if second:
        components['Other'] = ({}, ['j2'])
    rate = f' rw_rate="{rw_rate}"' if rw_rate else ''
    urdf = robot(
        components, plugin='test/RecordingAsync', attributes={'Slow': f'is_async="true"{rate}'}
    )
    return urdf.replace(
        '<hardware><plugin>test/RecordingAsync',
        f'<properties><async scheduling_policy="{policy}"/></properties>'
        '<hardware><plugin>test/RecordingAsync',
        1,
    )


def test_an_async_write_sees_only_limited_commands_of_a_finished_update(harness):
    node = running_manager(harness, async_robot())
    try:
        m = node.manager
        slow = m.rm.components['Slow'].component
        start(m, 'over', 'Overshooting', interfaces=['j1/velocity'])
        assert harness.spin_until(lambda: sum(v == v for v, _, _ in slow.written) >= 50)
        with m.cycle_lock:
            written = list(slow.written)
        values = [v for v, _, _ in written if v == v]  # NaN: before the first command
        assert values and all(v == 2.0 for v in values), sorted(set(values))  # never 50 or 5
        assert node.loop._thread.ident not in {t for _, t, _ in written}
    finally:
        node.shutdown()


def test_the_final_write_reaches_an_async_component_with_the_hold_values(harness):
    # one run every 50 cycles: the loop's own runs would rarely deliver the hold in time
    node = running_manager(harness, async_robot(rw_rate=2))
    slow = node.manager.rm.components['Slow'].component
    try:
        start(node.manager, 'cmd', interfaces=['j1/velocity'], value=1.0)
        assert harness.spin_until(lambda: any(v == 1.0 for v, _, _ in slow.written))
    finally:
        node.shutdown()
    value, thread, _ = slow.written[-1]
    assert value == 0.0  # velocity holds at 0 once its controller is deactivated
    assert thread == 'final_write:Slow'  # the shutdown's bounded final write, not the async thread


def test_an_async_component_active_again_gets_the_hold_not_the_last_command(harness):
    # one run every 50 cycles: no run between the hold and the transition hands it over
    node = running_manager(harness, async_robot(rw_rate=2))
    try:
        m = node.manager
        slow = m.rm.components['Slow'].component
        start(m, 'cmd', interfaces=['j1/velocity'], value=1.0)
        assert harness.spin_until(lambda: any(v == 1.0 for v, _, _ in slow.written))
        for target in (S.INACTIVE, S.ACTIVE):  # its controller is deactivated: velocity 0
            outcome = m.supervisor.request_hardware_state('Slow', target)
            assert harness.spin_until(outcome.done)
            assert outcome.result() == (True, target)
        count = len(slow.written)
        assert harness.spin_until(lambda: len(slow.written) >= count + 2)
        assert [v for v, _, _ in slow.written[count:]] == [0.0] * (len(slow.written) - count)
        assert m.rm.command_interfaces['j1/velocity'].value == 0.0
    finally:
        node.shutdown()


def test_a_transition_does_not_start_while_a_detached_read_is_under_way(harness):
    node = running_manager(harness, async_robot('detached'))
    try:
        m = node.manager
        slow = m.rm.components['Slow'].component
        m.supervisor.transitions.idle_wait_s = 0.2
        slow.hold_reads = True
        assert harness.spin_until(lambda: slow.reading)
        outcome = m.supervisor.request_hardware_state('Slow', S.INACTIVE)
        assert harness.spin_until(outcome.done)
        assert outcome.result() == (False, S.ACTIVE)  # refused: its read() is under way
        slow.hold_reads = False
        slow.read_gate.set()
        outcome = m.supervisor.request_hardware_state('Slow', S.INACTIVE)
        assert harness.spin_until(outcome.done)
        assert outcome.result() == (True, S.INACTIVE)
        assert slow.hook_beside_io == []
    finally:
        slow.read_gate.set()
        node.shutdown()


def test_a_component_in_a_transition_at_shutdown_is_shut_down_when_it_ends(harness):
    node = running_manager(harness, async_robot(second=True))
    m = node.manager
    other = m.rm.components['Other'].component
    slow = m.rm.components['Slow'].component
    gate = other.deactivate_gate = threading.Event()
    try:
        outcome = m.supervisor.request_hardware_state('Other', S.INACTIVE)
        assert harness.spin_until(other.deactivating.is_set)
        stopper = threading.Thread(target=node.shutdown)
        stopper.start()
        # 'Slow' comes first: once it is shut down, the resource manager waits for 'Other'
        assert slow.shut_down.wait(20.0)
        assert other.shutdowns == 0  # its on_deactivate is still under way
        gate.set()
        stopper.join(20.0)
        assert not stopper.is_alive()
    finally:
        gate.set()
    assert outcome.result()[0] is True
    assert other.shutdowns == 1
    assert m.rm.components['Other'].state == S.FINALIZED


def test_a_transition_requested_between_the_detached_check_and_its_run_waits_for_the_run(
    harness,
):
    # The detached thread checks that no transition is under way, then runs read(): a
    # transition asked for between the two must wait for that run, never run beside it.
    node = running_manager(harness, async_robot('detached'))
    m = node.manager
    managed = m.rm.components['Slow']
    slow = managed.component
    gate = slow.deactivate_gate = threading.Event()
    requested: list = []
    beside: list[str] = []
    plain_read = slow.read

    def read(time_, period):
        if slow.deactivating.is_set() and not gate.is_set():
            beside.append('read() during on_deactivate')
        return plain_read(time_, period)

    class AskedInTheGap(type(managed)):
        @property
        def state(self):
            if threading.current_thread().name == 'async:Slow' and not requested:
                requested.append(m.supervisor.request_hardware_state('Slow', S.INACTIVE))
                slow.deactivating.wait(0.5)  # every chance for the transition to go first
            return super().state

    try:
        slow.read = read
        managed.__class__ = AskedInTheGap
        assert harness.spin_until(lambda: bool(requested))
        assert harness.spin_until(slow.deactivating.is_set)
        gate.set()
        assert harness.spin_until(requested[0].done)
        assert requested[0].result() == (True, S.INACTIVE)
        assert beside == []
    finally:
        gate.set()
        node.shutdown()
