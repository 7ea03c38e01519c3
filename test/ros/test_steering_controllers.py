"""The three steering controllers on a mock car (config/steering_robot.urdf): a TwistStamped
on ~/reference in, steering angles and wheel speeds out with the numbers of upstream's
controller tests (test_update_logic), odometry that integrates, the reference timeout,
non-finite references refused, and the Ackermann controller chained behind a forwarder.

The manager runs in-process with its loop stopped; the tests step read -> update -> write
with a fixed 10 ms period.
"""

import math

import pytest
from control_msgs.msg import SteeringControllerStatus
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from std_msgs.msg import Float64MultiArray
from tf2_msgs.msg import TFMessage

from py_controllers import plugins
from py_controllers.controllers.steering.ackermann import AckermannSteeringController
from py_controllers.controllers.steering.bicycle import BicycleSteeringController
from py_controllers.controllers.steering.tricycle_steering import TricycleSteeringController
from py_controllers.testing import CONFIG, RosHarness, SteppedManager, stamp_ns

URDF = CONFIG / 'steering_robot.urdf'
PARAMS = CONFIG / 'steering_controllers.yaml'

for _type, _cls in (
    ('ackermann_steering_controller/AckermannSteeringController', AckermannSteeringController),
    ('bicycle_steering_controller/BicycleSteeringController', BicycleSteeringController),
    ('tricycle_steering_controller/TricycleSteeringController', TricycleSteeringController),
):
    plugins.register(plugins.CONTROLLERS_GROUP, _type, _cls)

# upstream's test_update_logic: reference (0.1 m/s, 0.2 rad/s), wheelbase 3.24644 m, wheel
# radius 0.45 m, the steering still at 0 -> both wheels 0.1 / 0.45, steering atan(0.2 L / 0.1)
WHEEL = 0.22222222222222224
STEER = 1.4179821977774734
CASES = {
    'ackermann_steering_controller': (
        ['rear_right_wheel_joint', 'rear_left_wheel_joint'],
        ['front_right_steering_joint', 'front_left_steering_joint'],
    ),
    'bicycle_steering_controller': (['rear_wheel_joint'], ['steering_axis_joint']),
    'tricycle_steering_controller': (
        ['rear_right_wheel_joint', 'rear_left_wheel_joint'],
        ['steering_axis_joint'],
    ),
}


@pytest.fixture
def cm():
    harness = RosHarness('steering_test', args=['--ros-args', '--params-file', str(PARAMS)])
    stepped = SteppedManager(harness, URDF.read_text())
    yield stepped
    stepped.node.shutdown()
    harness.close()


def twist(cm, linear, angular):
    msg = TwistStamped()
    msg.header.stamp = cm.harness.node.get_clock().now().to_msg()
    msg.twist.linear.x, msg.twist.angular.z = linear, angular
    return msg


def commands(cm, name):
    traction, steering = CASES[name]
    return [cm.command(f'{j}/velocity') for j in traction], [
        cm.command(f'{j}/position') for j in steering
    ]


def stamp_s(msg):
    return stamp_ns(msg) * 1e-9


def yaw(msg):
    q = msg.pose.pose.orientation
    return 2.0 * math.atan2(q.z, q.w)


