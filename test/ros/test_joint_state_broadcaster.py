"""joint_state_broadcaster: the joint order of /joint_states and extra_joints, as upstream.

A mock robot whose URDF, ros2_control tag and joint names are in three different orders,
with a fixed joint and GPIOs that have a position state interface. Four broadcasters with
different parameters publish on local topics; the manager's cycles are stepped by the test.
"""

import math

import pytest
from control_msgs.msg import DynamicJointState
from sensor_msgs.msg import JointState

from py_controllers.realtime_tools import realtime_publisher
from py_controllers.testing import RosHarness, SteppedManager


def _link(name):
    return f'<link name="{name}"/>'


def _joint(name, kind, child):
    limit = '<limit lower="-1" upper="1" velocity="1" effort="1"/>' if kind != 'fixed' else ''
    return (
        f'<joint name="{name}" type="{kind}"><parent link="base"/><child link="{child}"/>'
        f'<axis xyz="0 0 1"/>{limit}</joint>'
    )


def _interfaces(tag, name, *states):
    body = ''.join(f'<state_interface name="{s}"/>' for s in states)
    return f'<{tag} name="{name}">{body}</{tag}>'


# URDF order: zeta, alpha, mount (fixed), mid; ros2_control order: zeta, mid, alpha, then
# the GPIOs io (a prefix that is no URDF joint) and mount (named like the fixed joint: the
# ros2_control tag cannot hold a fixed joint); by name: alpha, mid, zeta
URDF = f"""<?xml version="1.0"?>
<robot name="order_robot">
  {''.join(_link(n) for n in ('base', 'l1', 'l2', 'l3', 'l4'))}
  {_joint('zeta', 'revolute', 'l1')}
  {_joint('alpha', 'prismatic', 'l2')}
  {_joint('mount', 'fixed', 'l3')}
  {_joint('mid', 'continuous', 'l4')}
  <ros2_control name="Order" type="system">
    <hardware><plugin>mock_components/GenericSystem</plugin></hardware>
    {_interfaces('joint', 'zeta', 'position', 'velocity')}
    {_interfaces('joint', 'mid', 'position', 'velocity', 'effort')}
    {_interfaces('joint', 'alpha', 'position')}
    {_interfaces('gpio', 'io', 'position')}
    {_interfaces('gpio', 'mount', 'position')}
  </ros2_control>
</robot>
"""

BROADCASTERS = {
    # name: its parameters (all publish on ~/joint_states)
    'by_urdf': {},
    'unfiltered': {'use_urdf_to_filter': 'false'},
    'listed': {'joints': '[mid, zeta]', 'interfaces': '[position]'},
    'with_extra': {'extra_joints': '[extra, zeta, io, extra, other]'},
}


@pytest.fixture
def states(tmp_path):
    """`states(name)`: the joint names the broadcaster `name` publishes."""
    lines = ['controller_manager:', '  ros__parameters:', '    update_rate: 100']
    for name in BROADCASTERS:
        lines.append(f'    {name}: {{type: joint_state_broadcaster/JointStateBroadcaster}}')
    for name, params in BROADCASTERS.items():
        lines += [f'{name}:', '  ros__parameters:', '    use_local_topics: true']
        lines += [f'    {key}: {value}' for key, value in params.items()]
    params_file = tmp_path / 'broadcasters.yaml'
    params_file.write_text('\n'.join(lines) + '\n')
    harness = RosHarness('jsb_order', args=['--ros-args', '--params-file', str(params_file)])
    cm = SteppedManager(harness, URDF)
    received = {
        name: harness.subscribe(JointState, f'/{name}/joint_states') for name in BROADCASTERS
    }
    controllers = cm.start(*BROADCASTERS)
    assert harness.spin_until(
        lambda: all(c.get_node().count_subscribers('~/joint_states') for c in controllers)
    )

    def names(name):
        assert cm.run_until(lambda: bool(received[name]))
        msg = received[name][-1]
        assert len(msg.position) == len(msg.velocity) == len(msg.effort) == len(msg.name)
        return list(msg.name)

    yield names
    cm.shutdown()
    harness.close()


def test_with_the_urdf_filter_movable_urdf_joints_come_sorted_by_name(states):
    # upstream walks urdf::Model::joints_, a std::map: by name; io (no URDF joint) and
    # mount (a fixed URDF joint) are left out
    assert states('by_urdf') == ['alpha', 'mid', 'zeta']


def test_without_the_filter_the_resource_managers_order(states):
    assert states('unfiltered') == ['zeta', 'mid', 'alpha', 'io', 'mount']


def test_with_joints_and_interfaces_the_order_of_joints(states):
    assert states('listed') == ['mid', 'zeta']


def test_extra_joints_are_appended_once_unless_already_a_prefix(states):
    # zeta is published, io is a claimed prefix (filtered out, still not an extra joint),
    # and extra is listed twice
    assert states('with_extra') == ['alpha', 'mid', 'zeta', 'extra', 'other']


