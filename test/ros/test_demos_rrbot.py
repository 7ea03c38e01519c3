"""ros2_control_demos' RRBot examples (1, 3, 4, 5, 6, 10, 12) brought up as their launch
files do, with our ros2_control_node and the demo plugins of examples/ros2_control_demos,
checked as their launch tests check them, plus the hardware's own law of motion."""

import itertools

from demos_rig import (
    DemoLaunch,
    assert_slowdown_law,
    example,
    expand_xacro,
    node_parameters,
    position_of,
    substituted,
)
from std_msgs.msg import Float64MultiArray


def test_example_1_position_only_rrbot(tmp_path):
    ex = example(1)
    controllers = ex / 'config' / 'rrbot_controllers.yaml'
    with DemoLaunch('demo_example_1') as demo:
        manager = demo.start_manager([], params={'update_rate': 10})
        demo.publish_description(
            expand_xacro(ex / 'urdf' / 'rrbot.urdf.xacro'), keep_waits=('stop',)
        )
        demo.spawn('joint_state_broadcaster', '--param-file', str(controllers))
        # the second spawner takes its file as node parameters, `$(var joint_prefix)` resolved
        demo.spawn(
            'forward_position_controller',
            ros_args=[
                '--params-file',
                str(node_parameters(tmp_path, 'spawner_fpc', {'joint_prefix': 'joint'})),
                '--params-file',
                str(substituted(controllers, tmp_path, joint_prefix='joint')),
            ],
        )
        demo.assert_states(['forward_position_controller', 'joint_state_broadcaster'])
        demo.wait_for_joints(['joint1', 'joint2'])
        demo.wait_logged(manager, 'Robot hardware_component update_rate is 10Hz')

        # movement (ros2_control_demo_test_utils' test_forward_command): 0.5 on both joints
        states = demo.joint_states()
        start = len(states)
        pub = demo.ros.node.create_publisher(
            Float64MultiArray, '/forward_position_controller/commands', 10
        )

        def moved():
            pub.publish(Float64MultiArray(data=[0.5, 0.5]))
            return bool(states) and all(
                position_of(states[-1], j) > 0.1 for j in ('joint1', 'joint2')
            )

        assert demo.ros.spin_until(moved, timeout_s=30.0), demo.manager_output()
        assert_slowdown_law(states[start:], ['joint1', 'joint2'], 0.5, 100.0)
        demo.wait_logged(manager, 'Writing commands:\n\t0.50 for joint ')

        # `ros2 control load_controller --set-state inactive` then `switch_controllers`
        demo.spawn(
            'joint_trajectory_position_controller',
            '--param-file',
            str(ex / 'config' / 'rrbot_jtc.yaml'),
            '--inactive',
        )
        demo.assert_states(['joint_trajectory_position_controller'], 'inactive')
        demo.assert_states(['forward_position_controller'], 'active')
        ok, message = demo.ros.manager().switch_controllers(
            ['joint_trajectory_position_controller'], ['forward_position_controller']
        )
        assert ok, message
        demo.assert_states(['forward_position_controller'], 'inactive')
        demo.assert_states(['joint_trajectory_position_controller'], 'active')
    # Ctrl-C: the hardware's on_deactivate counts its 3 s down, and then the manager exits 0
    out = manager.output()
    after = out[out.index('stopping the robot and shutting down') :]
    lines = [f'{s}.0 seconds left...' for s in (3, 2, 1)] + ['Successfully deactivated!']
    assert all(line in after for line in lines), after
    at = [after.index(line) for line in lines]
    assert at == sorted(at), after


def forward(demo, controller, values):
    """A publisher that sends `values` to `controller`'s ~/commands each time it is called."""
    pub = demo.ros.node.create_publisher(Float64MultiArray, f'/{controller}/commands', 10)
    return lambda: pub.publish(Float64MultiArray(data=list(values)))


