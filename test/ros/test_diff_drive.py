"""diff_drive_controller on a mock base: cmd_vel in, odometry, TF and limits out."""

import math

import pytest
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from rclpy.parameter import Parameter
from tf2_msgs.msg import TFMessage

from py_controllers.controller_manager.node import ControllerManagerNode
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.robot_description import swap_hardware
from py_controllers.testing import CONFIG, RosHarness

MOCK_BASE = swap_hardware(
    (CONFIG / 'diffbot.urdf').read_text(),
    'mock_components/GenericSystem',
    {'calculate_dynamics': 'true'},
)


@pytest.fixture
def base(tmp_path):
    extra = tmp_path / 'extra.yaml'
    extra.write_text(
        'diff_drive_controller:\n  ros__parameters:\n    publish_limited_velocity: true\n'
    )
    harness = RosHarness(
        'diff_drive_test',
        args=[
            '--ros-args',
            '--params-file',
            str(CONFIG / 'diffbot_controllers.yaml'),
            '--params-file',
            str(extra),
        ],
    )
    node = ControllerManagerNode(
        harness.executor,
        context=harness.context,
        parameter_overrides=[Parameter('robot_description', value=MOCK_BASE)],
    )
    manager = node.manager
    assert manager.load_controller('diff_drive_controller')[0]
    assert manager.configure_controller('diff_drive_controller')[0]
    assert manager.switch_controller(['diff_drive_controller'], [], 2)[0]
    yield harness, manager
    node.shutdown()
    harness.close()


def stamp_s(msg):
    return msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9


def drive(harness, pub, linear, angular, until):
    msg = TwistStamped()
    msg.twist.linear.x, msg.twist.angular.z = linear, angular

    def step():
        msg.header.stamp = harness.node.get_clock().now().to_msg()
        pub.publish(msg)
        return until()

    assert harness.spin_until(step, 30.0)


def test_drives_straight_limits_publishes_tf_and_stops(base):
    harness, _ = base
    odom = harness.subscribe(Odometry, '/diff_drive_controller/odom')
    out = harness.subscribe(TwistStamped, '/diff_drive_controller/cmd_vel_out')
    tf = harness.subscribe(TFMessage, '/tf', 100)
    pub = harness.node.create_publisher(TwistStamped, '/diff_drive_controller/cmd_vel', 10)
    drive(harness, pub, 1.0, 0.0, lambda: any(m.twist.linear.x >= 1.0 for m in out))
    moving = [m for m in out if m.twist.linear.x > 0.0]
    full = next(m for m in moving if m.twist.linear.x >= 1.0)
    # max_acceleration 2 m/s^2: 0 -> 1 m/s takes 0.5 s. We see a subset of the limited
    # commands (the first ones predate our subscription), so check the slope of the ramp
    ramp = [m for m in moving if m.twist.linear.x < 1.0]
    a, b = ramp[0], ramp[-1]
    slope = (b.twist.linear.x - a.twist.linear.x) / (stamp_s(b) - stamp_s(a))
    assert slope == pytest.approx(2.0, rel=0.05)
    assert full.twist.linear.x == pytest.approx(1.0)
    # stop publishing: after cmd_vel_timeout the command decays to zero and the base stops
    assert harness.spin_until(lambda: out[-1].twist.linear.x == 0.0, 10.0)
    assert harness.spin_until(lambda: odom[-1].twist.twist.linear.x == 0.0, 10.0)
    x_stopped = odom[-1].pose.pose.position.x
    assert x_stopped > 0.3
    assert harness.spin_for_messages(odom, 10)
    assert odom[-1].pose.pose.position.x == pytest.approx(x_stopped, abs=1e-9)
    assert odom[-1].pose.pose.position.y == pytest.approx(0.0, abs=1e-9)
    assert odom[-1].header.frame_id == 'odom' and odom[-1].child_frame_id == 'base_link'
    transforms = [t for m in tf for t in m.transforms]
    assert transforms[-1].header.frame_id == 'odom'
    assert transforms[-1].child_frame_id == 'base_link'
    assert transforms[-1].transform.translation.x == pytest.approx(x_stopped, abs=1e-9)


def test_turning_and_deactivation_zeroes_wheels(base):
    harness, manager = base
    odom = harness.subscribe(Odometry, '/diff_drive_controller/odom')
    pub = harness.node.create_publisher(TwistStamped, '/diff_drive_controller/cmd_vel', 10)

    def yaw():
        q = odom[-1].pose.pose.orientation
        return 2.0 * math.atan2(q.z, q.w)

    drive(harness, pub, 0.0, 1.0, lambda: bool(odom) and yaw() > 0.5)
    left = manager.rm.command_interfaces['left_wheel_joint/velocity'].value
    right = manager.rm.command_interfaces['right_wheel_joint/velocity'].value
    assert left == pytest.approx(-right)
    assert right > 0.0
    assert manager.switch_controller([], ['diff_drive_controller'], 2)[0]
    assert manager.rm.command_interfaces['left_wheel_joint/velocity'].value == 0.0
    assert manager.rm.command_interfaces['right_wheel_joint/velocity'].value == 0.0
    assert manager.state_of('diff_drive_controller') == LifecycleStateId.INACTIVE


def test_non_finite_command_is_rejected_and_set_odometry(base):
    from control_msgs.srv import SetOdometry

    harness, manager = base
    odom = harness.subscribe(Odometry, '/diff_drive_controller/odom')
    pub = harness.node.create_publisher(TwistStamped, '/diff_drive_controller/cmd_vel', 10)
    bad = TwistStamped()
    bad.twist.linear.x = math.nan
    for _ in range(5):
        pub.publish(bad)
        harness.spin_until(lambda: False, 0.02)
    assert manager.state_of('diff_drive_controller') == LifecycleStateId.ACTIVE
    # nothing valid arrived since activation: the wheels are commanded to stand still
    assert manager.rm.command_interfaces['left_wheel_joint/velocity'].value == 0.0
    assert manager.rm.command_interfaces['right_wheel_joint/velocity'].value == 0.0
    client = harness.node.create_client(SetOdometry, '/diff_drive_controller/set_odometry')
    assert harness.spin_until(client.service_is_ready)
    future = client.call_async(SetOdometry.Request(x=2.0, y=-1.0, yaw=0.5))
    assert harness.spin_until(future.done)
    assert future.result().success
    drive(harness, pub, 0.0, 0.0, lambda: bool(odom) and odom[-1].pose.pose.position.x == 2.0)
    assert odom[-1].pose.pose.position.y == pytest.approx(-1.0)