def _stepped_jsb(tmp_path, name, more_params=''):
    """A stepped manager with one broadcaster `jsb` on local topics (`more_params`: more of
    its parameters, YAML lines); (harness, manager)."""
    params_file = tmp_path / 'jsb.yaml'
    params_file.write_text(
        'controller_manager:\n  ros__parameters:\n    update_rate: 100\n'
        '    jsb: {type: joint_state_broadcaster/JointStateBroadcaster}\n'
        'jsb:\n  ros__parameters:\n    use_local_topics: true\n' + more_params
    )
    harness = RosHarness(name, args=['--ros-args', '--params-file', str(params_file)])
    return harness, SteppedManager(harness, URDF, start_ns=5_000_000_000)


def test_values_and_stamp_arrive_on_both_topics(tmp_path):
    """The numbers the loop writes reach a subscriber over DDS: NaN where a joint lacks the
    interface in /joint_states, every interface of every prefix in /dynamic_joint_states."""
    harness, cm = _stepped_jsb(tmp_path, 'jsb_values', '    use_urdf_to_filter: false\n')
    try:
        joint_states = harness.subscribe(JointState, '/jsb/joint_states')
        dynamic = harness.subscribe(DynamicJointState, '/jsb/dynamic_joint_states')
        cm.start('jsb')
        values = {
            'zeta/position': 0.25,
            'zeta/velocity': -0.5,
            'mid/position': 1.5,
            'mid/velocity': 2.0,
            'mid/effort': -3.0,
            'alpha/position': 0.75,
            'io/position': 4.0,
            'mount/position': 5.0,
        }
        for name, value in values.items():
            cm.manager.rm.state_interfaces[name].value = value
        assert cm.run_until(
            lambda: (
                any(m.position[0] == 0.25 for m in joint_states)
                and any(list(m.interface_values[0].values) == [0.25, -0.5] for m in dynamic)
            )
        )
        js = next(m for m in joint_states if m.position[0] == 0.25)
        assert list(js.name) == ['zeta', 'mid', 'alpha', 'io', 'mount']
        assert list(js.position) == [0.25, 1.5, 0.75, 4.0, 5.0]
        assert js.velocity[:2].tolist() == [-0.5, 2.0] and all(map(math.isnan, js.velocity[2:]))
        assert js.effort[1] == -3.0 and math.isnan(js.effort[0]) and math.isnan(js.effort[2])
        assert js.header.stamp.sec >= 5
        dyn = next(m for m in dynamic if list(m.interface_values[0].values) == [0.25, -0.5])
        assert list(dyn.joint_names) == ['zeta', 'mid', 'alpha', 'io', 'mount']
        assert [
            dict(zip(iv.interface_names, iv.values, strict=True)) for iv in dyn.interface_values
        ] == [
            {'position': 0.25, 'velocity': -0.5},
            {'position': 1.5, 'velocity': 2.0, 'effort': -3.0},
            {'position': 0.75},
            {'position': 4.0},
            {'position': 5.0},
        ]
        assert dyn.header.stamp.sec == js.header.stamp.sec
    finally:
        cm.shutdown()
        harness.close()


def test_a_stepped_cycle_hands_its_messages_over_once_it_has_ended(tmp_path):
    """SteppedManager publishes as the loop's thread does: the messages a cycle fills wait
    until the cycle has ended (a publishing thread woken mid-cycle would take the interpreter
    whenever the cycle releases it, and a stepped cycle would not cost what the loop's does)."""
    harness, cm = _stepped_jsb(tmp_path, 'jsb_handover')
    try:
        joint_states = harness.subscribe(JointState, '/jsb/joint_states')
        dynamic = harness.subscribe(DynamicJointState, '/jsb/dynamic_joint_states')
        cm.start('jsb')
        assert cm.run_until(lambda: bool(joint_states) and bool(dynamic))  # both heard
        jsb = cm.manager.controllers['jsb'].controller
        publishers = (jsb._joint_rt, jsb._dynamic_rt)
        cm.step(sent=True)
        before = [rt.published for rt in publishers]
        loop = cm.node.loop
        cycle = loop.cycle
        sent_during_cycle = []

        def cycle_then_look(*args):
            result = cycle(*args)
            # whatever was handed to the publishing thread so far is sent once this returns
            assert realtime_publisher.drain(10.0)
            sent_during_cycle.append([rt.published for rt in publishers])
            return result

        loop.cycle = cycle_then_look
        try:
            cm.step(sent=True)
        finally:
            del loop.cycle
        assert sent_during_cycle == [before]  # held while the cycle ran
        assert [rt.published for rt in publishers] == [n + 1 for n in before]  # sent after it
    finally:
        cm.shutdown()
        harness.close()
