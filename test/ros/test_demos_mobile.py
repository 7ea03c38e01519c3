"""ros2_control_demos' mobile bases (examples 2, 11 and 16) brought up as their launch files
do, checked as their launch tests check them and driven: the wheels turn at the speeds the
controllers' kinematics give."""

import math

from control_msgs.msg import MultiDOFStateStamped
from demos_rig import DemoLaunch, example, expand_xacro
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from tf2_msgs.msg import TFMessage


def velocity_of(msg, joint):
    return msg.velocity[list(msg.name).index(joint)]


def twist(linear, angular):
    msg = TwistStamped()  # a zero stamp: "now"
    msg.twist.linear.x = linear
    msg.twist.angular.z = angular
    return msg


def drive_until(demo, topic, msg, done, timeout_s=30.0):
    """Publish `msg` on `topic` (a stream, as a teleop does) until `done()`."""
    pub = demo.ros.node.create_publisher(TwistStamped, topic, 10)

    def check():
        pub.publish(msg)
        return done()

    assert demo.ros.spin_until(check, timeout_s=timeout_s), demo.manager_output()


def test_example_2_diffbot():
    ex = example(2)
    controllers = ex / 'config' / 'diffbot_controllers.yaml'
    with DemoLaunch('demo_example_2') as demo:
        # the launch file names the node: `-r __node:=controller_manager`
        demo.start_manager(
            [], params={'update_rate': 10}, ros_args=['-r', '__node:=controller_manager']
        )
        odom = demo.ros.subscribe(Odometry, '/diffbot_base_controller/odom')
        demo.publish_description(
            expand_xacro(ex / 'urdf' / 'diffbot.urdf.xacro', use_mock_hardware='false')
        )
        demo.spawn(
            'joint_state_broadcaster',
            'diffbot_base_controller',
            '--param-file',
            str(controllers),
            '--controller-ros-args',
            '-r ~/cmd_vel:=/cmd_vel',
        )
        demo.assert_states(['joint_state_broadcaster', 'diffbot_base_controller'])
        demo.wait_for_joints(['left_wheel_joint', 'right_wheel_joint'])
        states = demo.joint_states()

        # 0.1 m/s straight on: both wheels at v / r = 0.1 / 0.015 rad/s (the hardware reports
        # its command as its velocity)
        wheel = 0.1 / 0.015

        def cruising():
            return bool(states) and all(
                abs(velocity_of(states[-1], j) - wheel) < 1e-9
                for j in ('left_wheel_joint', 'right_wheel_joint')
            )

        drive_until(demo, '/cmd_vel', twist(0.1, 0.0), cruising)
        assert demo.ros.spin_for_messages(odom, 2)
        x_before = odom[-1].pose.pose.position.x
        drive_until(
            demo,
            '/cmd_vel',
            twist(0.1, 0.0),
            lambda: odom[-1].pose.pose.position.x > x_before + 0.02,
        )
        assert abs(odom[-1].pose.pose.position.y) < 1e-9  # straight on

        # turning in place at 0.5 rad/s: the wheels at -+ w s / 2 / r
        spin = 0.5 * 0.10 / 2 / 0.015

        def turning():
            return (
                abs(velocity_of(states[-1], 'right_wheel_joint') - spin) < 1e-9
                and abs(velocity_of(states[-1], 'left_wheel_joint') + spin) < 1e-9
            )

        drive_until(demo, '/cmd_vel', twist(0.0, 0.5), turning)


def test_example_2_diffbot_xml_launch():
    """diffbot.launch.xml: the manager named my_ctrl_mgr, the spawners told so."""
    ex = example(2)
    controllers = str(ex / 'config' / 'diffbot_controllers.yaml')
    with DemoLaunch('demo_example_2_xml') as demo:
        demo.start_manager([], params={'update_rate': 10}, ros_args=['-r', '__node:=my_ctrl_mgr'])
        demo.publish_description(
            expand_xacro(ex / 'urdf' / 'diffbot.urdf.xacro', use_mock_hardware='false')
        )
        demo.spawn('joint_state_broadcaster', '-c', 'my_ctrl_mgr', '-p', controllers)
        demo.spawn(
            'diffbot_base_controller',
            '--controller-manager',
            'my_ctrl_mgr',
            '--param-file',
            controllers,
            '--controller-ros-args',
            '-r ~/cmd_vel:=/cmd_vel',
        )
        demo.assert_states(
            ['joint_state_broadcaster', 'diffbot_base_controller'], manager='/my_ctrl_mgr'
        )
        states = demo.joint_states()
        demo.wait_for_joints(['left_wheel_joint', 'right_wheel_joint'])

        def cruising():
            return abs(velocity_of(states[-1], 'left_wheel_joint') - 0.1 / 0.015) < 1e-9

        drive_until(demo, '/cmd_vel', twist(0.1, 0.0), cruising)


