"""What the dashboard's server side sends, whatever a page asks for (issue #31 item 3):
steering speeds clamped to the controller's limits, trajectory goals clamped to the URDF
limits, and cmd_vel stamped with the robot's clock when it runs on simulated time.

Real rclpy on both sides: the dashboard's RosBridge (its own context and thread) and a
test harness that subscribes, serves the action, and publishes /clock.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import threading
import time

import pytest
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import SteeringControllerStatus
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rosgraph_msgs.msg import Clock

from py_controllers.dashboard import motion
from py_controllers.dashboard.bases import BASES, pad_limits
from py_controllers.dashboard.manager_watch import ManagerWatch
from py_controllers.dashboard.model import DIFF_DRIVE_TYPE, JointRange, Velocity
from py_controllers.dashboard.motion import PAD_MAX_ANGULAR, PAD_MAX_LINEAR
from py_controllers.dashboard.ros_bridge import CallFailedError, NotAvailableError, RosBridge
from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool, stamp_ns


@pytest.fixture
def ros():
    with RosHarness('dashboard_motion_test') as harness:
        yield harness


@pytest.fixture
def bridge():
    b = RosBridge(node_name='dashboard_motion_bridge')
    b.start()
    yield b
    b.close()


def steer_until_sent(ros, steering, topic, linear, angular, got, since_ns=None) -> TwistStamped:
    """Command (renewing the lease) until a message stamped after the first command call
    arrives; that one (one sent before it, with the previous command, may still be queued).
    `since_ns`: the stamp to wait past when the robot's clock is not this node's."""
    if since_ns is None:
        since_ns = ros.node.get_clock().now().nanoseconds

    def newer() -> list[TwistStamped]:
        return [m for m in got if stamp_ns(m) >= since_ns]

    def sent() -> bool:
        steering.command(topic, 'page-1', linear, angular)
        return bool(newer())

    assert ros.spin_until(sent)
    return newer()[0]


def test_steering_is_clamped_to_the_controllers_limits(ros, bridge):
    steering = motion.Steering(bridge)
    topic = motion.twist_topic('/r9/controller_manager', 'base', BASES[DIFF_DRIVE_TYPE])
    got = ros.subscribe(TwistStamped, '/r9/base/cmd_vel')
    # the pad's own range before the controller's limits are known
    msg = steer_until_sent(ros, steering, topic, 100.0, -100.0, got)
    assert (msg.twist.linear.x, msg.twist.angular.z) == (2.0, -4.0)
    steering.set_limits(topic, Velocity(1.0, 0.0, 3.0))  # the diffbot's max_velocity
    msg = steer_until_sent(ros, steering, topic, 100.0, -100.0, got)
    assert (msg.twist.linear.x, msg.twist.angular.z) == (1.0, -3.0)
    msg = steer_until_sent(ros, steering, topic, -0.25, 0.5, got)  # within: unchanged
    assert (msg.twist.linear.x, msg.twist.angular.z) == (-0.25, 0.5)
    msg = steer_until_sent(ros, steering, topic, math.nan, 0.5, got)  # not a number: stop
    assert (msg.twist.linear.x, msg.twist.angular.z) == (0.0, 0.0)


def test_trajectory_goal_is_clamped_to_the_urdf_limits(ros, bridge):
    goals: list = []

    def execute(handle):
        goals.append(list(handle.request.trajectory.points[0].positions))
        handle.succeed()
        return FollowJointTrajectory.Result()

    ActionServer(ros.node, FollowJointTrajectory, '/r9/arm/follow_joint_trajectory', execute)
    action = motion.follow_joint_trajectory_action('/r9/controller_manager', 'arm')
    ranges = {'joint1': JointRange(-3.1, 3.1, 1.0), 'joint2': JointRange(-1.0, 2.0, None)}
    bridge.prepare_action(FollowJointTrajectory, action)

    async def send():
        deadline = time.monotonic() + 30.0
        while True:
            try:
                goal = await motion.send_trajectory(
                    bridge, action, ['joint1', 'joint2'], [10.0, -7.5], 1.0, ranges
                )
                return await goal.result()
            except (NotAvailableError, CallFailedError):
                # not discovered yet, or the goal's answer lost while discovery settles (a
                # starved host: "failed to send response (timeout)" on the server): again
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.05)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        done = pool.submit(asyncio.run, send())
        assert ros.spin_until(done.done, 30.0)
        status, _ = done.result()
    assert goals and all(g == [3.1, -1.0] for g in goals), goals  # each one clamped
    assert status == 4  # succeeded


def test_a_goal_answered_too_late_is_canceled(ros, bridge):
    """The page is told a goal failed when the server does not answer within the bound; a
    server that takes it anyway (its answer late, or lost while discovery settles) must not
    run it unseen: the dashboard cancels that goal, by its id."""
    answer = threading.Event()
    cancels: list = []
    taken: list = []

    def on_goal(request):
        answer.wait(30.0)  # holds the server's executor: no answer until the page gave up
        return GoalResponse.ACCEPT

    def on_cancel(handle):
        cancels.append(bytes(handle.goal_id.uuid))
        return CancelResponse.ACCEPT

    ActionServer(
        ros.node,
        FollowJointTrajectory,
        '/r9/arm/follow_joint_trajectory',
        lambda handle: FollowJointTrajectory.Result(),
        goal_callback=on_goal,
        handle_accepted_callback=taken.append,  # accepted, never executed: it stays running
        cancel_callback=on_cancel,
    )
    action = motion.follow_joint_trajectory_action('/r9/controller_manager', 'arm')
    bridge.prepare_action(FollowJointTrajectory, action)
    goal = FollowJointTrajectory.Goal()

    async def send():
        while True:
            try:
                return await bridge.send_goal(
                    FollowJointTrajectory, action, goal, accept_timeout_s=0.5
                )
            except NotAvailableError:
                await asyncio.sleep(0.05)
            except CallFailedError as exc:
                answer.set()
                return str(exc)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        done = pool.submit(asyncio.run, send())
        assert ros.spin_until(done.done, 30.0)
        assert 'canceled it' in done.result()
        assert ros.spin_until(lambda: taken and taken[0].is_cancel_requested, 30.0), cancels
    assert set(cancels) == {bytes(taken[0].goal_id.uuid)}  # that goal, by id or by handle


def test_cmd_vel_is_stamped_with_the_robots_sim_time(ros, bridge):
    clock = ros.node.create_publisher(Clock, '/clock', 10)
    sim_now = Clock()
    sim_now.clock.sec, sim_now.clock.nanosec = 1234, 500_000_000
    with ManagerProcess(
        [CONFIG / 'minimal_controllers.yaml'],
        CONFIG / 'minimal_robot.urdf',
        params={'use_sim_time': 'true'},
        ros_args=['-r', '__ns:=/simbot'],
    ) as manager:
        watch = ManagerWatch(bridge, '/simbot/controller_manager')

        def refreshed() -> bool:
            asyncio.run(watch.refresh())
            return watch.state.available

        assert ros.spin_until(refreshed, 30.0), (watch.state.reason, manager.output())

        def following() -> bool:
            clock.publish(sim_now)
            return bridge.node.get_clock().now().nanoseconds == 1_234_500_000_000

        assert ros.spin_until(following), bridge.node.get_clock().now()
        steering = motion.Steering(bridge)
        topic = motion.twist_topic(watch.manager, 'base', BASES[DIFF_DRIVE_TYPE])
        got = ros.subscribe(TwistStamped, '/simbot/base/cmd_vel')
        msg = steer_until_sent(ros, steering, topic, 0.2, 0.0, got, since_ns=0)
        assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == (1234, 500_000_000)


def spawn(manager: ManagerProcess, controller: str) -> None:
    """`controller` spawned (and active) on the root namespace's manager."""
    done = run_tool('spawner', controller, '--controller-manager-timeout', '30')
    assert done.returncode == 0, done.stdout + done.stderr + manager.output()


