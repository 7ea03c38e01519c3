"""Simulated time with use_sim_time, exact (issue #29 item 3).

config/mujoco/two_link_arm.urdf (component MujocoArm, 2 ms timestep) at 100 Hz:
- a controller's `time` is the simulation time of the state it reads, after read() stepped
  the physics (in-process, each step the loop's own `simulated_cycle`);
- /clock goes out before any message stamped with its time (ros2_control_node, real loop);
- the time never goes backwards: the component cleaned up and configured again continues
  it, and a 10 Hz controller keeps its schedule right after.
"""

from __future__ import annotations

import bisect
import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

from py_controllers import plugins
from py_controllers.controller_interface.controller_interface import (
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.ros_conversions import stamp_to_ns
from py_controllers.testing import (
    CONFIG,
    ManagerProcess,
    RosHarness,
    SteppedManager,
    run_tool,
    stamp_ns,
)

PERIOD_NS = 10_000_000
URDF = CONFIG / 'mujoco' / 'two_link_arm.urdf'
S = LifecycleStateId


class StateProbe(ControllerInterface):
    """Reads joint1/position; records (time, the state read, `probe()` at that moment)."""

    def on_init(self) -> None:
        self.seen: list[tuple[int, float, Any]] = []
        self.probe: Any = lambda: None

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(['joint1/position'])

    def update(self, time: Any, period: Any) -> ReturnType:
        self.seen.append((time.nanoseconds, self.state_interfaces[0].value, self.probe()))
        return ReturnType.OK


class Ticker(ControllerInterface):
    """Claims nothing; records the time of each update."""

    def on_init(self) -> None:
        self.times: list[int] = []

    def update(self, time: Any, period: Any) -> ReturnType:
        self.times.append(time.nanoseconds)
        return ReturnType.OK


plugins.register(plugins.CONTROLLERS_GROUP, 'test/StateProbe', StateProbe)
plugins.register(plugins.CONTROLLERS_GROUP, 'test/Ticker', Ticker)


@pytest.fixture
def arm(tmp_path: Path) -> Any:
    """A stepped manager on MuJoCo's time (use_sim_time) with `probe` and a 10 Hz `ticker`."""
    document = {
        'controller_manager': {
            'ros__parameters': {
                'update_rate': 100,
                'probe': {'type': 'test/StateProbe'},
                'ticker': {'type': 'test/Ticker'},
            }
        },
        'ticker': {'ros__parameters': {'update_rate': 10}},
    }
    params_file = tmp_path / 'controllers.yaml'
    params_file.write_text(yaml.safe_dump(document))
    harness = RosHarness('sim_time', args=['--ros-args', '--params-file', str(params_file)])
    cm = SteppedManager(harness, URDF.read_text(), period_ns=PERIOD_NS, use_sim_time=True)
    yield cm
    cm.shutdown()
    harness.close()


def test_a_controller_runs_at_the_simulation_time_of_the_state_it_reads(arm):
    """update()'s time is MuJoCo's data.time after the step of that cycle, and the state
    it reads is the joint's position at that time (not one period before)."""
    (probe,) = arm.start('probe')
    sim = arm.manager.rm.components['MujocoArm'].component
    data, joint = sim.sim.data, sim.bindings[0]
    probe.probe = lambda: (round(data.time * 1e9), float(data.qpos[joint.qpos_adr]))
    sim.sim.data.qvel[joint.dof_adr] = 2.0  # something to follow: the joint swings
    arm.step(30)
    assert len(probe.seen) == 30
    for time_ns, position, (data_ns, data_position) in probe.seen:
        assert time_ns == data_ns, probe.seen[:3]
        assert position == data_position
    times = [t for t, _, _ in probe.seen]
    assert all(b - a == PERIOD_NS for a, b in itertools.pairwise(times)), times[:5]
    assert times[0] > 0  # the first update follows the first step
    assert len({p for _, p, _ in probe.seen}) == 30  # it did move: every state differs


def test_the_time_goes_on_when_the_component_is_configured_again(arm):
    """cleanup + configure makes a new MuJoCo simulation; its time continues the old one,
    and a 10 Hz controller in the 100 Hz loop updates every 10th cycle right after."""
    (ticker,) = arm.start('ticker')
    arm.step(45)
    before_ns = arm.now_ns
    assert before_ns == 45 * PERIOD_NS
    ticks = len(ticker.times)
    for target in (S.UNCONFIGURED, S.ACTIVE):
        ok, state = arm.manager.set_hardware_component_state('MujocoArm', target, timeout_s=10)
        assert ok and state == target
    assert arm.manager.rm.components['MujocoArm'].component.simulation_time_ns() == before_ns
    arm.step(30)
    assert arm.now_ns == before_ns + 30 * PERIOD_NS
    after = ticker.times[ticks:]
    assert len(after) == 3, ticker.times
    assert all(b - a == 10 * PERIOD_NS for a, b in itertools.pairwise(ticker.times)), ticker.times


def test_the_watchdog_gives_a_loop_that_drives_the_simulation_two_seconds(arm):
    """The physics waits for the loop: a short silence of a busy host moves nothing, so the
    watchdog's automatic floor is 2 s here (s2, CI of stop 55: 0.33 s on a loaded host ended
    a MuJoCo run), and 250 ms for the same robot on the wall clock."""
    assert arm.node.loop.drives_simulation
    assert arm.node.watchdog.threshold_ns == 2_000_000_000
    harness = RosHarness('wall_time')
    wall = SteppedManager(harness, URDF.read_text(), period_ns=PERIOD_NS)
    try:
        assert not wall.node.loop.drives_simulation
        assert wall.node.watchdog.threshold_ns == 250_000_000
    finally:
        wall.shutdown()
        harness.close()


def test_clock_goes_out_before_the_messages_stamped_with_its_time(tmp_path):
    """ros2_control_node with use_sim_time sends every joint state after a /clock at least as
    late as its stamp: by the samples' source timestamps, which the middleware sets as the
    manager writes each one (what the manager decides). Not by reception: an executor serving
    a backlog one message per topic at a time reorders what it hands to the callbacks, and
    under load a lost /clock sample is received again after later joint states (h20, two
    busy loops: 34 states received while the reader waited for one /clock sample sent
    again)."""
    params_file = tmp_path / 'controllers.yaml'
    jsb = {'type': 'joint_state_broadcaster/JointStateBroadcaster'}
    manager = {'update_rate': 100, 'joint_state_broadcaster': jsb}
    params_file.write_text(yaml.safe_dump({'controller_manager': {'ros__parameters': manager}}))
    reliable = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
    clocks: dict[int, int] = {}  # /clock time -> when it was first sent
    states: list[tuple[int, int]] = []  # (stamp, when it was sent)

    def on_clock(msg: Clock, info: Any) -> None:
        t, sent = stamp_to_ns(msg.clock), info['source_timestamp']
        clocks[t] = min(clocks.get(t, sent), sent)

    def on_state(msg: JointState, info: Any) -> None:
        states.append((stamp_ns(msg), info['source_timestamp']))

    with (
        ManagerProcess([params_file], URDF, params={'use_sim_time': 'true'}) as proc,
        RosHarness('sim_time_order') as ros,
    ):
        ros.node.create_subscription(Clock, '/clock', on_clock, reliable)
        ros.node.create_subscription(JointState, '/joint_states', on_state, reliable)
        result = run_tool(
            'spawner', 'joint_state_broadcaster', '--controller-manager-timeout', '30'
        )
        assert result.returncode == 0, result.stdout + result.stderr + proc.output()
        assert ros.spin_until(lambda: len(states) >= 200), (
            f'{len(states)} joint states, {len(clocks)} clocks\n{proc.output()}'
        )
    assert all(sent > 0 for sent in clocks.values())  # the middleware tells
    # the latest /clock sent before each joint state is at least the state's stamp (a busy
    # publishing thread sends only the latest /clock: some times may never appear)
    by_sending = sorted((sent, t) for t, sent in clocks.items())
    sendings = [sent for sent, _ in by_sending]
    latest = list(itertools.accumulate((t for _, t in by_sending), max))
    states = [(t, sent) for t, sent in states if t >= min(clocks)]
    assert len(states) >= 150
    late = []
    for stamp, sent in states:
        seen = bisect.bisect_right(sendings, sent)
        if seen == 0 or latest[seen - 1] < stamp:
            late.append((stamp, latest[seen - 1] if seen else None))
    assert not late, f'{len(late)} of {len(states)} were sent before their /clock: {late[:5]}'
