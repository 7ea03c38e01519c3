"""The manager in-process: error handling, chaining order, switching, reloading, what a
controller's configure creates (its parameters: test_manager_parameters.py)."""

import gc
import sys
import threading
import weakref
from pathlib import Path

import pytest
from controller_manager_msgs.srv import ReloadControllerLibraries
from manager_rig import inprocess_manager, inprocess_runtime, load
from rclpy.parameter import Parameter
from std_msgs.msg import String
from std_srvs.srv import Trigger

from py_controllers import plugins
from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import (
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controller_manager.node import ControllerManagerRuntime
from py_controllers.hardware_interface.handle import CommandInterface
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.realtime_tools import scheduling
from py_controllers.testing import CONFIG, RosHarness, SteppedManager


@pytest.fixture
def cm():
    with inprocess_manager() as pair:
        yield pair


class RaisingController(ControllerInterface):
    """Raises in its 5th update."""

    def on_init(self):
        self.updates = 0

    def update(self, time, period):
        self.updates += 1
        if self.updates == 5:
            raise RuntimeError('boom')
        return ReturnType.OK


class ChainedController(ChainableControllerInterface):
    """Exports `<name>/ref/value` and copies it to joint2/velocity."""

    def on_init(self):
        self.order = []

    def on_export_reference_interfaces(self):
        return [CommandInterface(f'{self.name}/ref', 'value', 0.0)]

    def command_interface_configuration(self):
        return InterfaceConfiguration.individual(['joint2/velocity'])

    def update_and_write_commands(self, time, period):
        self.order.append(time.nanoseconds)
        self.command_interfaces[0].value = self.reference_interfaces[0].value
        return ReturnType.OK


class Stubborn(ChainedController):
    """Refuses chained mode."""

    def on_set_chained_mode(self, chained):
        return not chained


class HookResults(ControllerInterface):
    """Its hooks return what `HookResults.script` says ('raise' raises)."""

    script: dict = {}

    def _run(self, hook):
        result = self.script.get(hook, True)
        if result == 'raise':
            raise RuntimeError(f'{hook} fails on purpose')
        return result

    def on_configure(self, previous_state):
        return self._run('on_configure')

    def on_activate(self, previous_state):
        return self._run('on_activate')

    def on_error(self, previous_state):
        return self._run('on_error')


class Talker(ControllerInterface):
    """Creates a publisher, a subscription, a service and a timer in on_configure and
    destroys nothing itself; fails its configure when `fail` is set."""

    fail = False

    def on_configure(self, previous_state):
        node = self.get_node()
        node.create_publisher(String, '~/out', 10)
        node.create_subscription(String, '~/in', lambda msg: None, 10)
        node.create_service(Trigger, '~/poke', lambda req, res: res)
        node.create_timer(1.0, lambda: None)
        return not self.fail


class Commander(ControllerInterface):
    """Writes 0.5 into the chained controller's reference."""

    def on_init(self):
        self.order = []

    def command_interface_configuration(self):
        return InterfaceConfiguration.individual(['chained/ref/value'])

    def update(self, time, period):
        self.order.append(time.nanoseconds)
        self.command_interfaces[0].value = 0.5
        return ReturnType.OK


for cls in (
    RaisingController,
    ChainedController,
    Commander,
    Stubborn,
    HookResults,
    Talker,
):
    plugins.register(plugins.CONTROLLERS_GROUP, f'test/{cls.__name__}', cls)


def test_raising_controller_is_deactivated_others_keep_running(cm):
    harness, manager = cm
    counting = load(manager, 'counting', 'test/CountingController')
    raising = load(manager, 'raising', 'test/RaisingController')
    assert manager.switch_controller(['counting', 'raising'], [], 2)[0]
    assert harness.spin_until(lambda: manager.state_of('raising').label == 'inactive')
    seen = counting.updates
    assert harness.spin_until(lambda: counting.updates > seen + 20)
    assert raising.updates == 5
    assert manager.state_of('counting').label == 'active'
    assert manager.controllers['raising'].errors == 1


def test_chain_activation_order_is_enforced(cm):
    harness, manager = cm
    chained = load(manager, 'chained', 'test/ChainedController')
    commander = load(manager, 'commander', 'test/Commander')
    assert manager.rm.command_interfaces['chained/ref/value'].value == 0.0
    ok, message = manager.switch_controller(['commander'], [], 2)
    assert not ok
    assert "commands 'chained', which is not active" in message
    ok, message = manager.switch_controller(['commander', 'chained'], [], 2)
    assert ok, message
    assert chained.is_in_chained_mode()
    assert manager.active_controllers() == ['commander', 'chained']
    assert harness.spin_until(lambda: len(chained.order) > 10)
    # the commander runs first in every cycle: same stamps, commander's list leads
    assert commander.order[: len(chained.order)][-5:] == chained.order[-5:]
    assert manager.rm.command_interfaces['joint2/velocity'].value == 0.5
    # the follower cannot go while its commander is active
    ok, message = manager.switch_controller([], ['chained'], 2)
    assert not ok and "while 'commander' commands it" in message
    assert manager.switch_controller([], ['commander', 'chained'], 2)[0]
    assert not chained.is_in_chained_mode()


def test_hardware_going_inactive_deactivates_its_controllers(cm):
    # real read()/write() failures: test_safety_inprocess.py
    _, manager = cm
    load(manager, 'counting', 'test/CountingController')
    assert manager.switch_controller(['counting'], [], 2)[0]
    ok, state = manager.set_hardware_component_state('MinimalSystem', LifecycleStateId.INACTIVE)
    assert ok and state.label == 'inactive'
    assert manager.state_of('counting').label == 'inactive'
    ok, msg = manager.switch_controller(['counting'], [], 2)
    assert not ok and 'not available' in msg


def test_description_topic_and_initial_state():
    from std_msgs.msg import String

    from py_controllers.testing import latched_qos

    harness = RosHarness('description_topic')
    node = ControllerManagerRuntime(
        harness.executor,
        context=harness.context,
        parameter_overrides=[
            Parameter('update_rate', value=200),
            Parameter('hardware_components_initial_state.inactive', value=['MinimalSystem']),
        ],
    )
    try:
        manager = node.manager
        pub = harness.node.create_publisher(String, '/robot_description', latched_qos())
        pub.publish(String(data=(CONFIG / 'minimal_robot.urdf').read_text()))
        assert harness.spin_until(lambda: node.services is not None)
        assert manager.rm.components['MinimalSystem'].state == LifecycleStateId.INACTIVE
        ok, _ = manager.set_hardware_component_state('MinimalSystem', LifecycleStateId.ACTIVE)
        assert ok
    finally:
        node.shutdown()
        harness.close()


@pytest.mark.parametrize(('requested', 'effective'), [(30, 28), (50, 50), (0, 200), (500, 200)])
def test_list_controllers_reports_the_rate_the_controller_runs_at(cm, requested, effective):
    harness, manager = cm  # the manager runs at 200 Hz
    manager.node.set_parameters([Parameter('slow.type', value='test/CountingController')])
    assert manager.load_controller('slow')[0]
    counting = manager.controllers['slow'].controller
    counting.get_node().set_parameters([Parameter('update_rate', value=requested)])
    assert manager.configure_controller('slow')[0]
    # 200 Hz / round(200 / 30) = 200 // 7 = 28 Hz, in whole Hz as upstream
    assert counting.update_rate == effective
    (state,) = [c for c in harness.manager().list_controllers() if c.name == 'slow']
    assert state.update_rate == effective


def test_best_effort_fails_when_no_named_controller_exists(cm):
    _, manager = cm
    load(manager, 'counting', 'test/CountingController')
    ok, message = manager.switch_controller(['ghost', 'phantom'], [], 1)
    assert (
        not ok and "none of the controllers to activate is loaded: ['ghost', 'phantom']" in message
    )
    ok, message = manager.switch_controller(['ghost', 'counting'], [], 1)  # one known: goes ahead
    assert ok, message
    assert manager.state_of('counting').label == 'active'
    ok, message = manager.switch_controller([], ['ghost'], 1)
    assert not ok and 'to deactivate' in message
    assert manager.state_of('counting').label == 'active'


@pytest.mark.parametrize('strictness', [3, 4])
def test_auto_and_force_auto_act_as_best_effort_as_upstream(cm, strictness):
    # upstream (controller_manager.cpp, switch_controller_cb): "AUTO is not currently
    # implemented. Defaulting to BEST_EFFORT", likewise FORCE_AUTO
    _, manager = cm
    load(manager, 'counting', 'test/CountingController')
    ok, message = manager.switch_controller(['counting', 'ghost'], [], strictness)
    assert ok, message  # STRICT would refuse the unknown 'ghost'
    assert manager.state_of('counting').label == 'active'


def test_an_unknown_strictness_is_refused(cm):
    _, manager = cm
    load(manager, 'counting', 'test/CountingController')
    ok, message = manager.switch_controller(['counting'], [], 99)
    assert not ok and 'unknown strictness 99' in message
    assert manager.state_of('counting').label == 'inactive'


def test_a_follower_refusing_chained_mode_fails_the_activation(cm):
    _, manager = cm
    load(manager, 'chained', 'test/Stubborn')  # exports chained/ref/value, refuses chaining
    load(manager, 'commander', 'test/Commander')
    assert manager.switch_controller(['chained'], [], 2)[0]
    ok, message = manager.switch_controller(['commander'], [], 2)
    assert not ok and "'chained' refused to go into chained mode" in message
    assert manager.state_of('commander').label == 'inactive'
    assert 'chained/ref/value' not in manager.rm.claimed
    assert not manager.controllers['chained'].controller.is_in_chained_mode()


@pytest.mark.parametrize(
    ('script', 'after_configure', 'after_activate'),
    [
        ({}, 'inactive', 'active'),
        ({'on_configure': False}, 'unconfigured', None),  # FAILURE: back where it was
        ({'on_configure': 'raise'}, 'unconfigured', None),  # ERROR, on_error recovers
        ({'on_configure': 'raise', 'on_error': False}, 'finalized', None),
        ({'on_activate': False}, 'inactive', 'inactive'),
        ({'on_activate': 'raise'}, 'inactive', 'unconfigured'),
        ({'on_activate': 'raise', 'on_error': 'raise'}, 'inactive', 'finalized'),
    ],
)
def test_lifecycle_state_follows_every_transition_outcome(
    cm, script, after_configure, after_activate
):
    _, manager = cm
    HookResults.script = script
    manager.node.set_parameters([Parameter('hooks.type', value='test/HookResults')])
    assert manager.load_controller('hooks')[0]
    assert manager.state_of('hooks').label == 'unconfigured'
    manager.configure_controller('hooks')
    assert manager.state_of('hooks').label == after_configure
    if after_activate is not None:
        manager.switch_controller(['hooks'], [], 2)
        assert manager.state_of('hooks').label == after_activate


@pytest.mark.parametrize('asap', [True, False])
def test_switch_over_the_service_with_and_without_activate_asap(cm, asap):
    harness, manager = cm
    counting = load(manager, 'counting', 'test/CountingController')
    client = harness.manager()
    ok, message = client.switch_controllers(['counting'], [], activate_asap=asap)
    assert ok, message
    assert manager.state_of('counting').label == 'active'
    assert harness.spin_until(lambda: counting.updates > 3)
    ok, message = client.switch_controllers([], ['counting'], activate_asap=asap)
    assert ok, message
    assert manager.state_of('counting').label == 'inactive'


CONTROLLER_SOURCE = """
from py_controllers.controller_interface.controller_interface import ControllerInterface


class Edited(ControllerInterface):
    VERSION = {version}
"""


def test_reload_controller_libraries_picks_up_edited_code(cm, tmp_path, monkeypatch):
    # a plug-in package of the user's: a module and its entry point, found on sys.path
    (tmp_path / 'edited_ctrl.py').write_text(CONTROLLER_SOURCE.format(version=1))
    info = tmp_path / 'edited_ctrl-0.1.dist-info'
    info.mkdir()
    (info / 'METADATA').write_text('Metadata-Version: 2.1\nName: edited-ctrl\nVersion: 0.1\n')
    (info / 'entry_points.txt').write_text(
        '[py_controllers.controllers]\ntest_reload/Edited = edited_ctrl:Edited\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, 'edited_ctrl', raising=False)
    harness, manager = cm
    assert manager.load_controller('edited', 'test_reload/Edited')[0]
    assert manager.controllers['edited'].controller.VERSION == 1
    (tmp_path / 'edited_ctrl.py').write_text(CONTROLLER_SOURCE.format(version=2))
    client = harness.node.create_client(
        ReloadControllerLibraries, '/controller_manager/reload_controller_libraries'
    )
    assert client.wait_for_service(timeout_sec=10.0)
    future = client.call_async(ReloadControllerLibraries.Request(force_kill=True))
    assert harness.spin_until(future.done)
    assert future.result().ok
    assert manager.controllers == {}  # everything unloaded, as upstream
    assert manager.load_controller('edited', 'test_reload/Edited')[0]
    assert manager.controllers['edited'].controller.VERSION == 2  # the edited code


def test_a_slower_controller_runs_every_nth_cycle():
    harness = RosHarness(
        'controller_rate', args=['--ros-args', '-p', 'controller_manager:update_rate:=200']
    )
    sm = SteppedManager(harness, (CONFIG / 'minimal_robot.urdf').read_text(), period_ns=5_000_000)
    try:
        m = sm.manager  # 200 Hz: 5 ms cycles on the stepped clock
        m.node.set_parameters([Parameter('slow.type', value='test/CountingController')])
        assert m.load_controller('slow')[0]
        counting = m.controllers['slow'].controller
        counting.get_node().set_parameters([Parameter('update_rate', value=50)])
        assert m.configure_controller('slow')[0]
        assert m.switch_controller(['slow'], [], 2)[0]
        sm.step(200)
        assert counting.updates == 50  # 50 Hz of a 200 Hz loop: every fourth cycle
    finally:
        sm.shutdown()
        harness.close()


def entities(node):
    return [len(list(x)) for x in (node.publishers, node.subscriptions, node.services, node.timers)]


def talker(manager, *, fail):
    """A loaded Talker and what its node holds before configure."""
    Talker.fail = fail
    manager.node.set_parameters([Parameter('talker.type', value='test/Talker')])
    assert manager.load_controller('talker')[0]
    node = manager.controllers['talker'].controller.get_node()
    return node, entities(node)  # the node's own: parameter services, /rosout


def test_ros_entities_created_in_configure_go_with_cleanup(cm):
    _, manager = cm
    node, base = talker(manager, fail=False)
    assert manager.configure_controller('talker')[0]
    assert entities(node) == [n + 1 for n in base]  # one of each
    assert manager.cleanup_controller('talker')[0]
    assert entities(node) == base
    assert manager.configure_controller('talker')[0]  # and again: no duplicates
    assert entities(node) == [n + 1 for n in base]


def test_ros_entities_of_a_failed_configure_go_at_once(cm):
    _, manager = cm
    node, base = talker(manager, fail=True)
    assert not manager.configure_controller('talker')[0]
    assert entities(node) == base


def test_shutdown_ends_the_hardware_dispatcher_and_later_requests_fail_cleanly():
    """No thread of a shut-down manager is left behind (the dispatcher kept the whole
    manager alive), and asking it for a hardware transition afterwards answers at once (no
    future left waiting on a dispatcher that is gone)."""
    with RosHarness('dispatcher') as harness:
        before = set(threading.enumerate())
        stepped = SteppedManager(harness, (CONFIG / 'minimal_robot.urdf').read_text())
        dispatchers = [
            t for t in threading.enumerate() if t not in before and t.name == 'hw_transitions'
        ]
        assert len(dispatchers) == 1 and dispatchers[0].is_alive()
        stepped.shutdown()
        dispatchers[0].join(5.0)
        assert not dispatchers[0].is_alive()
        ok, _ = stepped.manager.set_hardware_component_state(
            'MinimalSystem', LifecycleStateId.INACTIVE, timeout_s=5.0
        )
        assert not ok
        manager = weakref.ref(stepped.manager)
        del stepped
    gc.collect()
    assert manager() is None


def test_the_loop_thread_sleeps_without_timer_slack_under_the_default_scheduler():
    """Linux ends a default-scheduler thread's sleep up to its timer slack late (50 us unless
    changed): the loop thread takes the least (1 ns), the rest of the process keeps its own."""
    own = Path(f'/proc/{threading.get_native_id()}/timerslack_ns').read_text()
    # thread_priority 0: the default scheduler, where the slack applies
    with inprocess_runtime(Parameter('thread_priority', value=0)) as (harness, node):
        assert harness.spin_until(lambda: node.loop.stats.cycles > 0)
        slack = Path(f'/proc/{node.loop.thread_native_id}/timerslack_ns').read_text()
        assert int(slack) == scheduling.LOOP_TIMER_SLACK_NS == 1
        assert Path(f'/proc/{threading.get_native_id()}/timerslack_ns').read_text() == own