def test_a_mecanum_base_steered_sideways_moves_in_y_only(ros, bridge):
    """The pad's sideways axis (linear.y) on ~/reference: the odometry moves left and
    nothing else (mecanum kinematics with vx = wz = 0 put no forward or turning speed)."""
    name = 'mecanum_drive_controller'
    base = BASES['mecanum_drive_controller/MecanumDriveController']
    with ManagerProcess([CONFIG / 'mobile_bases.yaml'], CONFIG / 'mecanum_base.urdf') as manager:
        spawn(manager, name)
        steering = motion.Steering(bridge)
        topic = motion.twist_topic('/controller_manager', name, base)
        assert topic == '/mecanum_drive_controller/reference'
        steering.set_limits(topic, pad_limits(base, {}, PAD_MAX_LINEAR, PAD_MAX_ANGULAR))
        odom = ros.subscribe(Odometry, f'/{name}/odometry')
        assert ros.spin_for_messages(odom, 1), manager.output()

        def moved_left() -> bool:
            steering.command(topic, 'page-1', 0.0, 0.0, 0.3)  # the pad slid to the left
            return odom[-1].pose.pose.position.y > 0.1

        assert ros.spin_until(moved_left, 30.0), manager.output()
        pose, twist = odom[-1].pose.pose, odom[-1].twist.twist  # while held
        steering.release(topic)
        assert abs(pose.position.x) < 1e-9
        assert abs(pose.orientation.z) < 1e-9  # no yaw
        assert abs(twist.linear.x) < 1e-9 and abs(twist.angular.z) < 1e-9
        assert twist.linear.y > 0.0


