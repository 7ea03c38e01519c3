"""ros2_control_demos' multi-robot examples brought up as their launch files do: example 13
(three robots on one manager, hardware components started unconfigured and inactive, then
driven through their lifecycle) and example 15 (a robot in a namespace; two managers)."""

import subprocess

from demos_rig import DemoLaunch, example, expand_xacro, position_of, stamped_since
from std_msgs.msg import Float64MultiArray

from py_controllers.child_process import ChildProcess
from py_controllers.testing import BIN


class CommandPublisher(ChildProcess):
    """publisher_forward_position_controller as the launch files start it: a node name,
    maybe a namespace, and the example's parameter file."""

    def __init__(self, params_file, name=None, namespace=None):
        ros_args = ['--params-file', str(params_file)]
        if name:
            ros_args += ['-r', f'__node:={name}']
        if namespace:
            ros_args += ['-r', f'__ns:=/{namespace}']
        self.process = subprocess.Popen(
            [str(BIN / 'publisher_forward_position_controller'), '--ros-args', *ros_args],
            stdout=self._open_log(),
            stderr=subprocess.STDOUT,
        )


def spawner_args(controllers, params_file, *extra):
    """controller_manager.launch_utils' generate_controllers_spawner_launch_description."""
    return [
        *controllers,
        '--controller-manager',
        'controller_manager',
        '--param-file',
        str(params_file),
        *extra,
    ]


