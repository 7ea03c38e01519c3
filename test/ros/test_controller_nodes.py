"""Controller nodes are the controllers', whatever the manager is called: ros2_control_node
started under another name (`-r __node:=my_cm`, as a launch file's `name=`) renames only
itself, while its controllers still get its parameter files (upstream creates them with
use_global_arguments(false) and the manager's own arguments). The update rate given as a
parameter is the loop's.
"""

import pytest
import yaml
from rcl_interfaces.srv import GetParameters
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

CONTROLLERS = CONFIG / 'minimal_controllers.yaml'
URDF = CONFIG / 'minimal_robot.urdf'
WAIT = ('--controller-manager-timeout', '30')


@pytest.fixture
def ros():
    with RosHarness('controller_nodes_test') as harness:
        yield harness


def params_for(tmp_path, manager_key, update_rate=None):
    """minimal_controllers.yaml with the manager's section under `manager_key`."""
    sections = yaml.safe_load(CONTROLLERS.read_text())
    manager = sections.pop('controller_manager')
    if update_rate is None:
        del manager['ros__parameters']['update_rate']
    else:
        manager['ros__parameters']['update_rate'] = update_rate
    path = tmp_path / 'controllers.yaml'
    path.write_text(yaml.safe_dump({manager_key: manager, **sections}))
    return path


def get_parameter(cm, name):
    response = cm.call(GetParameters, 'get_parameters', GetParameters.Request(names=[name]))
    (value,) = response.values
    return value


def test_a_renamed_manager_keeps_its_controllers_nodes_their_own(ros, tmp_path):
    params = params_for(tmp_path, 'my_cm')
    with ManagerProcess(
        [params], URDF, params={'update_rate': 50}, ros_args=['-r', '__node:=my_cm']
    ) as proc:
        assert run_tool('spawner', '-c', '/my_cm', 'joint_state_broadcaster', *WAIT).returncode == 0
        remap = ('--controller-ros-args', '-r ~/commands:=/fwd_cmds')
        result = run_tool('spawner', '-c', '/my_cm', 'forward_position_controller', *remap, *WAIT)
        assert result.returncode == 0, result.stderr + proc.output()

        def names():  # other tests' processes may linger in the graph for a moment
            return [n for n, ns in ros.node.get_node_names_and_namespaces() if ns == '/']

        def own_names():  # before: three nodes named my_cm, no controller node
            found = names()
            mine = {'joint_state_broadcaster', 'forward_position_controller'}
            return found.count('my_cm') == 1 and mine <= set(found)

        assert ros.spin_until(own_names), names()

        cm = ros.manager('/my_cm')
        by_name = {c.name: c for c in cm.list_controllers()}
        assert {name: c.state for name, c in by_name.items()} == {
            'joint_state_broadcaster': 'active',
            'forward_position_controller': 'active',
        }
        # its joints came from the manager's parameter file, keyed by the controller's name
        fwd = by_name['forward_position_controller']
        assert list(fwd.claimed_interfaces) == [f'joint{i}/position' for i in (1, 2, 3)]
        # -p update_rate:=50 is the manager's rate (and its controllers', as upstream's)
        assert cm.statistics()['update_rate_hz'] == 50
        assert fwd.update_rate == 50

        # SetParameters on /my_cm reaches the manager (there is one node of that name)
        cm.set_parameters({'extra_controller.type': 'x/Y'})
        assert get_parameter(cm, 'extra_controller.type').string_value == 'x/Y'
        assert get_parameter(cm, 'update_rate').integer_value == 50

        # --controller-ros-args still reach the controller node: it listens on /fwd_cmds
        states = ros.subscribe(JointState, '/joint_states')
        pub = ros.node.create_publisher(Float64MultiArray, '/fwd_cmds', 10)

        def moved():
            pub.publish(Float64MultiArray(data=[0.1, 0.2, 0.3]))
            return bool(states) and list(states[-1].position) == pytest.approx([0.1, 0.2, 0.3])

        assert ros.spin_until(moved), proc.output()
        assert proc.stop() == 0, proc.output()


def test_the_update_rate_in_the_parameter_file_is_the_loops(ros, tmp_path):
    params = params_for(tmp_path, 'controller_manager', update_rate=40)
    with ManagerProcess([params], URDF) as proc:
        result = run_tool('spawner', 'joint_state_broadcaster', *WAIT)
        assert result.returncode == 0, result.stderr + proc.output()
        cm = ros.manager()
        assert cm.statistics()['update_rate_hz'] == 40
        (jsb,) = cm.list_controllers()
        assert jsb.update_rate == 40
        assert 'control loop running at 40 Hz' in proc.output()
        assert proc.stop() == 0, proc.output()