def test_example_3_multi_interface_rrbot():
    ex = example(3)
    controllers = ex / 'config' / 'rrbot_multi_interface_forward_controllers.yaml'
    urdf = expand_xacro(
        ex / 'urdf' / 'rrbot_system_multi_interface.urdf.xacro',
        prefix='',
        use_mock_hardware='false',
        mock_sensor_commands='false',
        slowdown='50.0',
    )
    with DemoLaunch('demo_example_3') as demo:
        manager = demo.start_manager([controllers])
        demo.publish_description(urdf)
        demo.spawn(
            'joint_state_broadcaster',
            'forward_velocity_controller',
            '--param-file',
            str(controllers),
        )
        demo.assert_states(['joint_state_broadcaster', 'forward_velocity_controller'])
        demo.wait_for_joints(['joint1', 'joint2'])

        # velocity mode: the velocity state is the command (reached at the acceleration
        # limit the `acceleration` interface's max gives), the position integrates it / 50
        states = demo.joint_states()
        send = forward(demo, 'forward_velocity_controller', [0.5, -0.5])
        start = len(states)

        def cruising():
            send()
            return len(states) > start and list(states[-1].velocity) == [0.5, -0.5]

        assert demo.ros.spin_until(cruising, timeout_s=30.0), demo.manager_output()
        first = states[-1]
        seen = len(states)
        assert demo.ros.spin_until(lambda: send() or len(states) > seen + 20, timeout_s=30.0)
        last = states[-1]
        assert list(last.velocity) == [0.5, -0.5]
        dt = (last.header.stamp.sec - first.header.stamp.sec) + (
            last.header.stamp.nanosec - first.header.stamp.nanosec
        ) * 1e-9
        rate = (position_of(last, 'joint1') - position_of(first, 'joint1')) / dt
        assert abs(rate - 0.5 / 50.0) < 0.1 * 0.5 / 50.0, rate  # 10 %: stamps vs periods
        assert position_of(last, 'joint2') == -position_of(last, 'joint1')

        # every joint must switch mode at once: one joint alone is refused by the hardware,
        # and so is leaving the joints without a mode
        demo.spawn('forward_illegal1_controller', '--param-file', str(controllers), '--inactive')
        for start, stop in (
            (['forward_illegal1_controller'], []),
            (['forward_illegal1_controller'], ['forward_velocity_controller']),
            ([], ['forward_velocity_controller']),
        ):
            ok, message = demo.ros.manager().switch_controllers(start, stop)
            assert not ok and 'refused the command mode switch' in message, (start, stop, message)
        # refused by the hardware's rules, each time (not by an error in it)
        assert demo.ros.spin_until(
            lambda: manager.output().count('prepare_command_mode_switch refused') >= 3
        ), manager.output()
        assert 'prepare_command_mode_switch raised' not in manager.output()
        demo.assert_states(['forward_velocity_controller'], 'active')

        # velocity -> position in one switch: the joints stop and go to the position (the
        # command ramped by the acceleration limit from the measured velocity, which this
        # hardware reports as 0 in position mode: 0.01 rad/s at 100 Hz). The goal is 0.05 rad
        # on from where the joints are: the velocity mode moves them 0.01 rad/s until the
        # switch, and on a loaded host (h32, two busy loops) the steps above took long enough
        # for a fixed 0.05 to be passed already, so a velocity-mode state 'arrived'.
        demo.spawn('forward_position_controller', '--param-file', str(controllers), '--inactive')
        goal = [position_of(states[-1], 'joint1') + 0.05, position_of(states[-1], 'joint2') - 0.05]
        ok, message = demo.ros.manager().switch_controllers(
            ['forward_position_controller'], ['forward_velocity_controller']
        )
        assert ok, message
        demo.assert_states(['forward_position_controller'], 'active')
        send = forward(demo, 'forward_position_controller', goal)
        start = len(states)

        def arrived():
            send()
            return (
                len(states) > start
                and position_of(states[-1], 'joint1') > goal[0] - 0.001
                and position_of(states[-1], 'joint2') < goal[1] + 0.001
            )

        assert demo.ros.spin_until(arrived, timeout_s=30.0), demo.manager_output()
        path = [position_of(m, 'joint1') for m in states[start:]]
        assert all(b >= a for a, b in itertools.pairwise(path)), path  # straight there
        # states the broadcaster sent before the switch can still be arriving: they carry
        # the velocity mode's [0.5, -0.5]; from the first position-mode state on, this
        # hardware reports velocity 0 and nothing else
        velocities = [list(m.velocity) for m in states[start:]]
        switched = next((i for i, v in enumerate(velocities) if v != [0.5, -0.5]), None)
        assert switched is not None, velocities
        assert all(v == [0.0, 0.0] for v in velocities[switched:]), velocities
        # write()'s line, every 0.5 s
        demo.wait_logged(manager, 'control lvl: 1')


