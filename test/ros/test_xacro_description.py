"""ros2_control_node with `robot_description_file:=robot.urdf.xacro`: expanded by xacro with
`robot_description_xacro_args` (its `$(find py_controllers)` include through the ament index
of the virtual environment); xacro arguments without a xacro file refuse to start; the
dashboard draws the same expanded robot."""

import asyncio

from py_controllers.dashboard.manager_watch import ManagerWatch
from py_controllers.dashboard.ros_bridge import RosBridge
from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

CONTROLLERS = CONFIG / 'minimal_controllers.yaml'


def test_a_xacro_file_with_arguments_is_the_robot():
    args = {'robot_description_xacro_args': 'prefix:=left_ calculate_dynamics:=true'}
    with (
        ManagerProcess([CONTROLLERS], CONFIG / 'minimal_robot.urdf.xacro', params=args) as proc,
        RosHarness('xacro_test') as ros,
    ):
        cm = ros.manager()
        commands, _ = cm.list_hardware_interfaces()
        assert sorted(i.name for i in commands) == [
            f'left_joint{j}/{kind}' for j in (1, 2, 3) for kind in ('position', 'velocity')
        ]
        result = run_tool(
            'spawner', 'joint_state_broadcaster', '--controller-manager-timeout', '30'
        )
        assert result.returncode == 0, result.stderr + proc.output()
        assert [c.state for c in cm.list_controllers()] == ['active']

        # the dashboard reads the manager's parameters and expands the same file
        bridge = RosBridge(node_name='xacro_dashboard')
        bridge.start()
        try:
            watch = ManagerWatch(bridge, '/controller_manager')

            def described() -> bool:
                asyncio.run(watch.refresh())
                return bool(watch.state.description)

            assert ros.spin_until(described, 30.0), watch.state.description_source
            assert watch.state.description_source == str(CONFIG / 'minimal_robot.urdf.xacro')
            assert sorted(watch.state.ranges) == ['left_joint1', 'left_joint2', 'left_joint3']
        finally:
            bridge.close()
        assert proc.stop() == 0, proc.output()


def test_xacro_arguments_without_a_xacro_file_refuse_to_start():
    args = {'robot_description_xacro_args': 'prefix:=left_'}
    with ManagerProcess([CONTROLLERS], CONFIG / 'minimal_robot.urdf', params=args) as proc:
        assert proc.process.wait(timeout=60) == 1
        assert (
            "parameter 'robot_description_xacro_args' is for a .xacro robot_description_file, "
            f"but '{CONFIG / 'minimal_robot.urdf'}' is not a .xacro file"
        ) in proc.output()
