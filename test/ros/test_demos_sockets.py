"""ros2_control_demos' example 14 brought up as its launch file does: two velocity actuators
without feedback send their commands over TCP to two position sensors, which integrate them;
the joints' positions come only from the sensors."""

import socket

from demos_rig import DemoLaunch, example, expand_xacro, position_of
from std_msgs.msg import Float64MultiArray

from py_controllers.testing import stamp_ns

NAME = 'rrbot_modular_actuators_without_feedback_sensors_for_position_feedback'


def free_ports(count):
    """Ports nobody listens on now (the upstream URDF fixes 23286 and 23287)."""
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(('127.0.0.1', 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def stamp_s(msg):
    return stamp_ns(msg) * 1e-9


def test_example_14_actuators_and_sensors_over_sockets():
    ex = example(14)
    controllers = ex / 'config' / f'{NAME}.yaml'
    port1, port2 = free_ports(2)
    urdf = expand_xacro(
        ex / 'urdf' / f'{NAME}.urdf.xacro', prefix='', slowdown='50.0', port1=port1, port2=port2
    )
    with DemoLaunch('demo_example_14') as demo:
        manager = demo.start_manager([controllers])
        demo.publish_description(urdf)
        demo.spawn(
            'joint_state_broadcaster',
            'forward_velocity_controller',
            '--param-file',
            str(controllers),
        )
        demo.assert_states(['forward_velocity_controller', 'joint_state_broadcaster'])
        demo.wait_for_joints(['joint1', 'joint2'])
        demo.wait_logged(
            manager,
            f'Successfully connected to port {port1}.',
            f'Successfully connected to port {port2}.',
        )
        assert demo.ros.spin_until(lambda: manager.output().count('Accepting on socket.') == 2)

        # 0.5 and -0.5 rad/s sent over the sockets; each sensor integrates what it receives / 50
        states = demo.joint_states()
        pub = demo.ros.node.create_publisher(
            Float64MultiArray, '/forward_velocity_controller/commands', 10
        )
        start = len(states)

        def moved():
            pub.publish(Float64MultiArray(data=[0.5, -0.5]))
            return len(states) > start + 5 and position_of(states[-1], 'joint1') > 0.005

        assert demo.ros.spin_until(moved, timeout_s=30.0), demo.manager_output()
        demo.wait_logged(
            manager,
            'Sending data command: 0.5\n',
            'Got measured velocity 0.50',
            'Got measured velocity -0.50',
        )
        first = next(m for m in states[start:] if position_of(m, 'joint1') > 0.0)
        seen = len(states)
        assert demo.ros.spin_until(
            lambda: pub.publish(Float64MultiArray(data=[0.5, -0.5])) or len(states) > seen + 10
        )
        last = states[-1]
        rate = (position_of(last, 'joint1') - position_of(first, 'joint1')) / (
            stamp_s(last) - stamp_s(first)
        )
        assert abs(rate - 0.5 / 50.0) < 0.2 * 0.5 / 50.0, (
            rate
        )  # 20 %: the sensor times its own reads
        assert position_of(last, 'joint2') < 0.0