def test_example_6_modular_actuators():
    ex = example(6)
    controllers = ex / 'config' / 'rrbot_modular_actuators.yaml'
    with DemoLaunch('demo_example_6') as demo:
        manager = demo.start_manager([controllers])
        demo.publish_description(
            expand_xacro(ex / 'urdf' / 'rrbot_modular_actuators.urdf.xacro'), keep_waits=('start',)
        )
        demo.spawn(
            'joint_state_broadcaster',
            'forward_position_controller',
            '--param-file',
            str(controllers),
        )
        demo.assert_states(['joint_state_broadcaster', 'forward_position_controller'])
        demo.wait_for_joints(['joint1', 'joint2'])
        # two components, each waited 2 s in on_configure and 2 s in on_activate
        demo.wait_logged(manager, 'Successfully activated!')
        out = manager.output()
        assert out.count('2.0 seconds left...') == 4 and out.count('1.0 seconds left...') == 4, out
        assert out.count('Successfully activated!') == 2

        states = demo.joint_states()
        send = forward(demo, 'forward_position_controller', [0.5, 0.25])
        start = len(states)

        def arrived():
            send()
            return bool(states) and abs(position_of(states[-1], 'joint2') - 0.25) < 1e-3

        assert demo.ros.spin_until(arrived, timeout_s=30.0), demo.manager_output()
        # slowdown 2: each read halves the way left (joint1 and joint2 with their own targets)
        moving = states[start:]
        assert_slowdown_law(moving, ['joint1'], 0.5, 2.0)
        assert_slowdown_law(moving, ['joint2'], 0.25, 2.0)
        demo.wait_logged(manager, "Writing commands:\n\t0.50 for joint 'joint1/position'")


