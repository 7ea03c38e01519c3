"""joint_state_broadcaster: the joint order of /joint_states and extra_joints, as upstream.

A mock robot whose URDF, ros2_control tag and joint names are in three different orders,
with a fixed joint and GPIOs that have a position state interface. Four broadcasters with
different parameters publish on local topics; the manager's cycles are stepped by the test.
"""

import pytest
from sensor_msgs.msg import JointState

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
