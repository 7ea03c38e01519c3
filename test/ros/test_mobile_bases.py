"""Mecanum, omni-wheel and tricycle bases on mock hardware: commands over DDS in, wheel
commands and odometry out, non-finite input refused (config/mobile_bases.yaml)."""

import math

import pytest
from ackermann_msgs.msg import AckermannDrive
from control_msgs.msg import MecanumDriveControllerState
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from std_srvs.srv import Empty
from tf2_msgs.msg import TFMessage

from py_controllers.testing import CONFIG, RosHarness, SteppedManager

MECANUM_WHEELS = ('front_left', 'front_right', 'rear_right', 'rear_left')


def twist(stamp_ns, vx=0.0, vy=0.0, wz=0.0):
    msg = TwistStamped()
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
    msg.twist.linear.x, msg.twist.linear.y, msg.twist.angular.z = vx, vy, wz
    return msg


@pytest.fixture
def base(request):
    """(manager, controller) for the base named by the test's parameter."""
    urdf, name = request.param
    harness = RosHarness(
        f'{name}_test', args=['--ros-args', '--params-file', str(CONFIG / 'mobile_bases.yaml')]
    )
    cm = SteppedManager(harness, (CONFIG / urdf).read_text())
    (ctrl,) = cm.start(name)
    yield cm, ctrl
    cm.shutdown()
    harness.close()


def drive(cm, topic, until, **velocity):
    """Publish a fresh command each cycle at the node clock's time until `until()`."""
    pub = cm.publisher(topic, TwistStamped)
    assert cm.harness.spin_until(lambda: pub.get_subscription_count() > 0)

    def check():
        pub.publish(twist(wall_step(cm), **velocity))
        return until()

    assert cm.harness.spin_until(check), velocity


def matched(cm, ctrl, *topics):
    """Wait until the controller's publishers see our subscriptions (nothing is missed)."""
    node = ctrl.get_node()
    assert cm.harness.spin_until(lambda: all(node.count_subscribers(t) > 0 for t in topics))


def wall_step(cm):
    """One cycle at the node clock's now (the clock the callbacks judge stamps by); now."""
    now = cm.harness.node.get_clock().now().nanoseconds
    cm.now_ns = now - cm.period_ns
    cm.step(1)
    return now


# --- mecanum ---------------------------------------------------------------------------
# wheels_radius 0.05, lx + ly 0.3: wheel = (vx -+ vy -+ 0.3 wz) / 0.05

MECANUM = pytest.mark.parametrize(
    'base', [('mecanum_base.urdf', 'mecanum_drive_controller')], indirect=True
)
REFERENCE = '/mecanum_drive_controller/reference'


def mecanum_wheels(cm):
    return tuple(cm.command(f'{w}_wheel_joint/velocity') for w in MECANUM_WHEELS)


@MECANUM
def test_mecanum_sideways_drives_y_only(base):
    cm, ctrl = base
    odom = cm.harness.subscribe(Odometry, '/mecanum_drive_controller/odometry')
    tf = cm.harness.subscribe(TFMessage, '/mecanum_drive_controller/tf_odometry')
    state = cm.harness.subscribe(
        MecanumDriveControllerState, '/mecanum_drive_controller/controller_state'
    )
    matched(
        cm,
        ctrl,
        '/mecanum_drive_controller/odometry',
        '/mecanum_drive_controller/tf_odometry',
        '/mecanum_drive_controller/controller_state',
    )
    # the realtime publisher sends from its own thread and may skip cycles (on a loaded host,
    # every cycle for a while): drive on until a message past y 0.1 of each kind has come,
    # so each was sent while moving (after reference_timeout the base stops)
    drive(
        cm,
        REFERENCE,
        lambda: (
            ctrl.odometry.y > 0.2
            and any(m.pose.pose.position.y > 0.1 for m in odom)
            and any(m.transforms[0].transform.translation.y > 0.1 for m in tf)
            and any(s.reference_velocity.linear.y == 0.5 for s in state)
        ),
        vy=0.5,
    )
    # (0, 0.5, 0): fl -10, fr +10, rr -10, rl +10
    assert mecanum_wheels(cm) == pytest.approx((-10.0, 10.0, -10.0, 10.0))
    assert ctrl.odometry.x == pytest.approx(0.0, abs=1e-12)
    assert ctrl.odometry.heading == pytest.approx(0.0, abs=1e-12)
    last = next(m for m in odom if m.pose.pose.position.y > 0.1)
    assert last.pose.pose.position.x == pytest.approx(0.0, abs=1e-12)
    assert last.twist.twist.linear.y == pytest.approx(0.5)
    assert last.twist.twist.linear.x == pytest.approx(0.0, abs=1e-12)
    assert last.header.frame_id == 'odom' and last.child_frame_id == 'base_link'
    moving = next(s for s in state if s.reference_velocity.linear.y == 0.5)
    assert moving.header.frame_id == 'odom'