def test_example_12_chained_passthrough_controllers():
    ex = example(12)
    controllers = ex / 'config' / 'rrbot_chained_controllers.yaml'
    with DemoLaunch('demo_example_12') as demo:
        demo.start_manager([controllers])
        demo.publish_description(expand_xacro(ex / 'urdf' / 'rrbot.urdf.xacro'))
        demo.spawn(
            'joint_state_broadcaster',
            'joint1_position_controller',
            'joint2_position_controller',
            '--param-file',
            str(controllers),
        )
        passthroughs = ['joint1_position_controller', 'joint2_position_controller']
        demo.assert_states(['joint_state_broadcaster', *passthroughs])
        demo.wait_for_joints(['joint1', 'joint2'])
        states = demo.joint_states()

        # not chained: each passthrough takes its own ~/commands
        send = forward(demo, 'joint1_position_controller', [0.3])

        def joint1_moved():
            send()
            return bool(states) and position_of(states[-1], 'joint1') > 0.01

        assert demo.ros.spin_until(joint1_moved, timeout_s=30.0), demo.manager_output()
        # a message of the wrong size is refused (joint2 stays where it is)
        wrong = forward(demo, 'joint2_position_controller', [0.1, 0.1])
        seen = len(states)

        def five_more():
            wrong()
            return len(states) >= seen + 5

        assert demo.ros.spin_until(five_more, timeout_s=30.0)
        assert position_of(states[-1], 'joint2') == 0.0

        # launch_chained_controllers.launch.py: the second and third levels
        demo.spawn(
            'position_controller', 'forward_position_controller', '--param-file', str(controllers)
        )
        demo.assert_states(['position_controller', 'forward_position_controller', *passthroughs])
        listed = {c.name: c for c in demo.ros.manager().list_controllers()}
        assert listed['position_controller'].is_chained
        assert all(listed[p].is_chained for p in passthroughs)
        assert list(listed['forward_position_controller'].claimed_interfaces) == [
            'position_controller/joint1_position_controller/joint1/position',
            'position_controller/joint2_position_controller/joint2/position',
        ]
        # what `ros2 control view_controller_chains` draws: each controller's chain
        # connections (the controllers it commands, through which reference interfaces)
        chains = {
            name: {cc.name: list(cc.reference_interfaces) for cc in c.chain_connections}
            for name, c in listed.items()
        }
        assert chains['forward_position_controller'] == {
            'position_controller': list(listed['forward_position_controller'].claimed_interfaces)
        }
        assert set(chains['position_controller']) == set(passthroughs)
        for passthrough, references in chains['position_controller'].items():
            assert references and all(r.startswith(f'{passthrough}/') for r in references)
            assert set(references) <= set(listed[passthrough].reference_interfaces)
        assert all(chains[p] == {} for p in passthroughs)  # they command the hardware

        send = forward(demo, 'forward_position_controller', [-0.4, 0.4])
        start = len(states)

        def moved():
            send()
            return position_of(states[-1], 'joint2') > 0.1

        assert demo.ros.spin_until(moved, timeout_s=40.0), demo.manager_output()
        assert_slowdown_law(states[start:], ['joint2'], 0.4, 100.0)
        assert position_of(states[-1], 'joint1') < 0.3  # on its way from 0.3 down to -0.4


def test_example_9_rrbot_without_gazebo_at_1khz():
    ex = example(9)
    controllers = ex / 'config' / 'rrbot_controllers.yaml'
    with DemoLaunch('demo_example_9') as demo:
        demo.start_manager([controllers])
        demo.publish_description(expand_xacro(ex / 'urdf' / 'rrbot.urdf.xacro'))
        demo.spawn(
            'joint_state_broadcaster',
            'forward_position_controller',
            '--param-file',
            str(controllers),
        )
        demo.assert_states(['forward_position_controller', 'joint_state_broadcaster'])
        demo.wait_for_joints(['joint1', 'joint2'])
        states = demo.joint_states()
        send = forward(demo, 'forward_position_controller', [0.5, -0.5])
        start = len(states)

        def arrived():
            send()
            return bool(states) and abs(position_of(states[-1], 'joint1') - 0.5) < 1e-3

        assert demo.ros.spin_until(arrived, timeout_s=30.0), demo.manager_output()
        assert_slowdown_law(states[start:], ['joint1'], 0.5, 100.0)
        assert_slowdown_law(states[start:], ['joint2'], -0.5, 100.0)


def test_example_9_gazebo_hardware_is_refused_pointing_to_mujoco():
    ex = example(9)
    controllers = ex / 'config' / 'rrbot_controllers.yaml'
    with DemoLaunch('demo_example_9_gazebo') as demo:
        manager = demo.start_manager([controllers])
        demo.publish_description(expand_xacro(ex / 'urdf' / 'rrbot.urdf.xacro', use_gazebo='true'))
        refusal = 'gz_ros2_control/GazeboSimSystem is not available in py_controllers'
        assert demo.ros.spin_until(lambda: refusal in manager.output(), timeout_s=30.0)
        demo.wait_logged(manager, 'invalid robot description')
        line = next(x for x in manager.output().splitlines() if refusal in x)
        assert 'py_controllers/MujocoSystem' in line and 'docs/mujoco.md' in line
