"""diff_drive_controller on a mock base: cmd_vel in, odometry, TF and limits out."""

import itertools
import math
import re

import pytest
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from rclpy.parameter import Parameter
from tf2_msgs.msg import TFMessage

from py_controllers.controller_manager.node import ControllerManagerRuntime
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.robot_description import swap_hardware
from py_controllers.testing import CONFIG, RosHarness, SteppedManager, stamp_ns

MOCK_BASE = swap_hardware(
    (CONFIG / 'diffbot.urdf').read_text(),
    'mock_components/GenericSystem',
    {'calculate_dynamics': 'true'},
)


def diffbot_harness(name, tmp_path, extra_parameter):
    """A harness whose context carries diffbot_controllers.yaml plus one diff drive setting."""
    extra = tmp_path / 'extra.yaml'
    extra.write_text(f'diff_drive_controller:\n  ros__parameters:\n    {extra_parameter}\n')
    args = ['--ros-args', '--params-file', str(CONFIG / 'diffbot_controllers.yaml')]
    return RosHarness(name, args=[*args, '--params-file', str(extra)])


@pytest.fixture
def base(tmp_path):
    harness = diffbot_harness('diff_drive_test', tmp_path, 'publish_limited_velocity: true')
    node = ControllerManagerRuntime(
        harness.executor,
        context=harness.context,
        args=harness.args,
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
    return stamp_ns(msg) * 1e-9


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


def test_set_odometry(base):
    from control_msgs.srv import SetOdometry

    harness, _ = base
    odom = harness.subscribe(Odometry, '/diff_drive_controller/odom')
    pub = harness.node.create_publisher(TwistStamped, '/diff_drive_controller/cmd_vel', 10)
    client = harness.node.create_client(SetOdometry, '/diff_drive_controller/set_odometry')
    assert harness.spin_until(client.service_is_ready)
    future = client.call_async(SetOdometry.Request(x=2.0, y=-1.0, yaw=0.5))
    assert harness.spin_until(future.done)
    assert future.result().success
    drive(harness, pub, 0.0, 0.0, lambda: bool(odom) and odom[-1].pose.pose.position.x == 2.0)
    assert odom[-1].pose.pose.position.y == pytest.approx(-1.0)


# --- rejected input, cycle by cycle ------------------------------------------------------
#
# The manager runs in-process with its loop thread stopped; the tests run each cycle
# themselves, with the fixed 10 ms period but at the node clock's time, as the real loop
# does: the callback judges a stamp by the node clock and the loop by its own time, so
# the two must be the same clock for cmd_vel_timeout to mean anything.

CMD_VEL = '/diff_drive_controller/cmd_vel'
# wheel_separation 0.40, wheel_radius 0.05: wheel = (linear -+ angular * 0.2) / 0.05


@pytest.fixture
def stepped():
    harness = RosHarness(
        'diff_drive_stepped',
        args=['--ros-args', '--params-file', str(CONFIG / 'diffbot_controllers.yaml')],
    )
    cm = SteppedManager(harness, MOCK_BASE)
    (ctrl,) = cm.start('diff_drive_controller')
    pub = cm.publisher(CMD_VEL, TwistStamped)
    assert harness.spin_until(lambda: pub.get_subscription_count() > 0)
    yield cm, ctrl
    cm.shutdown()
    harness.close()


class Log:
    """What this process wrote to stderr (the rcutils console output) during the test."""

    def __init__(self, capfd):
        self.capfd = capfd
        self.text = ''

    def __contains__(self, line):
        self.text += self.capfd.readouterr().err
        return line in self.text


def now_ns(cm):
    return cm.harness.node.get_clock().now().nanoseconds


def wall_step(cm):
    """One cycle whose time is the node clock's now (its period stays 10 ms)."""
    cm.now_ns = now_ns(cm) - cm.period_ns
    cm.step(1)


def twist(linear, angular, stamp_ns):
    msg = TwistStamped()
    msg.twist.linear.x, msg.twist.angular.z = linear, angular
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
    return msg


def reference(ctrl):
    return tuple(ref.value for ref in ctrl.reference_interfaces)


def wheels(cm):
    return (cm.command('left_wheel_joint/velocity'), cm.command('right_wheel_joint/velocity'))


def drive_stepped(cm, linear, angular, until, *, zero_stamp=False):
    """Publish a freshly stamped (linear, angular) each cycle until `until()`."""
    pub = cm.publisher(CMD_VEL, TwistStamped)

    def check():
        pub.publish(twist(linear, angular, 0 if zero_stamp else now_ns(cm)))
        wall_step(cm)
        return until()

    assert cm.harness.spin_until(check), f'({linear}, {angular}): wheels at {wheels(cm)}'


def run_until(cm, ctrl, done):
    """Cycle and serve one callback at a time until `done()`; the reference, wheel commands
    and odometry x after every cycle."""
    trace = []

    def check():
        wall_step(cm)
        trace.append((reference(ctrl), wheels(cm), ctrl.odometry.x))
        return done()

    assert cm.harness.spin_until(check), trace[-5:]
    return trace


def test_non_finite_cmd_vel_is_rejected_and_the_last_command_kept(stepped, capfd):
    cm, ctrl = stepped
    log = Log(capfd)
    pub = cm.publisher(CMD_VEL, TwistStamped)
    drive_stepped(cm, 0.4, 0.2, lambda: wheels(cm) == pytest.approx((7.2, 8.8)))
    for _ in range(15):  # the odometry's 10-sample velocity window fills with the new speed
        drive_stepped(cm, 0.4, 0.2, lambda: True)
    assert reference(ctrl) == (0.4, 0.2)
    assert ctrl.odometry.linear == pytest.approx(0.4)
    assert ctrl.odometry.angular == pytest.approx(0.2)

    # a NaN, then a valid command on the same publisher: they arrive in this order, one per
    # callback, and a cycle runs after each callback
    pub.publish(twist(math.nan, 0.2, now_ns(cm)))
    pub.publish(twist(0.1, 0.0, now_ns(cm)))
    trace = run_until(cm, ctrl, lambda: reference(ctrl) != (0.4, 0.2))
    *held, (changed, _, _) = trace
    assert changed == (0.1, 0.0), f'after the NaN cmd_vel the controller took {changed}'
    # until the valid one, the base drove on (0.4, 0.2): same reference, same wheel commands,
    # odometry still integrating
    assert held
    for ref, wheel, _ in held:
        assert ref == (0.4, 0.2)
        assert wheel == pytest.approx((7.2, 8.8))
    xs = [x for _, _, x in trace]
    assert all(b > a for a, b in itertools.pairwise(xs)), xs
    assert ctrl.odometry.linear == pytest.approx(0.4)
    assert 'cmd_vel rejected: non-finite velocity (nan, 0.2)' in log, log.text

    drive_stepped(cm, 0.1, 0.0, lambda: wheels(cm) == pytest.approx((2.0, 2.0)))


def test_negative_or_far_future_stamp_is_rejected_without_raising(stepped, capfd):
    cm, ctrl = stepped
    log = Log(capfd)
    pub = cm.publisher(CMD_VEL, TwistStamped)
    still = (0.0, 0.0)  # nothing valid since activation: stand still
    negative = twist(1.0, 0.5, 0)
    negative.header.stamp.sec = -5
    pub.publish(negative)
    line = 'cmd_vel rejected: negative stamp (-5 s, 0 ns)'
    trace = run_until(cm, ctrl, lambda: line in log or reference(ctrl) != still)
    assert line in log, log.text
    # an hour ahead: the loop brakes cmd_vel_timeout (0.5 s) after the stamp, so taking it
    # would keep the base driving for an hour after the sender stopped
    pub.publish(twist(1.0, 0.5, now_ns(cm) + 3600 * 1_000_000_000))
    line = 's in the future, more than cmd_vel_timeout 0.5 s'
    trace += run_until(cm, ctrl, lambda: line in log or reference(ctrl) != still)
    assert re.search(r'cmd_vel rejected: stamped 3(599|600)\.\d{3} s in the future', log.text), (
        log.text
    )
    for _ in range(10):  # and nothing of either shows up later
        trace += run_until(cm, ctrl, lambda: True)
    assert {(ref, wheel) for ref, wheel, _ in trace} == {(still, (0.0, 0.0))}

    # the subscription still works: a stamped command, then a zero stamp ("now", as upstream)
    drive_stepped(cm, 0.3, 0.0, lambda: wheels(cm) == pytest.approx((6.0, 6.0)))
    drive_stepped(cm, 0.2, 0.1, lambda: wheels(cm) == pytest.approx((3.6, 4.4)), zero_stamp=True)
    assert 'cmd_vel with a zero stamp: using the time of arrival' in log, log.text


# --- before the first command (a documented difference from upstream) --------------------


def test_before_any_cmd_vel_the_wheels_get_zero_and_odometry_is_published(stepped):
    # upstream leaves its reference NaN and skips the update until cmd_vel_timeout has
    # passed (nothing written, no odometry); we command standstill from the first cycle
    cm, ctrl = stepped
    odom = cm.harness.subscribe(Odometry, '/diff_drive_controller/odom')
    assert cm.harness.spin_until(lambda: ctrl.get_node().count_subscribers('~/odom') > 0)
    assert all(math.isnan(v) for v in wheels(cm)), 'mock commands start unset'
    cm.step(1)  # 10 ms after activation, far inside cmd_vel_timeout (0.5 s)
    assert reference(ctrl) == (0.0, 0.0)
    assert wheels(cm) == (0.0, 0.0)
    assert cm.harness.spin_for_messages(odom, 1)
    assert odom[-1].header.stamp.nanosec == cm.now_ns
    assert odom[-1].pose.pose.position.x == 0.0


# --- parameters set at run time ------------------------------------------------------------
#
# `ros2 param set` on the controller's node (its parameter service, over DDS); the loop
# takes the new snapshot at its next cycle. Loop time is the command's stamp plus whole
# 10 ms periods, so the numbers depend on cycle counts only.


def set_over_ros(cm, values):
    """SetParameters on /diff_drive_controller as `ros2 param set` does; the results."""
    results = cm.harness.set_parameters('/diff_drive_controller', values)
    assert results, 'no answer from /diff_drive_controller/set_parameters'
    return results


def command_at_loop_time(cm, ctrl, linear):
    """Publish (linear, 0) stamped now and run the cycle at its stamp until it is taken."""
    stamp = now_ns(cm)
    cm.publish(CMD_VEL, TwistStamped, twist(linear, 0.0, stamp))

    def taken():
        cm.now_ns = stamp - cm.period_ns  # every try is the cycle at the stamp's time
        cm.step(1)
        return reference(ctrl) == (linear, 0.0)

    assert cm.harness.spin_until(taken), f'{linear} never arrived'


def cycles_until_braking(cm, ctrl, linear, limit=200):
    """Cycles after the command's stamp until the controller brakes (None: not in `limit`)."""
    command_at_loop_time(cm, ctrl, linear)
    for k in range(1, limit + 1):
        cm.step(1)
        if reference(ctrl) == (0.0, 0.0):
            return k
        assert reference(ctrl) == (linear, 0.0)
    return None


def test_cmd_vel_timeout_set_at_run_time_changes_when_the_base_brakes(stepped):
    cm, ctrl = stepped
    # configured 0.5 s: the first cycle more than 0.5 s after the stamp brakes
    assert cycles_until_braking(cm, ctrl, 0.4) == 51
    (result,) = set_over_ros(cm, {'cmd_vel_timeout': 0.2})
    assert result.successful, result.reason
    assert cycles_until_braking(cm, ctrl, 0.3) == 21
    (result,) = set_over_ros(cm, {'cmd_vel_timeout': 0.0})  # 0 disables the timeout
    assert result.successful, result.reason
    assert cycles_until_braking(cm, ctrl, 0.2) is None
    # a value the schema refuses changes nothing
    (result,) = set_over_ros(cm, {'cmd_vel_timeout': -1.0})
    assert not result.successful
    assert ctrl.get_node().get_parameter('cmd_vel_timeout').value == 0.0


@pytest.fixture
def stepped_every_cycle(tmp_path):
    """The stepped base with odometry published on every cycle (publish_rate 100 Hz)."""
    harness = diffbot_harness('diff_drive_every_cycle', tmp_path, 'publish_rate: 100.0')
    cm = SteppedManager(harness, MOCK_BASE)
    (ctrl,) = cm.start('diff_drive_controller')
    yield cm, ctrl
    cm.shutdown()
    harness.close()


def test_enable_odom_tf_set_at_run_time_switches_tf_off_and_on(stepped_every_cycle):
    cm, ctrl = stepped_every_cycle
    node = ctrl.get_node()
    odom = cm.harness.subscribe(Odometry, '/diff_drive_controller/odom')
    tf = cm.harness.subscribe(TFMessage, '/tf', 100)
    assert cm.harness.spin_until(
        lambda: node.count_subscribers('~/odom') > 0 and node.count_subscribers('/tf') > 0
    )

    def stamps(messages):
        return {stamp_ns(m) for m in messages}

    def tf_stamps():
        return stamps(t for m in tf for t in m.transforms)

    def cycles(n, *, with_tf):
        """n cycles, each awaited until its odometry (and TF, when on) has arrived; each
        sent before the next cycle (or the next one is skipped while it is being sent)."""
        times = []
        for _ in range(n):
            cm.step(1, sent=True)
            times.append(cm.now_ns)
            assert cm.harness.spin_until(
                lambda: cm.now_ns in stamps(odom) and (not with_tf or cm.now_ns in tf_stamps())
            )
        return times

    on = cycles(5, with_tf=True)
    (result,) = set_over_ros(cm, {'enable_odom_tf': False})
    assert result.successful, result.reason
    off = cycles(5, with_tf=False)  # odometry goes on
    (result,) = set_over_ros(cm, {'enable_odom_tf': True})
    assert result.successful, result.reason
    on_again = cycles(5, with_tf=True)
    # /tf is one publisher: its message of the last cycle arrived, so any earlier one did
    assert set(on) <= tf_stamps()
    assert tf_stamps().isdisjoint(off), sorted(tf_stamps() & set(off))
    assert set(on_again) <= tf_stamps()


def wheel_trace(cm, cycles):
    trace = []
    for _ in range(cycles):
        cm.step(1)
        trace.append(wheels(cm)[0])
    return trace


def test_speed_limits_set_at_run_time_and_inconsistent_ones_refused(stepped):
    cm, ctrl = stepped
    # configured max_acceleration 2 m/s^2: 0.02 m/s per cycle, a wheel (r = 0.05) 0.4 rad/s
    command_at_loop_time(cm, ctrl, 0.5)
    assert [wheels(cm)[0], *wheel_trace(cm, 2)] == pytest.approx([0.4, 0.8, 1.2])
    command_at_loop_time(cm, ctrl, 0.0)  # back to standstill, with a zero command held
    assert cm.run_until(lambda: wheels(cm) == (0.0, 0.0))

    (result,) = set_over_ros(cm, {'linear.x.max_acceleration': 1.0})
    assert result.successful, result.reason
    command_at_loop_time(cm, ctrl, 0.5)  # 1 m/s^2: 0.01 m/s per cycle
    assert [wheels(cm)[0], *wheel_trace(cm, 2)] == pytest.approx([0.2, 0.4, 0.6])

    # reverse acceleration above the forward one: refused by the parameter interface with
    # the limiter's reason (the set fails), so the loop keeps the limits it has
    (result,) = set_over_ros(cm, {'linear.x.max_acceleration_reverse': 5.0})
    assert not result.successful
    assert 'max_acceleration_reverse (5.0) must not exceed max_acceleration (1.0)' in (
        result.reason
    )
    assert ctrl.get_node().get_parameter('linear.x.max_acceleration_reverse').value != 5.0
    assert wheel_trace(cm, 2) == pytest.approx([0.8, 1.0])


def test_read_only_parameters_stay_as_configured(stepped):
    cm, ctrl = stepped
    results = set_over_ros(cm, {'wheel_separation': 1.0, 'wheel_separation_multiplier': 2.0})
    assert [r.successful for r in results] == [False, False]
    node = ctrl.get_node()
    assert node.get_parameter('wheel_separation').value == 0.40
    assert node.get_parameter('wheel_separation_multiplier').value == 1.0
    # turning on the spot at 1 rad/s: wheels at -+ 1 * 0.4 / 2 / 0.05 = -+4 rad/s
    drive_stepped(cm, 0.0, 1.0, lambda: wheels(cm) == pytest.approx((-4.0, 4.0)))