@pytest.mark.parametrize('name', list(CASES))
def test_reference_gives_upstreams_commands_and_odometry_integrates(cm, name):
    (controller,) = cm.start(name)
    traction_joints, steering_joints = CASES[name]
    cm.catch_up_with_clock()
    odom = cm.harness.subscribe(Odometry, f'/{name}/odometry')
    status = cm.harness.subscribe(SteeringControllerStatus, f'/{name}/controller_state')
    cm.step(1)
    # no reference yet: traction 0, steering held where it is
    assert commands(cm, name) == ([0.0] * len(traction_joints), [0.0] * len(steering_joints))

    topic = f'/{name}/reference'
    # the first cycle with the reference (the steering measured at 0)
    cm.send_until(
        topic, TwistStamped, twist(cm, 0.1, 0.2), lambda: controller.reference_box.get() is not None
    )
    traction, steering = commands(cm, name)
    assert traction == pytest.approx([WHEEL] * len(traction_joints), abs=1e-6)
    assert steering == pytest.approx([STEER] * len(steering_joints), abs=1e-6)

    if name == 'ackermann_steering_controller':
        # the next cycle splits the angle (the mock steered at once); the inner wheel would
        # need 1.689 rad, and the manager holds it to the joint's limit (1.5 rad, URDF)
        cm.step(1)
        assert commands(cm, name)[1][1] == 1.5

    # a milder turn, 1 m/s at 0.2 rad/s (middle angle 0.576 rad, turning radius 5 m); the
    # mock steers at once, so from the next cycle on the wheel speeds follow that angle
    cm.send_until(
        topic, TwistStamped, twist(cm, 1.0, 0.2), lambda: controller.reference_box.get()[0] == 1.0
    )
    cm.step(20)
    assert cm.harness.spin_until(lambda: len(odom) > 0 and len(status) > 0)
    traction, steering = commands(cm, name)
    phi, speed = math.atan(0.2 * 3.24644), 1.0 / 0.45
    radius = 3.24644 / math.tan(phi)
    if name == 'ackermann_steering_controller':
        half = 1.76868 / 2  # each front wheel on its own circle about the rear axle's middle
        assert steering == pytest.approx(
            [math.atan(3.24644 / (radius + half)), math.atan(3.24644 / (radius - half))]
        )
        assert traction == pytest.approx(
            [speed * (radius + half) / radius, speed * (radius - half) / radius]
        )
    elif name == 'tricycle_steering_controller':
        half = 1.212121 / 2
        assert steering == pytest.approx([phi])
        assert traction == pytest.approx(
            [speed * (radius + half) / radius, speed * (radius - half) / radius]
        )
    else:
        assert (traction, steering) == (pytest.approx([speed]), pytest.approx([phi]))

    # closed-loop odometry reports the commanded twist (the window of 10 samples is full of
    # it) and integrates it: the heading grows by 0.2 rad/s of loop time
    assert cm.run_until(lambda: bool(odom) and odom[-1].twist.twist.linear.x == pytest.approx(1.0))
    first = odom[-1]
    assert first.twist.twist.angular.z == pytest.approx(0.2, abs=1e-9)
    cm.run_until(lambda: stamp_s(odom[-1]) >= stamp_s(first) + 0.5)
    last = odom[-1]
    assert yaw(last) - yaw(first) == pytest.approx(0.2 * (stamp_s(last) - stamp_s(first)))
    assert odom[-1].header.frame_id == 'odom' and odom[-1].child_frame_id == 'base_link'
    # a status of that cycle or a later one (the commands hold still): a realtime publisher
    # skips a cycle whose previous message is still on its way, so that exact stamp may never
    # come while the loop steps on (seen under two busy loops)
    assert cm.run_until(lambda: bool(status) and stamp_s(status[-1]) >= stamp_s(last))
    assert status[-1].steering_angle_command == pytest.approx(steering)
    assert status[-1].traction_command == pytest.approx(traction)
    assert list(status[-1].steer_positions) == pytest.approx(steering)


def test_reference_times_out_traction_stops_and_steering_stays(cm):
    name = 'bicycle_steering_controller'
    (controller,) = cm.start(name)
    cm.catch_up_with_clock()
    cm.send_until(
        f'/{name}/reference',
        TwistStamped,
        twist(cm, 0.1, 0.2),
        lambda: controller.reference_box.get() is not None,
    )
    assert commands(cm, name) == (pytest.approx([WHEEL]), pytest.approx([STEER]))
    cm.step(150)  # 1.5 s: within reference_timeout (2 s)
    assert commands(cm, name) == (pytest.approx([WHEEL]), pytest.approx([STEER]))
    cm.step(60)  # past 2 s
    assert commands(cm, name) == ([0.0], pytest.approx([STEER]))


def test_a_reference_stamped_further_in_the_future_than_the_timeout_is_refused(cm, capfd):
    # upstream takes it and drives on it until the next reference (its age never exceeds
    # reference_timeout); here it is refused, as diff_drive's cmd_vel (make faults found it)
    name = 'ackermann_steering_controller'
    (controller,) = cm.start(name)
    cm.catch_up_with_clock()
    topic = f'/{name}/reference'
    future = twist(cm, 0.1, 0.2)
    future.header.stamp.sec += 3  # reference_timeout is 2 s
    err = []

    def rejected():
        cm.publish(topic, TwistStamped, future)
        cm.step(1)
        err.append(capfd.readouterr().err)
        return 'reference rejected: stamped' in ''.join(err)

    assert cm.harness.spin_until(rejected), ''.join(err)
    assert controller.reference_box.get() is None
    assert commands(cm, name) == ([0.0, 0.0], [0.0, 0.0])
    future.header.stamp.sec -= 2  # 1 s ahead: within the timeout, taken
    cm.send_until(topic, TwistStamped, future, lambda: controller.reference_box.get() is not None)


