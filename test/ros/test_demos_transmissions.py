"""ros2_control_demos' example 8 brought up as its launch file does: the joints reach their
actuators through simple transmissions (2:1 and 4:1), the actuators move, and the joints
report what the transmissions map back."""

from demos_rig import DemoLaunch, assert_slowdown_law, example, expand_xacro
from std_msgs.msg import Float64MultiArray

NAME = 'rrbot_transmissions_system_position_only'


def test_example_8_transmissions():
    ex = example(8)
    controllers = ex / 'config' / 'rrbot_controllers.yaml'
    urdf = expand_xacro(ex / 'urdf' / f'{NAME}.urdf.xacro', prefix='', slowdown='50.0')
    with DemoLaunch('demo_example_8') as demo:
        manager = demo.start_manager([controllers])
        demo.publish_description(urdf)
        spawned = ['joint_state_broadcaster', 'forward_position_controller']
        demo.spawn(*spawned, '--param-file', str(controllers))
        demo.assert_states(spawned)
        demo.wait_for_joints(['joint1', 'joint2'])
        states = demo.joint_states()
        pub = demo.ros.node.create_publisher(
            Float64MultiArray, '/forward_position_controller/commands', 10
        )
        start = len(states)

        def moved():
            pub.publish(Float64MultiArray(data=[0.5, 0.5]))
            return bool(states) and min(states[-1].position) > 0.05

        assert demo.ros.spin_until(moved, timeout_s=30.0), demo.manager_output()
        # the actuators approach reduction x command by 1/50 a cycle: so do the joints
        assert_slowdown_law(states[start:], ['joint1', 'joint2'], 0.5, 50.0)
        commanded = '\n\tjoint1: 0.5 --> transmission1(R=2) --> actuator1: 1'
        geared = '\n\tjoint2: 0.5 --> transmission2(R=4) --> actuator2: 2'
        demo.wait_logged(manager, commanded, geared, '<-- transmission2(R=4) <-- actuator2: ')
