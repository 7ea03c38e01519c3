"""ros2_control_node started as a Jazzy-or-later launch file starts it: no description given,
robot_state_publisher publishing it latched on `robot_description` (`/robot_description`,
`/<ns>/robot_description` in a namespace), no remap. The Humble convention (a remap of
`~/robot_description`) still works, and the first description to arrive wins.
"""

import pytest
import yaml
from std_msgs.msg import String

from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, latched_qos, run_tool

CONTROLLERS = CONFIG / 'minimal_controllers.yaml'
URDF = (CONFIG / 'minimal_robot.urdf').read_text()
WAIT = ('--controller-manager-timeout', '30')


@pytest.fixture
def ros():
    with RosHarness('robot_state_publisher') as harness:
        yield harness


def publish_description(ros, topic, urdf=URDF):
    """As robot_state_publisher: one latched message (reliable, transient local)."""
    ros.node.create_publisher(String, topic, latched_qos()).publish(String(data=urdf))


def services_of(ros, node, namespace):
    if (node, namespace) not in ros.node.get_node_names_and_namespaces():
        return set()
    return {name for name, _ in ros.node.get_service_names_and_types_by_node(node, namespace)}


def wait_without_services(ros, proc, manager, waiting_line):
    """The manager is up, says what it waits on, and offers none of its services yet."""
    ns, _, name = manager.rpartition('/')
    namespace = ns or '/'
    assert ros.spin_until(lambda: waiting_line in proc.output()), proc.output()
    assert ros.spin_until(lambda: f'{manager}/get_parameters' in services_of(ros, name, namespace))
    assert f'{manager}/list_controllers' not in services_of(ros, name, namespace)


def test_the_description_on_robot_description_brings_the_manager_up(ros):
    with ManagerProcess([CONTROLLERS]) as proc:
        wait_without_services(
            ros,
            proc,
            '/controller_manager',
            "Waiting for data on '/robot_description' or '/controller_manager/robot_description' "
            'topic to finish initialization',
        )
        publish_description(ros, '/robot_description')
        assert ros.manager().list_controllers() == []
        result = run_tool('spawner', 'joint_state_broadcaster', *WAIT)
        assert result.returncode == 0, result.stderr + proc.output()
        states = {c.name: c.state for c in ros.manager().list_controllers()}
        assert states == {'joint_state_broadcaster': 'active'}
        assert "robot description received from topic '/robot_description'" in proc.output()
        assert proc.stop() == 0, proc.output()


def test_in_a_namespace_the_description_is_on_the_namespaced_topic(ros, tmp_path):
    ns = '/robot1'
    sections = yaml.safe_load(CONTROLLERS.read_text())
    params = tmp_path / 'controllers.yaml'
    params.write_text(yaml.safe_dump({f'{ns}/{key}': value for key, value in sections.items()}))
    with ManagerProcess([params], ros_args=['-r', f'__ns:={ns}']) as proc:
        wait_without_services(
            ros,
            proc,
            f'{ns}/controller_manager',
            f"Waiting for data on '{ns}/robot_description' or "
            f"'{ns}/controller_manager/robot_description' topic",
        )
        publish_description(ros, '/robot_description')  # another robot's: not this manager's
        publish_description(ros, f'{ns}/robot_description')
        cm = ros.manager(f'{ns}/controller_manager')
        assert cm.list_controllers() == []
        result = run_tool(
            'spawner', 'forward_position_controller', *WAIT, '--ros-args', '-r', f'__ns:={ns}'
        )
        assert result.returncode == 0, result.stderr + proc.output()
        (fwd,) = cm.list_controllers()
        assert fwd.state == 'active'
        assert list(fwd.claimed_interfaces) == [f'joint{i}/position' for i in (1, 2, 3)]
        assert f"received from topic '{ns}/robot_description'" in proc.output()
        assert proc.stop() == 0, proc.output()


def test_the_humble_remap_still_works_and_the_first_description_wins(ros):
    # a Humble launch file remaps ~/robot_description to where its description is published
    remap = ['-r', '~/robot_description:=/arm/robot_description']
    with ManagerProcess([CONTROLLERS], ros_args=remap) as proc:
        wait_without_services(
            ros,
            proc,
            '/controller_manager',
            "Waiting for data on '/robot_description' or '/arm/robot_description' topic",
        )
        publish_description(ros, '/arm/robot_description')
        (component,) = ros.manager().list_hardware_components()
        assert component.name == 'MinimalSystem'
        # a second description, on the other topic, is logged and ignored
        publish_description(ros, '/robot_description', URDF.replace('MinimalSystem', 'Other'))
        ignored = (
            "robot description received again from topic '/robot_description': ignored "
            "(no reload; the one from topic '/arm/robot_description' is loaded)"
        )
        assert ros.spin_until(lambda: ignored in proc.output()), proc.output()
        assert [c.name for c in ros.manager().list_hardware_components()] == ['MinimalSystem']
        assert proc.stop() == 0, proc.output()


def test_a_humble_remap_onto_robot_description_subscribes_once(ros):
    # in the root namespace the usual Humble remap names upstream's topic: one subscription
    # (the manager named for this test: another test's manager may linger in the graph)
    remap = ['-r', '~/robot_description:=/robot_description', '-r', '__node:=cm_remapped']
    with ManagerProcess([CONTROLLERS], ros_args=remap) as proc:
        waiting = "Waiting for data on '/robot_description' topic to finish initialization"
        wait_without_services(ros, proc, '/cm_remapped', waiting)
        subscribers = ros.node.get_subscriptions_info_by_topic('/robot_description')
        assert [s.node_name for s in subscribers if s.node_name == 'cm_remapped'] == ['cm_remapped']
        publish_description(ros, '/robot_description')
        assert ros.manager('/cm_remapped').list_controllers() == []
        assert 'received again' not in proc.output()
        assert proc.stop() == 0, proc.output()