@pytest.mark.parametrize('bad', [(math.nan, 0.2), (0.1, math.inf), (-math.inf, math.nan)])
def test_non_finite_reference_is_refused(cm, capfd, bad):
    name = 'tricycle_steering_controller'
    (controller,) = cm.start(name)
    cm.catch_up_with_clock()
    topic = f'/{name}/reference'
    cm.send_until(
        topic, TwistStamped, twist(cm, 0.1, 0.2), lambda: controller.reference_box.get() is not None
    )
    cm.step(5)
    kept = controller.reference_box.get()
    before = commands(cm, name)
    err, trace = [], []

    def rejected():
        cm.publish(topic, TwistStamped, twist(cm, *bad))
        cm.step(1)
        trace.append((controller.reference_box.get(), commands(cm, name)))
        err.append(capfd.readouterr().err)
        return 'reference rejected: non-finite velocity' in ''.join(err)

    assert cm.harness.spin_until(rejected), ''.join(err)
    for _ in range(5):  # copies still queued are taken and refused too
        cm.harness.executor.spin_once(timeout_sec=0.0)
        cm.step(1)
        trace.append((controller.reference_box.get(), commands(cm, name)))
    # equal, not the same object: a late copy of the good reference (send_until sent it until
    # taken) may still be taken and boxed anew (h16, under two busy loops)
    assert all(box == kept for box, _ in trace), (kept, trace)
    assert all(c == before for _, c in trace), trace
    assert all(math.isfinite(v) for v in before[0] + before[1])


@pytest.mark.parametrize(
    ('open_loop', 'position_feedback', 'distance'),
    [
        (True, False, 0.5),  # the reference itself, from its first cycle: 100 cycles
        (False, False, 0.495),  # the wheels' velocity, read one cycle after the command
        (False, True, 0.495),  # the wheels' position, differentiated
    ],
)
def test_odometry_sources_and_tf(tmp_path, open_loop, position_feedback, distance):
    """1 s of 0.5 m/s straight ahead from each odometry source; ~/tf_odometry carries
    odom -> base_link with the same pose."""
    name = 'bicycle_steering_controller'
    extra = tmp_path / 'extra.yaml'
    extra.write_text(
        f'{name}:\n  ros__parameters:\n    open_loop: {str(open_loop).lower()}\n'
        f'    position_feedback: {str(position_feedback).lower()}\n'
    )
    args = ['--ros-args', '--params-file', str(PARAMS), '--params-file', str(extra)]
    harness = RosHarness('steering_odometry_test', args=args)
    cm = SteppedManager(harness, URDF.read_text())
    try:
        (controller,) = cm.start(name)
        kind = 'position' if position_feedback else 'velocity'
        assert controller.state_interface_configuration().names == [
            f'rear_wheel_joint/{kind}',
            'steering_axis_joint/position',
        ]
        tf = harness.subscribe(TFMessage, f'/{name}/tf_odometry', 100)
        cm.catch_up_with_clock()
        cm.send_until(
            f'/{name}/reference',
            TwistStamped,
            twist(cm, 0.5, 0.0),
            lambda: controller.reference_box.get() is not None,
        )
        cm.step(99)  # 100 cycles with the reference, 10 ms each
        x = controller.odometry.x
        assert x == pytest.approx(distance, abs=1e-9)
        assert controller.odometry.y == 0.0
        # stop, then the transform shows where the odometry stopped
        cm.send_until(
            f'/{name}/reference',
            TwistStamped,
            twist(cm, 0.0, 0.0),
            lambda: controller.reference_box.get()[0] == 0.0,
        )
        cm.step(2)  # closed loop sees the wheels stop one cycle late
        stopped = controller.odometry.x
        assert stopped > x
        cm.step(5)
        assert controller.odometry.x == stopped
        assert cm.run_until(
            lambda: bool(tf) and tf[-1].transforms[0].transform.translation.x == stopped
        )
        t = tf[-1].transforms[0]
        assert (t.header.frame_id, t.child_frame_id) == ('odom', 'base_link')
    finally:
        cm.node.shutdown()
        harness.close()


def test_chained_behind_a_forwarder(cm):
    name = 'ackermann_steering_controller'
    steering, _ = cm.load(name, 'ackermann_reference_forwarder')
    ok, msg = cm.manager.switch_controller([name, 'ackermann_reference_forwarder'], [], 2)
    assert ok, msg
    assert steering.is_in_chained_mode()
    cm.send_until(
        '/ackermann_reference_forwarder/commands',
        Float64MultiArray,
        Float64MultiArray(data=[0.1, 0.2]),
        lambda: cm.command('rear_right_wheel_joint/velocity') != 0.0,
    )
    traction, steer = commands(cm, name)
    assert traction == pytest.approx(
        [WHEEL, WHEEL], abs=1e-6
    )  # upstream's test_update_logic_chained
    assert steer == pytest.approx([STEER, STEER], abs=1e-6)
    # the reference interfaces are consumed each cycle (NaN until written again)
    assert all(math.isnan(r.value) for r in steering.reference_interfaces)
    # chained: ~/reference is not used
    cm.publish(f'/{name}/reference', TwistStamped, twist(cm, -1.0, 0.0))
    cm.step(10)
    assert cm.command('front_right_steering_joint/position') > 0.0