def test_example_13_three_robots_through_their_lifecycle():
    ex = example(13)
    controllers = ex / 'config' / 'three_robots_controllers.yaml'
    publishers = ex / 'config' / 'three_robots_position_command_publishers.yaml'
    with DemoLaunch('demo_example_13') as demo:
        demo.start_manager([controllers])
        demo.publish_description(
            expand_xacro(ex / 'urdf' / 'three_robots.urdf.xacro', slowdown='50.0')
        )
        cm = demo.ros.manager()
        demo.spawn(
            *spawner_args(
                [
                    'joint_state_broadcaster',
                    'rrbot_joint_state_broadcaster',
                    'rrbot_position_controller',
                    'rrbot_external_fts_broadcaster',
                ],
                controllers,
            )
        )
        demo.spawn(
            *spawner_args(
                ['rrbot_with_sensor_joint_state_broadcaster', 'rrbot_with_sensor_fts_broadcaster'],
                controllers,
            )
        )
        demo.spawn(
            *spawner_args(['rrbot_with_sensor_position_controller'], controllers, '--inactive')
        )
        threedofbot = [
            'threedofbot_joint_state_broadcaster',
            'threedofbot_position_controller',
            'threedofbot_pid_gain_controller',
        ]
        demo.spawn(*spawner_args(threedofbot, controllers, '--inactive'))
        with (
            CommandPublisher(publishers, 'rrbot_position_command_publisher'),
            CommandPublisher(publishers, 'threedofbot_position_command_publisher'),
        ):
            # --- the initial configuration
            demo.assert_states(
                [
                    'joint_state_broadcaster',
                    'rrbot_external_fts_broadcaster',
                    'rrbot_position_controller',
                    'rrbot_with_sensor_joint_state_broadcaster',
                    'rrbot_with_sensor_fts_broadcaster',
                ]
            )
            demo.assert_states(['rrbot_with_sensor_position_controller', *threedofbot], 'inactive')
            rrbots = [
                'rrbot_with_sensor_joint1',
                'rrbot_joint1',
                'rrbot_with_sensor_joint2',
                'rrbot_joint2',
            ]
            first = demo.wait_for_joints(rrbots)
            assert not any(n.startswith('threedofbot') for n in first.name)
            states = {c.name: c.state.label for c in cm.list_hardware_components()}
            assert states == {
                'RRBotSystemPositionOnly': 'active',
                'ExternalRRBotFTSensor': 'active',
                'RRBotSystemWithSensor': 'inactive',
                'FakeThreeDofBot': 'unconfigured',
            }

            # --- the second robot's hardware and controller active
            assert cm.set_hardware_component_state('RRBotSystemWithSensor', 'active')[0]
            assert cm.switch_controllers(['rrbot_with_sensor_position_controller'], [])[0]
            demo.assert_states(
                ['rrbot_joint_state_broadcaster', 'rrbot_with_sensor_position_controller']
            )

            # --- FakeThreeDofBot configured, its broadcaster active
            assert cm.set_hardware_component_state('FakeThreeDofBot', 'inactive')[0]
            assert cm.switch_controllers(['threedofbot_joint_state_broadcaster'], [])[0]
            demo.assert_states(['threedofbot_joint_state_broadcaster'])

            # --- the global broadcaster restarted: now with the third robot's joints
            assert cm.switch_controllers([], ['joint_state_broadcaster'])[0]
            assert cm.switch_controllers(['joint_state_broadcaster'], [])[0]
            demo.wait_for_joints(
                [*rrbots, 'threedofbot_joint1', 'threedofbot_joint2', 'threedofbot_joint3']
            )

            # --- FakeThreeDofBot active with its controllers: its publisher's goals arrive
            assert cm.set_hardware_component_state('FakeThreeDofBot', 'active')[0]
            assert cm.switch_controllers(threedofbot[1:], [])[0]
            demo.assert_states(threedofbot)
            goals = {0.785, 0.0, -0.785}
            local = demo.joint_states('/threedofbot_joint_state_broadcaster/joint_states')
            assert demo.ros.spin_until(
                lambda: (
                    bool(local) and position_of(local[-1], 'threedofbot_joint1') in goals - {0.0}
                ),
                timeout_s=30.0,
            ), demo.manager_output()
            # the RRBot followed its publisher's first goal (slowdown 50 at 100 Hz)
            rrbot = demo.joint_states('/rrbot_joint_state_broadcaster/joint_states')
            assert demo.ros.spin_until(
                lambda: bool(rrbot) and position_of(rrbot[-1], 'rrbot_joint1') > 0.5, timeout_s=30.0
            ), demo.manager_output()

            # --- RRBotSystemPositionOnly: its controller off, the component inactive
            assert cm.switch_controllers([], ['rrbot_position_controller'])[0]
            assert cm.set_hardware_component_state('RRBotSystemPositionOnly', 'inactive')[0]
            demo.assert_states(['rrbot_joint_state_broadcaster', 'rrbot_external_fts_broadcaster'])
            demo.assert_states(['rrbot_position_controller'], 'inactive')

            # --- ... then unconfigured, with the broadcasters that read it restarted
            assert cm.switch_controllers(
                [], ['rrbot_joint_state_broadcaster', 'joint_state_broadcaster']
            )[0]
            assert cm.set_hardware_component_state('RRBotSystemPositionOnly', 'unconfigured')[0]
            assert cm.switch_controllers(['joint_state_broadcaster'], [])[0]
            # what the broadcaster published before its restart can still be on its way on a
            # loaded host: only messages stamped after the restart count
            restarted_ns = demo.ros.node.get_clock().now().nanoseconds
            demo.assert_states(
                [
                    'joint_state_broadcaster',
                    'rrbot_external_fts_broadcaster',
                    'rrbot_with_sensor_joint_state_broadcaster',
                    'rrbot_with_sensor_fts_broadcaster',
                    'rrbot_with_sensor_position_controller',
                    *threedofbot,
                ]
            )
            remaining = [
                'rrbot_with_sensor_joint1',
                'rrbot_with_sensor_joint2',
                'threedofbot_joint1',
                'threedofbot_joint2',
                'threedofbot_joint3',
            ]
            received = demo.joint_states()
            assert demo.ros.spin_until(lambda: len(stamped_since(received, restarted_ns)) >= 2), (
                demo.manager_output()
            )
            for message in stamped_since(received, restarted_ns):
                assert set(remaining) <= set(message.name)
                assert 'rrbot_joint1' not in message.name