@MECANUM
def test_mecanum_rotation(base):
    cm, ctrl = base
    drive(cm, REFERENCE, lambda: ctrl.odometry.heading > 0.5, wz=1.0)
    # (0, 0, 1): fl -6, fr +6, rr +6, rl -6
    assert mecanum_wheels(cm) == pytest.approx((-6.0, 6.0, 6.0, -6.0))
    assert (ctrl.odometry.x, ctrl.odometry.y) == pytest.approx((0.0, 0.0), abs=1e-12)


@MECANUM
def test_mecanum_non_finite_reference_is_refused(base, capfd):
    cm, _ctrl = base
    drive(cm, REFERENCE, lambda: mecanum_wheels(cm) == pytest.approx((2.0,) * 4), vx=0.1)
    pub = cm.publisher(REFERENCE, TwistStamped)
    pub.publish(twist(wall_step(cm), vx=math.inf, vy=0.2))
    line = 'reference rejected: non-finite velocity (inf, 0.2, 0.0)'
    seen = ''

    def refused():
        nonlocal seen
        seen += capfd.readouterr().err
        wall_step(cm)
        # the previous reference (0.1 m/s forward) still drives the wheels
        assert mecanum_wheels(cm) == pytest.approx((2.0,) * 4)
        return line in seen

    assert cm.harness.spin_until(refused), seen


# --- omni wheels -----------------------------------------------------------------------
# three wheels at 0, 120, 240 degrees, robot_radius 0.2, wheel_radius 0.05:
# wheel_i = (sin(theta_i) vx - cos(theta_i) vy - 0.2 wz) / 0.05

OMNI = pytest.mark.parametrize(
    'base', [('omni_base.urdf', 'omni_wheel_drive_controller')], indirect=True
)
OMNI_CMD = '/omni_wheel_drive_controller/cmd_vel'


def omni_wheels(cm):
    return tuple(cm.command(f'wheel_{i}_joint/velocity') for i in (1, 2, 3))


@OMNI
def test_omni_sideways_drives_y_only(base):
    cm, ctrl = base
    odom = cm.harness.subscribe(Odometry, '/omni_wheel_drive_controller/odom')
    tf = cm.harness.subscribe(TFMessage, '/tf', 100)
    matched(cm, ctrl, '/omni_wheel_drive_controller/odom', '/tf')
    # drive on until a message past y 0.1 has come: sent while moving (see the mecanum test)
    drive(
        cm,
        OMNI_CMD,
        lambda: ctrl.odometry.y > 0.2 and any(m.pose.pose.position.y > 0.1 for m in odom),
        vy=0.5,
    )
    # cos(0) = 1, cos(120) = cos(240) = -0.5: (-10, 5, 5)
    assert omni_wheels(cm) == pytest.approx((-10.0, 5.0, 5.0))
    # odometry from the integrated wheel positions: y only
    assert ctrl.odometry.x == pytest.approx(0.0, abs=1e-9)
    assert ctrl.odometry.heading == pytest.approx(0.0, abs=1e-9)
    assert ctrl.odometry.vy == pytest.approx(0.5)
    moving = next(m for m in odom if m.pose.pose.position.y > 0.1)
    assert moving.pose.pose.position.x == pytest.approx(0.0, abs=1e-9)
    assert moving.twist.twist.linear.y == pytest.approx(0.5)
    assert cm.run_until(lambda: any(m.transforms[0].transform.translation.y > 0.1 for m in tf))
    assert tf[-1].transforms[0].child_frame_id == 'base_link'


@OMNI
def test_omni_rotation(base):
    cm, ctrl = base
    drive(cm, OMNI_CMD, lambda: ctrl.odometry.heading < -0.5, wz=-1.0)
    assert omni_wheels(cm) == pytest.approx((4.0, 4.0, 4.0))
    assert (ctrl.odometry.x, ctrl.odometry.y) == pytest.approx((0.0, 0.0), abs=1e-9)


@OMNI
def test_omni_non_finite_cmd_vel_is_refused(base, capfd):
    cm, _ctrl = base
    drive(cm, OMNI_CMD, lambda: omni_wheels(cm) == pytest.approx((-10.0, 5.0, 5.0)), vy=0.5)
    pub = cm.publisher(OMNI_CMD, TwistStamped)
    pub.publish(twist(wall_step(cm), vx=math.nan))
    line = 'cmd_vel rejected: non-finite velocity (nan, 0.0, 0.0)'
    seen = ''

    def refused():
        nonlocal seen
        seen += capfd.readouterr().err
        wall_step(cm)
        assert omni_wheels(cm) == pytest.approx((-10.0, 5.0, 5.0))
        return line in seen

    assert cm.harness.spin_until(refused), seen


