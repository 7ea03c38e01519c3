"""ros2_control_demos' examples with sensors and GPIOs (4, 5, 10) brought up as their launch
files do: the fake readings are upstream's random numbers, exactly, and GPIO commands come
back as states."""

import math

from control_msgs.msg import DynamicInterfaceGroupValues, InterfaceValue
from demos_rig import DemoLaunch, example, expand_xacro
from geometry_msgs.msg import WrenchStamped
from ros2_control_demos_py.common import MinstdRand, uniform_from_time


def seconds_read(stamp):
    """The seconds `time(NULL)` may have given in the cycle stamped `stamp`: its own, and the
    neighbouring one when the stamp is within 0.1 s of the turn of a second."""
    seconds = {stamp.sec}
    if stamp.nanosec < 100_000_000:
        seconds.add(stamp.sec - 1)
    if stamp.nanosec > 900_000_000:
        seconds.add(stamp.sec + 1)
    return seconds


def assert_upstream_readings(values, stamp, upper=5.0):
    """Each value is upstream's reading of its interface index for the second it was read."""
    for index, value in enumerate(values):
        candidates = {uniform_from_time(index, upper, s) for s in seconds_read(stamp)}
        assert value in candidates, (index, value, candidates)
        assert 0.0 <= value < upper


def wrench_values(msg):
    f, t = msg.wrench.force, msg.wrench.torque
    return [f.x, f.y, f.z, t.x, t.y, t.z]


def test_example_4_rrbot_with_sensor():
    ex = example(4)
    controllers = ex / 'config' / 'rrbot_with_sensor_controllers.yaml'
    urdf = expand_xacro(
        ex / 'urdf' / 'rrbot_system_with_sensor.urdf.xacro',
        prefix='',
        use_mock_hardware='false',
        mock_sensor_commands='false',
        slowdown='50.0',
    )
    with DemoLaunch('demo_example_4') as demo:
        manager = demo.start_manager([controllers])
        wrenches = demo.ros.subscribe(WrenchStamped, '/fts_broadcaster/wrench')
        demo.publish_description(urdf)
        demo.spawn(
            'joint_state_broadcaster',
            'forward_position_controller',
            'fts_broadcaster',
            '--param-file',
            str(controllers),
        )
        demo.assert_states(
            ['joint_state_broadcaster', 'forward_position_controller', 'fts_broadcaster']
        )
        demo.wait_for_joints(['joint1', 'joint2'])
        assert demo.ros.spin_for_messages(wrenches, 3)
        msg = wrenches[-1]
        assert msg.header.frame_id == 'tool_link'
        f, t = msg.wrench.force, msg.wrench.torque
        # force.x is the sensor's first interface, torque.z its second; the rest are not there
        assert_upstream_readings([f.x, t.z], msg.header.stamp)
        assert all(math.isnan(v) for v in (f.y, f.z, t.x, t.y))
        demo.wait_logged(
            manager, 'Reading states from sensors:', "for sensor 'tcp_fts_sensor/torque.z'"
        )


def test_example_5_external_sensor():
    ex = example(5)
    controllers = ex / 'config' / 'rrbot_with_external_sensor_controllers.yaml'
    urdf = expand_xacro(
        ex / 'urdf' / 'rrbot_system_with_external_sensor.urdf.xacro',
        prefix='',
        use_mock_hardware='false',
        mock_sensor_commands='false',
        slowdown='50.0',
    )
    with DemoLaunch('demo_example_5') as demo:
        demo.start_manager([controllers])
        wrenches = demo.ros.subscribe(WrenchStamped, '/fts_broadcaster/wrench')
        demo.publish_description(urdf)
        demo.spawn(
            'joint_state_broadcaster',
            'forward_position_controller',
            'fts_broadcaster',
            '--param-file',
            str(controllers),
        )
        demo.assert_states(
            ['joint_state_broadcaster', 'forward_position_controller', 'fts_broadcaster']
        )
        demo.wait_for_joints(['joint1', 'joint2'])
        components = {c.name: c for c in demo.ros.manager().list_hardware_components()}
        assert components['ExternalRRBotFTSensor'].type == 'sensor'
        assert components['RRBotSystemPositionOnly'].type == 'system'
        assert demo.ros.spin_for_messages(wrenches, 3)
        msg = wrenches[-1]
        assert msg.header.frame_id == 'tool_link'
        assert_upstream_readings(wrench_values(msg), msg.header.stamp)
        # six interfaces seeded apart: six different readings
        assert len(set(wrench_values(msg))) == 6


def test_example_10_gpio():
    ex = example(10)
    controllers = ex / 'config' / 'rrbot_controllers.yaml'
    with DemoLaunch('demo_example_10') as demo:
        manager = demo.start_manager([controllers])
        gpio_states = demo.ros.subscribe(
            DynamicInterfaceGroupValues, '/gpio_controller/gpio_states'
        )
        demo.publish_description(expand_xacro(ex / 'urdf' / 'rrbot.urdf.xacro'))
        demo.spawn(
            'joint_state_broadcaster',
            'gpio_controller',
            'forward_position_controller',
            '--param-file',
            str(controllers),
        )
        demo.assert_states(
            ['forward_position_controller', 'gpio_controller', 'joint_state_broadcaster']
        )
        demo.wait_for_joints(['joint1', 'joint2'])
        assert demo.ros.spin_for_messages(gpio_states, 2)

        def values(msg):
            return {
                f'{group}/{name}': value
                for group, itf in zip(msg.interface_groups, msg.interface_values)
                for name, value in zip(itf.interface_names, itf.values)
            }

        first = values(gpio_states[-1])
        assert set(first) == {
            'flange_analog_IOs/analog_output1',
            'flange_analog_IOs/analog_input1',
            'flange_analog_IOs/analog_input2',
            'flange_vacuum/vacuum',
        }
        # on_configure set every GPIO state to 0 (the URDF's initial 1.0 for the vacuum, too)
        # and on_activate made the commands the states: 0 mirrored back
        assert first['flange_vacuum/vacuum'] == 0.0
        assert first['flange_analog_IOs/analog_output1'] == 0.0
        # the analog inputs: the first draw of minstd_rand seeded with the second + 1 and + 2
        for k in (1, 2):
            drawn = {float(MinstdRand(s + k)()) for s in seconds_read(gpio_states[-1].header.stamp)}
            assert first[f'flange_analog_IOs/analog_input{k}'] in drawn

        command = DynamicInterfaceGroupValues(
            interface_groups=['flange_vacuum', 'flange_analog_IOs'],
            interface_values=[
                InterfaceValue(interface_names=['vacuum'], values=[0.27]),
                InterfaceValue(interface_names=['analog_output1'], values=[0.5]),
            ],
        )
        pub = demo.ros.node.create_publisher(
            DynamicInterfaceGroupValues, '/gpio_controller/commands', 10
        )

        def mirrored():
            pub.publish(command)
            now = values(gpio_states[-1])
            return (
                now['flange_vacuum/vacuum'] == 0.27
                and now['flange_analog_IOs/analog_output1'] == 0.5
            )

        assert demo.ros.spin_until(mirrored, timeout_s=30.0), demo.manager_output()
        logged = "0.27 for GPIO output 'flange_vacuum/vacuum'"  # write()'s line, each 0.5 s
        assert demo.ros.spin_until(lambda: logged in manager.output(), timeout_s=10.0)
