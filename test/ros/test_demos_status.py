"""ros2_control_demos' example 17 brought up as its launch file does: the hardware component
reports on /diagnostics from its own node, publishes from a node it adds to the manager's
executor, and fills the framework's ~/hardware_status at `status_publish_rate`."""

from control_msgs.msg import GenericHardwareState, HardwareStatus
from demos_rig import DemoLaunch, example, expand_xacro, node_parameters
from diagnostic_msgs.msg import DiagnosticArray
from std_msgs.msg import Float64MultiArray, String


def test_example_17_hardware_diagnostics_and_status(tmp_path):
    ex = example(17)
    controllers = ex / 'config' / 'rrbot_controllers.yaml'
    urdf = expand_xacro(ex / 'urdf' / 'rrbot.urdf.xacro')
    # rrbot.launch.xml gives the manager the description as a parameter and the YAML file
    description = node_parameters(tmp_path, 'description', {'robot_description': urdf})
    with DemoLaunch('demo_example_17') as demo:
        diagnostics = demo.ros.subscribe(DiagnosticArray, '/diagnostics')
        custom = demo.ros.subscribe(String, '/rrbot_custom_status')
        status = demo.ros.subscribe(HardwareStatus, '/rrbot/hardware_status')
        manager = demo.start_manager([description, controllers])
        demo.spawn(
            'joint_state_broadcaster',
            'forward_position_controller',
            '--param-file',
            str(controllers),
        )
        demo.assert_states(['forward_position_controller', 'joint_state_broadcaster'])
        demo.wait_for_joints(['joint1', 'joint2'])
        demo.wait_logged(manager, 'Configuring hardware status message for RRBot.')

        # 1. diagnostic_updater on the component's node 'rrbot'
        def reported():
            return any(s.name == 'rrbot: RRBot_Status' for m in diagnostics for s in m.status)

        assert demo.ros.spin_until(reported, timeout_s=20.0), demo.manager_output()
        # every report heard (a loaded host may deliver the next one within the same wait)
        ours = [s for m in diagnostics for s in m.status if s.name == 'rrbot: RRBot_Status']
        assert {(s.level, s.message, s.hardware_id) for s in ours} == {
            (b'\x00', 'Hardware is OK', 'RRBot')
        }

        # 2. the component's own node on the manager's executor, every 2 s
        assert demo.ros.spin_for_messages(custom, 1, timeout_s=20.0)
        assert custom[-1].data.startswith("RRBot 'RRBot' custom node is alive at ")
        names = demo.ros.node.get_node_names()
        assert 'rrbot' in names and 'rrbot_custom_node' in names

        # 3. ~/hardware_status at status_publish_rate: a device per joint, the position
        assert demo.ros.spin_for_messages(status, 2)
        msg = status[-1]
        assert msg.hardware_id == 'RRBot'
        assert [d.device_id for d in msg.hardware_device_states] == ['joint1', 'joint2']
        first = msg.hardware_device_states[0].hardware_status[0]
        assert first.health_status == GenericHardwareState.HEALTH_OK
        assert first.operational_mode == GenericHardwareState.MODE_AUTO
        assert first.power_state == GenericHardwareState.POWER_ON
        assert [(d.key, d.value) for d in first.state_details] == [('position_state', '0.000000')]

        pub = demo.ros.node.create_publisher(
            Float64MultiArray, '/forward_position_controller/commands', 10
        )

        def detail_moved():
            pub.publish(Float64MultiArray(data=[0.5, 0.5]))
            device = status[-1].hardware_device_states[0]
            return float(device.hardware_status[0].state_details[0].value) > 0.01

        assert demo.ros.spin_until(detail_moved, timeout_s=30.0), demo.manager_output()