# --- tricycle --------------------------------------------------------------------------
# wheelbase 0.3, wheel_radius 0.1

TRICYCLE = pytest.mark.parametrize(
    'base', [('tricycle_base.urdf', 'tricycle_controller')], indirect=True
)
TRICYCLE_CMD = '/tricycle_controller/cmd_vel'


def tricycle_commands(cm):
    return cm.command('traction_joint/velocity'), cm.command('steering_joint/position')


@TRICYCLE
def test_tricycle_drives_turns_and_resets_odometry(base):
    cm, ctrl = base
    drive(cm, TRICYCLE_CMD, lambda: ctrl.odometry.x > 0.3, vx=0.5)
    assert tricycle_commands(cm) == pytest.approx((5.0, 0.0))
    assert ctrl.odometry.y == pytest.approx(0.0, abs=1e-12)
    # turning at 0.5 m/s, 1 rad/s: steer atan(1 * 0.3 / 0.5), speed 0.5 / (0.1 cos(alpha))
    alpha = math.atan(0.6)
    expected = (5.0 / math.cos(alpha), alpha)
    # publish_ackermann_command: the same limited commands on ~/cmd_ackermann, speed as the
    # wheel's rad/s (float32)
    ackermann = cm.harness.subscribe(AckermannDrive, '/tricycle_controller/cmd_ackermann')

    def published(msg) -> tuple[float, float]:
        return msg.speed, msg.steering_angle

    drive(
        cm,
        TRICYCLE_CMD,
        lambda: (
            tricycle_commands(cm) == pytest.approx(expected)
            and bool(ackermann)
            and published(ackermann[-1]) == pytest.approx(expected, rel=1e-6)
        ),
        vx=0.5,
        wz=1.0,
    )
    drive(cm, TRICYCLE_CMD, lambda: ctrl.odometry.heading > 0.3, vx=0.5, wz=1.0)
    client = cm.harness.node.create_client(Empty, '/tricycle_controller/reset_odometry')
    assert cm.harness.spin_until(client.service_is_ready)
    future = client.call_async(Empty.Request())
    assert cm.harness.spin_until(future.done)
    cm.step(1)
    assert (ctrl.odometry.x, ctrl.odometry.y, ctrl.odometry.heading) == (0.0, 0.0, 0.0)


@TRICYCLE
def test_tricycle_non_finite_cmd_vel_is_refused(base, capfd):
    cm, _ctrl = base
    drive(cm, TRICYCLE_CMD, lambda: tricycle_commands(cm) == pytest.approx((3.0, 0.0)), vx=0.3)
    pub = cm.publisher(TRICYCLE_CMD, TwistStamped)
    pub.publish(twist(wall_step(cm), vx=0.3, wz=math.inf))
    line = 'cmd_vel rejected: non-finite velocity (0.3, inf)'
    seen = ''

    def refused():
        nonlocal seen
        seen += capfd.readouterr().err
        wall_step(cm)
        assert tricycle_commands(cm) == pytest.approx((3.0, 0.0))
        return line in seen

    assert cm.harness.spin_until(refused), seen


def test_a_tricycle_parameter_refused_at_configure_leaves_a_clean_error(capfd, tmp_path):
    # a parameter refused at configure (here wheel_radius -0.1); on_error then raised
    # AttributeError('odometry') (the odometry is made after the parameters are read)
    wrong = tmp_path / 'wrong.yaml'
    wrong.write_text('tricycle_controller:\n  ros__parameters:\n    wheel_radius: -0.1\n')
    harness = RosHarness(
        'tricycle_refused',
        args=[
            '--ros-args', '--params-file', str(CONFIG / 'mobile_bases.yaml'),
            '--params-file', str(wrong),
        ],
    )  # fmt: skip
    cm = SteppedManager(harness, (CONFIG / 'tricycle_base.urdf').read_text())
    try:
        ok, msg = cm.manager.load_controller('tricycle_controller')
        assert ok, msg
        ok, msg = cm.manager.configure_controller('tricycle_controller')
        assert not ok and 'failed to configure' in msg
        cm.manager.deferred.run_pending()
        err = capfd.readouterr().err
        assert 'wheel_radius' in err, err  # the refusal names the parameter
        assert 'raised' not in err, err
    finally:
        cm.shutdown()
        harness.close()