def test_example_15_robot_in_a_namespace():
    ex1, ex15 = example(1), example(15)
    controllers = ex15 / 'config' / 'rrbot_namespace_controllers.yaml'
    with DemoLaunch('demo_example_15_ns') as demo:
        demo.start_manager([controllers], namespace='/rrbot')
        demo.publish_description(
            expand_xacro(ex1 / 'urdf' / 'rrbot.urdf.xacro'), namespace='/rrbot'
        )
        demo.spawn(
            'joint_state_broadcaster',
            'forward_position_controller',
            '--param-file',
            str(controllers),
            '--controller-ros-args',
            '-r forward_position_controller/commands:=/position_commands',
            namespace='rrbot',
        )
        demo.spawn(
            'position_trajectory_controller',
            '--inactive',
            '--param-file',
            str(controllers),
            namespace='rrbot',
        )
        manager = '/rrbot/controller_manager'
        demo.assert_states(
            ['forward_position_controller', 'joint_state_broadcaster'], manager=manager
        )
        demo.assert_states(['position_trajectory_controller'], 'inactive', manager=manager)
        states = demo.joint_states('/rrbot/joint_states')
        demo.wait_for_joints(['joint1', 'joint2'], topic='/rrbot/joint_states')

        # the forward controller listens on the remapped /position_commands
        pub = demo.ros.node.create_publisher(Float64MultiArray, '/position_commands', 10)

        def moved():
            pub.publish(Float64MultiArray(data=[0.5, 0.5]))
            return position_of(states[-1], 'joint1') > 0.05

        assert demo.ros.spin_until(moved, timeout_s=30.0), demo.manager_output()


def test_example_15_two_managers():
    robot_controller = 'forward_position_controller'  # the launch file's default
    ex15 = example(15)
    generic = ex15 / 'config' / 'multi_controller_manager_rrbot_generic_controllers.yaml'
    publishers = ex15 / 'config' / 'multi_controller_manager_forward_position_publisher.yaml'
    robots = {
        'rrbot_1': expand_xacro(example(1) / 'urdf' / 'rrbot.urdf.xacro', prefix='rrbot_1_'),
        'rrbot_2': expand_xacro(
            example(5) / 'urdf' / 'rrbot_system_with_external_sensor.urdf.xacro',
            prefix='rrbot_2_',
            use_mock_hardware='false',
            mock_sensor_commands='false',
            slowdown='50.0',
        ),
    }
    with DemoLaunch('demo_example_15_multi') as demo:
        for ns, urdf in robots.items():  # rrbot_base.launch.py, once per robot
            demo.start_manager([generic], namespace=f'/{ns}')
            demo.publish_description(urdf, namespace=f'/{ns}')
            demo.spawn(
                'joint_state_broadcaster',
                robot_controller,
                '-c',
                f'/{ns}/controller_manager',
                '--param-file',
                str(generic),
                namespace=ns,
            )
        for ns in robots:
            demo.spawn(
                'position_trajectory_controller',
                '--inactive',
                '--param-file',
                str(generic),
                namespace=ns,
            )
        for ns in robots:
            manager = f'/{ns}/controller_manager'
            demo.assert_states([robot_controller, 'joint_state_broadcaster'], manager=manager)
            demo.assert_states(['position_trajectory_controller'], 'inactive', manager=manager)
            demo.wait_for_joints([f'{ns}_joint1', f'{ns}_joint2'], topic=f'/{ns}/joint_states')

        # test_multi_controller_manager_forward_position_controller.launch.py: the first goals
        with (
            CommandPublisher(publishers, 'publisher_forward_position_controller', 'rrbot_1'),
            CommandPublisher(publishers, 'publisher_forward_position_controller', 'rrbot_2'),
        ):
            one = demo.joint_states('/rrbot_1/joint_states')
            two = demo.joint_states('/rrbot_2/joint_states')

            def both_moved():
                return (
                    position_of(one[-1], 'rrbot_1_joint1') > 0.05
                    and position_of(two[-1], 'rrbot_2_joint1') < -0.05
                    and position_of(two[-1], 'rrbot_2_joint2') == 0.0
                )

            assert demo.ros.spin_until(both_moved, timeout_s=40.0), demo.manager_output()