def test_an_ackermann_car_gets_its_reference_and_never_a_sideways_speed(ros, bridge):
    """A steering controller reads the pad on ~/reference; it is not holonomic, so a
    sideways speed the page asks for is clamped to 0 on the server."""
    name = 'ackermann_steering_controller'
    base = BASES['ackermann_steering_controller/AckermannSteeringController']
    params = CONFIG / 'steering_controllers.yaml'
    with ManagerProcess([params], CONFIG / 'steering_robot.urdf') as manager:
        spawn(manager, name)
        steering = motion.Steering(bridge)
        topic = motion.twist_topic('/controller_manager', name, base)
        assert topic == '/ackermann_steering_controller/reference'
        steering.set_limits(topic, pad_limits(base, {}, PAD_MAX_LINEAR, PAD_MAX_ANGULAR))
        sent = ros.subscribe(TwistStamped, topic)
        status = ros.subscribe(SteeringControllerStatus, f'/{name}/controller_state')
        odom = ros.subscribe(Odometry, f'/{name}/odometry')
        assert ros.spin_for_messages(odom, 1), manager.output()

        def steered() -> bool:  # /odometry and ~/controller_state arrive in no set order
            return bool(status) and any(a != 0.0 for a in status[-1].steering_angle_command)

        def forward_left() -> bool:
            steering.command(topic, 'page-1', 1.0, 0.2, 0.5)
            return odom[-1].pose.pose.position.x > 0.1 and steered()

        assert ros.spin_until(forward_left, 30.0), manager.output()
        steering.release(topic)
        moving = [m.twist for m in sent if m.twist.linear.x != 0.0]
        assert moving, 'nothing seen on ~/reference'
        assert (moving[-1].linear.x, moving[-1].linear.y, moving[-1].angular.z) == (1.0, 0.0, 0.2)
        assert odom[-1].pose.pose.position.y > 0.0  # turning left
        assert all(angle > 0.0 for angle in status[-1].steering_angle_command)