def run_example_11(remap):
    ex = example(11)
    controllers = ex / 'config' / 'carlikebot_controllers.yaml'
    with DemoLaunch('demo_example_11') as demo:
        demo.start_manager([controllers])
        tf_odometry = demo.ros.subscribe(TFMessage, '/bicycle_steering_controller/tf_odometry')
        tf = demo.ros.subscribe(TFMessage, '/tf')
        demo.publish_description(expand_xacro(ex / 'urdf' / 'carlikebot.urdf.xacro'))
        extra = (
            ['--controller-ros-args', '-r /bicycle_steering_controller/tf_odometry:=/tf']
            if remap
            else []
        )
        demo.spawn(
            'joint_state_broadcaster',
            'bicycle_steering_controller',
            '--param-file',
            str(controllers),
            *extra,
        )
        demo.assert_states(['bicycle_steering_controller', 'joint_state_broadcaster'])
        demo.wait_for_joints(['virtual_front_wheel_joint', 'virtual_rear_wheel_joint'])
        states = demo.joint_states()

        # 0.1 m/s turning at 0.1 rad/s: steer atan(w L / v), rear wheel at v / r
        steer = math.atan(0.1 * 0.325 / 0.1)

        def following():
            last = states[-1]
            front = last.position[list(last.name).index('virtual_front_wheel_joint')]
            rear = velocity_of(last, 'virtual_rear_wheel_joint')
            return abs(front - steer) < 1e-6 and abs(rear - 0.1 / 0.05) < 1e-6

        drive_until(demo, '/bicycle_steering_controller/reference', twist(0.1, 0.1), following)
        odometry_frames = [t for msg in tf for t in msg.transforms if t.header.frame_id == 'odom']
        if remap:
            assert tf_odometry == [] and odometry_frames, 'odometry on /tf only'
        else:
            assert tf_odometry and odometry_frames == [], 'odometry on ~/tf_odometry only'


def test_example_11_carlikebot():
    run_example_11(remap=False)


def test_example_11_carlikebot_odometry_remapped_to_tf():
    run_example_11(remap=True)


def test_example_16_diffbot_with_chained_pid_controllers():
    ex = example(16)
    controllers = ex / 'config' / 'diffbot_chained_controllers.yaml'
    pids = ['pid_controller_left_wheel_joint', 'pid_controller_right_wheel_joint']
    with DemoLaunch('demo_example_16') as demo:
        demo.start_manager([controllers])
        demo.publish_description(
            expand_xacro(ex / 'urdf' / 'diffbot.urdf.xacro', use_mock_hardware='false')
        )
        demo.spawn(
            'joint_state_broadcaster',
            *pids,
            'diffbot_base_controller',
            '--param-file',
            str(controllers),
            '--controller-ros-args',
            '-r /diffbot_base_controller/cmd_vel:=/cmd_vel',
        )
        demo.assert_states(['joint_state_broadcaster', *pids, 'diffbot_base_controller'])
        listed = {c.name: c for c in demo.ros.manager().list_controllers()}
        assert all(listed[p].is_chained for p in pids)
        demo.wait_for_joints(['left_wheel_joint', 'right_wheel_joint'])
        states = demo.joint_states()

        # the wheels reach only 80 % of their command: the PIDs (feed-forward 0.95 and an
        # integral) bring them to the diff drive's v / r all the same
        wheel = 0.1 / 0.015

        def converged():
            return bool(states) and all(
                abs(velocity_of(states[-1], j) - wheel) < 0.01 * wheel
                for j in ('left_wheel_joint', 'right_wheel_joint')
            )

        left = demo.ros.subscribe(
            MultiDOFStateStamped, '/pid_controller_left_wheel_joint/controller_state'
        )
        drive_until(demo, '/cmd_vel', twist(0.1, 0.0), converged, timeout_s=60.0)
        # what the PID sends the hardware: 1 / 0.8 of what the wheel then turns at
        assert demo.ros.spin_for_messages(left, 2)
        dof = left[-1].dof_states[0]
        assert abs(dof.reference - wheel) < 1e-9
        assert abs(dof.output - wheel / 0.8) < 0.02 * wheel
