"""joint_trajectory_controller on the simulated 6-joint arm: actions, topic, query_state, PIDs.

The manager runs in-process. Most tests stop its loop thread and run read -> update -> write
themselves with the configured 10 ms period, so trajectory timing depends only on cycle
counts; one test keeps the real loop running to see action feedback arrive at
action_monitor_rate. Goals go through a real action client, trajectories and log lines
(/rosout) through real topics. The goal monitor (goal_monitor.py) is also tested on its own,
serving GripperCommand as the gripper action controllers will, with a thread standing in for
the loop.
"""

import gc
import math
import threading

import pytest
import rclpy
import yaml
from action_msgs.msg import GoalStatus
from builtin_interfaces.msg import Duration as DurationMsg
from control_msgs.action import FollowJointTrajectory, GripperCommand
from control_msgs.msg import JointTolerance, JointTrajectoryControllerState, SpeedScalingFactor
from control_msgs.srv import QueryTrajectoryState
from rcl_interfaces.msg import Log
from rclpy.action import ActionClient, GoalResponse
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from py_controllers import plugins
from py_controllers.controller_interface.goal_monitor import (
    ABORTED,
    CANCELED,
    SUCCEEDED,
    GoalMonitor,
)
from py_controllers.controller_manager.node import ControllerManagerRuntime
from py_controllers.controllers.joint_trajectory.controller import JointTrajectoryController
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.robot_description import swap_hardware
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

plugins.register(
    plugins.CONTROLLERS_GROUP,
    'joint_trajectory_controller/JointTrajectoryController',
    JointTrajectoryController,
)
plugins.register(plugins.HARDWARE_GROUP, 'py_controllers/SimulatedSystem', SimulatedSystem)

JOINTS = [f'joint{i}' for i in range(1, 7)]
JTC = 'joint_trajectory_controller'
TYPE = 'joint_trajectory_controller/JointTrajectoryController'
PERIOD_NS = 10_000_000  # 100 Hz, as in the arm configurations
MOCK = 'mock_components/GenericSystem'
ARM_URDF = (CONFIG / 'arm_robot.urdf').read_text()
# hardware that never moves: states ignore commands
FROZEN_URDF = swap_hardware(ARM_URDF, MOCK, {'disable_commands': 'true'})
SIM_URDF = swap_hardware(ARM_URDF, 'py_controllers/SimulatedSystem')
R = FollowJointTrajectory.Result


def point(t_s, positions, velocities=None, accelerations=None, effort=None):
    p = JointTrajectoryPoint(positions=[float(x) for x in positions])
    if velocities is not None:
        p.velocities = [float(x) for x in velocities]
    if accelerations is not None:
        p.accelerations = [float(x) for x in accelerations]
    if effort is not None:
        p.effort = [float(x) for x in effort]
    ns = round(t_s * 1e9)
    p.time_from_start = DurationMsg(sec=ns // 10**9, nanosec=ns % 10**9)
    return p


def trajectory(points, names=JOINTS, stamp_ns=0):
    msg = JointTrajectory(joint_names=list(names), points=list(points))
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 10**9)
    return msg


def goal_of(points, names=JOINTS, **fields):
    goal = FollowJointTrajectory.Goal(trajectory=trajectory(points, names))
    for key, value in fields.items():
        setattr(goal, key, value)
    return goal


class _NoAliases(yaml.SafeDumper):
    """rcl's YAML parser refuses anchors and aliases: write shared lists out each time."""

    def ignore_aliases(self, data):
        return True


class Rig:
    """The arm with a manager in this process; stepped by the test unless `stepped=False`."""

    def __init__(self, tmp_path, urdf=ARM_URDF, config='arm_mock_controllers.yaml', **kw):
        variants = kw.get('variants', {})
        extra = tmp_path / 'variants.yaml'
        manager_params = {name: {'type': TYPE} for name in variants}
        if urdf is FROZEN_URDF:
            # the measured state never moves: the joint limiters would (rightly) keep the
            # commands within reach of it; these tests look at the controller alone
            manager_params['enforce_command_limits'] = False
        document = {
            'controller_manager': {'ros__parameters': manager_params},
            **{name: {'ros__parameters': params} for name, params in variants.items()},
        }
        extra.write_text(yaml.dump(document, Dumper=_NoAliases))
        self.harness = RosHarness(
            'jtc_test',
            args=['--ros-args', '--params-file', str(CONFIG / config), '--params-file', str(extra)],
        )
        self.stepped = kw.get('stepped', True)
        if self.stepped:
            start_ns = self.harness.node.get_clock().now().nanoseconds
            self.stepper = SteppedManager(
                self.harness, urdf, period_ns=PERIOD_NS, start_ns=start_ns
            )
            self.node = self.stepper.node
        else:
            self.node = ControllerManagerRuntime(
                self.harness.executor,
                context=self.harness.context,
                parameter_overrides=[Parameter('robot_description', value=urdf)],
            )
        self.manager = self.node.manager
        latched = QoSProfile(
            depth=1000,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        )
        self.rosout = self.harness.subscribe(Log, '/rosout', latched)
        self._clients = {}
        self._publishers = {}

    # --- the loop --------------------------------------------------------------------
    @property
    def now_ns(self):
        return self.stepper.now_ns

    @now_ns.setter
    def now_ns(self, value):
        self.stepper.now_ns = value

    def step(self, cycles=1):
        self.stepper.step(cycles)

    def run_until(self, predicate, timeout_s=20.0):
        """Spin (and step, when stepped) until `predicate()`; the timeout only guards."""
        if not self.stepped:
            return self.harness.spin_until(predicate, timeout_s)
        return self.stepper.run_until(predicate, timeout_s)

    def run_for(self, seconds):
        """Step `seconds` of controller time while serving callbacks."""
        self.stepper.run_for(seconds)

    # --- controllers -----------------------------------------------------------------
    def start(self, *names):
        for name in names:
            ok, msg = self.manager.load_controller(name)
            assert ok, msg
            ok, msg = self.manager.configure_controller(name)
            assert ok, msg
        ok, msg = self.manager.switch_controller(list(names), [], 2)
        assert ok, msg
        return [self.manager.controllers[n].controller for n in names]

    def position(self, joint):
        return self.manager.rm.state_interfaces[f'{joint}/position'].value

    def positions(self):
        return [self.position(j) for j in JOINTS]

    def command(self, joint, interface='position'):
        return self.manager.rm.command_interfaces[f'{joint}/{interface}'].value

    def logged(self, *texts):
        """True once a /rosout line contains every one of `texts`."""
        return any(all(t in m.msg for t in texts) for m in self.rosout)

    def wait_logged(self, *texts):
        """Run until a /rosout line contains every one of `texts`; fail showing /rosout."""
        seen = self.run_until(lambda: self.logged(*texts))
        assert seen, f'{texts} not logged; /rosout: {[m.msg for m in self.rosout]}'

    # --- ROS clients -----------------------------------------------------------------
    def client(self, controller=JTC):
        if controller not in self._clients:
            client = ActionClient(
                self.harness.node, FollowJointTrajectory, f'/{controller}/follow_joint_trajectory'
            )
            assert client.wait_for_server(timeout_sec=10.0)
            self._clients[controller] = client
        return self._clients[controller]

    def send_goal(self, goal, controller=JTC, feedback=None):
        future = self.client(controller).send_goal_async(goal, feedback_callback=feedback)
        assert self.harness.spin_until(future.done)
        return future.result()

    def result(self, goal_handle):
        """Run until the goal's result arrives; (status, result)."""
        future = goal_handle.get_result_async()
        assert self.run_until(future.done), 'no result'
        response = future.result()
        return response.status, response.result

    def publish(self, msg, controller=JTC):
        if controller not in self._publishers:
            self._publishers[controller] = self.harness.node.create_publisher(
                JointTrajectory, f'/{controller}/joint_trajectory', 10
            )
            pub = self._publishers[controller]
            assert self.harness.spin_until(lambda: pub.get_subscription_count() > 0)
        self._publishers[controller].publish(msg)

    def close(self):
        self.node.shutdown()
        self.harness.close()
        # An unloaded controller's rcl node is only finalized when its LifecycleNode object is
        # collected; rcl then drops the /rosout publisher registered under its name, even if
        # a newer node (the next test's controller) uses that name by then. Collect now.
        gc.collect()


@pytest.fixture
def arm(tmp_path):
    rig = Rig(
        tmp_path,
        variants={
            'jtc_partial': {
                'joints': JOINTS,
                'command_interfaces': ['position'],
                'state_interfaces': ['position', 'velocity'],
                'allow_partial_joints_goal': True,
            },
            'jtc_bad_combination': {
                'joints': JOINTS,
                'command_interfaces': ['velocity', 'acceleration'],
                'state_interfaces': ['position', 'velocity'],
            },
            'jtc_velocity_without_velocity_state': {
                'joints': JOINTS,
                'command_interfaces': ['velocity'],
                'state_interfaces': ['position'],
            },
        },
    )
    yield rig
    rig.close()


@pytest.fixture
def frozen_arm(tmp_path):
    rig = Rig(tmp_path, urdf=FROZEN_URDF)
    yield rig
    rig.close()


# --- action goals --------------------------------------------------------------------


def test_six_joint_goal_succeeds_with_feedback_on_the_real_loop(tmp_path):
    rig = Rig(tmp_path, stepped=False)
    try:
        rig.start('joint_state_broadcaster', JTC)
        joint_states = rig.harness.subscribe(JointState, '/joint_states')
        target = [0.4, -0.3, 0.5, 2.5, -0.2, 0.1]
        feedback = []
        goal = goal_of(
            # slow enough that a late cycle on a loaded machine stays inside the 0.1 rad
            # path tolerance of the mock arm (one cycle of lag at full speed is the error)
            [point(1.0, [x / 2 for x in target]), point(2.0, target, [0.0] * 6)],
        )
        handle = rig.send_goal(goal, feedback=feedback.append)
        assert handle.accepted
        status, result = rig.result(handle)
        assert status == GoalStatus.STATUS_SUCCEEDED
        assert result.error_code == R.SUCCESSFUL
        assert result.error_string == 'Goal successfully reached!'
        assert feedback, 'no feedback while executing'
        first = feedback[0].feedback
        assert list(first.joint_names) == JOINTS
        assert len(first.desired.positions) == 6 and len(first.actual.positions) == 6
        for m in feedback:  # each message from one cycle: error = desired - actual
            fb = m.feedback
            for field in ('positions', 'velocities'):
                desired, actual = getattr(fb.desired, field), getattr(fb.actual, field)
                expected = [d - a for d, a in zip(desired, actual)]
                assert list(getattr(fb.error, field)) == pytest.approx(expected, abs=1e-12)
        # within the goal tolerance (0.02) of the final point, as /joint_states shows
        count = len(joint_states)
        assert rig.harness.spin_until(lambda: len(joint_states) > count)
        final = joint_states[-1]
        by_name = dict(zip(final.name, final.position))
        for joint, expected in zip(JOINTS, target):
            assert by_name[joint] == pytest.approx(expected, abs=0.02)
    finally:
        rig.close()


def test_new_goal_preempts_the_active_one(arm):
    arm.start(JTC)
    first = arm.send_goal(goal_of([point(2.0, [1.0] * 6)]))
    arm.run_for(0.2)
    second = arm.send_goal(goal_of([point(0.5, [-0.5] * 6)]))
    assert first.accepted and second.accepted
    status, result = arm.result(first)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.error_code == R.INVALID_GOAL
    assert result.error_string == 'Current goal preempted by new incoming action.'
    status, result = arm.result(second)
    assert status == GoalStatus.STATUS_SUCCEEDED and result.error_code == R.SUCCESSFUL
    assert arm.positions() == pytest.approx([-0.5] * 6, abs=1e-9)


def test_cancel_stops_and_holds(arm):
    arm.start(JTC)
    handle = arm.send_goal(goal_of([point(1.0, [1.0] * 6)]))
    arm.run_for(0.4)
    cancel = handle.cancel_goal_async()
    assert arm.run_until(cancel.done)
    assert len(cancel.result().goals_canceling) == 1
    status, result = arm.result(handle)
    assert status == GoalStatus.STATUS_CANCELED
    assert result.error_code == R.SUCCESSFUL and result.error_string == ''
    stopped = arm.positions()
    assert 0.2 < stopped[0] < 0.9  # stopped on the way
    arm.run_for(0.5)
    assert arm.positions() == stopped  # and holds there


def test_invalid_goals_are_rejected_with_a_reason_and_the_arm_keeps_holding(arm):
    arm.start(JTC)
    arm.run_for(0.05)
    still = arm.positions()
    zeros = [0.0] * 6
    past = arm.harness.node.get_clock().now().nanoseconds - 10 * 10**9
    nan = [0.0, 0.0, math.nan, 0.0, 0.0, 0.0]
    cases = [
        (
            goal_of([point(1.0, zeros)], names=[*JOINTS[:5], 'jointX']),
            "Incoming joint jointX doesn't match the controller's joints.",
        ),
        (
            goal_of([point(1.0, zeros)], names=[*JOINTS[:5], 'joint1']),
            'Incoming trajectory names joint joint1 more than once.',
        ),
        (goal_of([]), 'Empty trajectory received.'),
        (
            goal_of([point(1.0, zeros[:5])]),
            'Mismatch between joint_names size (6) and positions (5) at point #0.',
        ),
        (
            goal_of([point(1.0, zeros), point(0.5, zeros)]),
            'Time between points 0 and 1 is not strictly increasing',
        ),
        (goal_of([point(1.0, nan)]), 'Non-finite value nan in positions of joint joint3'),
        (
            goal_of([point(1.0, zeros, effort=zeros)]),
            'Trajectories with effort fields are only supported',
        ),
        (
            goal_of([point(1.0, zeros, velocities=[0.5, 0, 0, 0, 0, 0])]),
            'Velocity of last trajectory point of joint joint1 is not zero',
        ),
        (
            goal_of([point(1.0, [0.3])], names=['joint1']),
            "Joints on incoming trajectory don't match the controller joints.",
        ),
    ]
    stale = goal_of([point(1.0, zeros)])
    stale.trajectory.header.stamp.sec, stale.trajectory.header.stamp.nanosec = divmod(past, 10**9)
    cases.append((stale, 'that ends in the past'))
    for goal, reason in cases:
        handle = arm.send_goal(goal)
        assert not handle.accepted, reason
        arm.wait_logged('Goal rejected: ', reason)
    arm.run_for(0.1)
    assert arm.manager.state_of(JTC).label == 'active'
    assert arm.positions() == still


def test_path_tolerance_violation_aborts_and_holds(frozen_arm):
    arm = frozen_arm
    arm.start(JTC)
    handle = arm.send_goal(goal_of([point(1.0, [1.0, 0, 0, 0, 0, 0])]))
    status, result = arm.result(handle)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.error_code == R.PATH_TOLERANCE_VIOLATED
    assert result.error_string == 'Aborted due to path tolerance violation'
    arm.wait_logged("joint 'joint1': position error")
    # holding where the arm is (it never moved), not where the trajectory was going
    arm.run_for(0.1)
    assert arm.command('joint1') == 0.0


def test_goal_time_violation_with_goal_tolerances(frozen_arm):
    arm = frozen_arm
    arm.start(JTC)
    goal = goal_of(
        [point(0.3, [0.5, 0, 0, 0, 0, 0])],
        # -1 erases the configured path tolerance, so only the goal is checked
        path_tolerance=[JointTolerance(name=j, position=-1.0) for j in JOINTS],
        goal_tolerance=[JointTolerance(name='joint1', position=0.01)],
        goal_time_tolerance=DurationMsg(sec=0, nanosec=200_000_000),
    )
    handle = arm.send_goal(goal)
    status, result = arm.result(handle)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.error_code == R.GOAL_TOLERANCE_VIOLATED
    assert result.error_string.startswith('Aborted due to goal_time_tolerance exceeding by 0.2')


def test_deactivation_aborts_the_goal(arm):
    arm.start(JTC)
    handle = arm.send_goal(goal_of([point(2.0, [1.0] * 6)]))
    arm.run_for(0.2)
    assert arm.manager.switch_controller([], [JTC], 2)[0]
    status, result = arm.result(handle)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.error_code == R.INVALID_GOAL
    assert result.error_string == 'Current goal cancelled during deactivate transition.'


def test_cancel_result_waits_until_the_loop_stops_following(arm):
    arm.start(JTC)
    handle = arm.send_goal(goal_of([point(2.0, [1.0] * 6)]))
    arm.run_for(0.2)
    result = handle.get_result_async()
    cancel = handle.cancel_goal_async()
    # serve callbacks without running a cycle: the loop still follows the goal
    assert arm.harness.spin_until(cancel.done)
    assert len(cancel.result().goals_canceling) == 1
    assert arm.harness.spin_until(lambda: handle.status == GoalStatus.STATUS_CANCELING)
    for _ in range(25):  # the monitor runs meanwhile (woken, and its timer at 20 Hz)
        arm.harness.executor.spin_once(timeout_sec=0.02)
    assert not result.done() and handle.status == GoalStatus.STATUS_CANCELING
    arm.step()  # the loop takes the stop: now the result goes out
    assert arm.harness.spin_until(result.done)
    assert result.result().status == GoalStatus.STATUS_CANCELED
    stopped = arm.positions()
    arm.run_for(0.2)
    assert arm.positions() == stopped


def test_empty_topic_trajectory_ends_the_active_goal(arm):
    arm.start(JTC)
    handle = arm.send_goal(goal_of([point(2.0, [1.0] * 6)]))
    assert arm.run_until(lambda: arm.position('joint1') > 0.2)
    arm.publish(JointTrajectory())
    status, result = arm.result(handle)
    # rclpy lets a goal end CANCELED only after a client's cancel request
    assert status == GoalStatus.STATUS_ABORTED
    assert result.error_code == R.INVALID_GOAL
    assert result.error_string == 'Goal stopped by an empty trajectory on the topic'
    arm.run_for(0.05)
    stopped = arm.positions()
    arm.run_for(0.3)
    assert arm.positions() == stopped and stopped[0] < 0.9


def test_cleanup_leaves_no_goal_without_a_terminal_state(arm):
    arm.start(JTC)
    handle = arm.send_goal(goal_of([point(2.0, [1.0] * 6)]))
    arm.run_for(0.1)
    # deactivate and clean up at once: the monitor gets no turn in between
    assert arm.manager.switch_controller([], [JTC], 2)[0]
    assert arm.manager.cleanup_controller(JTC)[0]
    assert arm.harness.spin_until(lambda: handle.status == GoalStatus.STATUS_ABORTED)


# --- the goal monitor on its own, serving GripperCommand ---------------------------------


class _Gripper:
    """A GoalMonitor serving GripperCommand, as a gripper action controller would, with a
    'loop' thread that records outcomes and fills feedback. The test spins with alternating
    spin_once timeouts: with a task pending in the executor (a coroutine awaiting the
    outcome) rclpy would then run nothing but that task (ros2/rclpy#1159)."""

    def __init__(self):
        self.harness = RosHarness('goal_monitor_test')
        self.server = rclpy.create_node('gripper', context=self.harness.context)
        self.harness.executor.add_node(self.server)
        self.accepted, self.canceled, self.consulted = [], [], []
        self.following = set()
        self.monitor = GoalMonitor(
            self.server,
            GripperCommand,
            '~/gripper_cmd',
            validate_goal=self.validate,
            goal_accepted=self.accepted.append,
            cancel_requested=self.cancel,
            make_result=lambda d: GripperCommand.Result(position=d[0], reached_goal=d[1]),
            feedback_rate_hz=100.0,
            following=self.follows,
        )
        self.client = ActionClient(self.harness.node, GripperCommand, '/gripper/gripper_cmd')
        assert self.client.wait_for_server(timeout_sec=10.0)
        self._flip = False

    def validate(self, request):
        return GoalResponse.ACCEPT if request.command.max_effort >= 0.0 else GoalResponse.REJECT

    def cancel(self, goal):
        self.canceled.append(goal)
        self.monitor.record_outcome(goal, CANCELED, (0.01, False))

    def follows(self, goal):
        self.consulted.append(goal.goal_id)
        return goal.goal_id in self.following

    def spin_until(self, predicate):
        def alternating():
            self._flip = not self._flip
            self.harness.executor.spin_once(timeout_sec=0.0 if self._flip else 0.02)
            return predicate()

        return predicate() or self.harness.spin_until(alternating)

    def send(self, position, max_effort=1.0, feedback=None):
        goal = GripperCommand.Goal()
        goal.command.position, goal.command.max_effort = position, max_effort
        future = self.client.send_goal_async(goal, feedback_callback=feedback)
        assert self.spin_until(future.done)
        return future.result()

    def in_loop(self, fn):
        """Run `fn` on another thread, as the control loop would."""
        thread = threading.Thread(target=fn)
        thread.start()
        thread.join()

    def close(self):
        self.monitor.close((0.0, False))
        self.server.destroy_node()
        self.harness.close()


@pytest.fixture
def gripper():
    rig = _Gripper()
    yield rig
    rig.close()


def test_goal_monitor_delivers_success_and_abort_recorded_by_the_loop(gripper):
    feedback = []
    handle = gripper.send(0.04, feedback=feedback.append)
    assert handle.accepted
    assert gripper.spin_until(lambda: gripper.accepted)
    goal = gripper.accepted[0]
    assert goal.request.command.position == 0.04

    def fill_feedback(now_ns, position):
        def fill():
            message = goal.take_feedback_rt(now_ns)
            taken.append(message is not None)
            if message is not None:
                message.position = position
                goal.send_feedback_rt()

        gripper.in_loop(fill)

    # feedback every 10 ms of loop time (100 Hz), published by the realtime publishing
    # thread with no spinning of the server's executor
    taken = []
    fill_feedback(0, 0.02)
    assert gripper.spin_until(lambda: feedback)
    fill_feedback(9_999_999, 0.03)  # not due yet
    fill_feedback(10_000_000, 0.04)
    assert gripper.spin_until(lambda: len(feedback) == 2)
    fill_feedback(15_000_000, 0.05)  # due at 20 ms
    fill_feedback(1_000_000_000, 0.06)  # after a pause: due at once, then every 10 ms
    assert gripper.spin_until(lambda: len(feedback) == 3)
    fill_feedback(1_009_000_000, 0.07)
    fill_feedback(1_010_000_000, 0.08)
    assert gripper.spin_until(lambda: len(feedback) == 4)
    fill_feedback(5_000_000, 0.09)  # loop time jumped back: due at once, not in a second
    assert gripper.spin_until(lambda: len(feedback) == 5)
    assert taken == [True, False, True, False, True, False, True, True]
    assert [m.feedback.position for m in feedback] == [0.02, 0.04, 0.06, 0.08, 0.09]
    result = handle.get_result_async()
    gripper.in_loop(lambda: gripper.monitor.record_outcome(goal, SUCCEEDED, (0.04, True)))
    assert gripper.spin_until(result.done)
    assert result.result().status == GoalStatus.STATUS_SUCCEEDED
    assert result.result().result.position == 0.04 and result.result().result.reached_goal

    handle = gripper.send(0.0)
    assert gripper.spin_until(lambda: len(gripper.accepted) == 2)
    result = handle.get_result_async()
    gripper.in_loop(
        lambda: gripper.monitor.record_outcome(gripper.accepted[1], ABORTED, (0.03, False))
    )
    assert gripper.spin_until(result.done)
    assert result.result().status == GoalStatus.STATUS_ABORTED
    assert result.result().result.position == 0.03 and not result.result().result.reached_goal

    assert not gripper.send(0.0, max_effort=-1.0).accepted
    assert len(gripper.accepted) == 2


def test_goal_monitor_delivers_cancel_once_the_loop_stops_following(gripper):
    handle = gripper.send(0.04)
    assert gripper.spin_until(lambda: gripper.accepted)
    goal = gripper.accepted[0]
    gripper.following.add(goal.goal_id)
    result = handle.get_result_async()
    cancel = handle.cancel_goal_async()
    assert gripper.spin_until(cancel.done)
    assert len(cancel.result().goals_canceling) == 1 and gripper.canceled == [goal]
    # woken by the outcome, the monitor held the result back: the loop follows the goal;
    # woken again while it still does, it holds it again
    assert gripper.spin_until(lambda: gripper.consulted.count(goal.goal_id) == 1)
    gripper.in_loop(gripper.monitor.wake_rt)
    assert gripper.spin_until(lambda: gripper.consulted.count(goal.goal_id) == 2)
    assert not result.done()

    def stop_following():
        gripper.following.discard(goal.goal_id)
        gripper.monitor.wake_rt()

    gripper.in_loop(stop_following)
    assert gripper.spin_until(result.done)
    assert result.result().status == GoalStatus.STATUS_CANCELED
    assert result.result().result.position == 0.01


def test_goal_monitor_close_finishes_open_goals(gripper):
    handle = gripper.send(0.04)
    assert gripper.spin_until(lambda: gripper.accepted)
    gripper.monitor.close((0.0, False))
    assert gripper.spin_until(lambda: handle.status == GoalStatus.STATUS_ABORTED)


# --- topic, partial goals, query_state ------------------------------------------------


def test_controller_state_holds_one_cycles_reference_feedback_and_error(arm):
    arm.start(JTC)
    states = arm.harness.subscribe(JointTrajectoryControllerState, f'/{JTC}/controller_state')
    arm.publish(trajectory([point(1.0, [0.6, 0.5, 0.4, 0.3, 0.2, 0.1])]))
    assert arm.run_until(lambda: any(m.reference.positions[0] > 0.3 for m in states))
    moving = [m for m in states if m.reference.positions[0] > 0.0]
    for m in moving:
        assert list(m.joint_names) == JOINTS
        for field in ('positions', 'velocities'):
            reference, measured = getattr(m.reference, field), getattr(m.feedback, field)
            expected = [r - f for r, f in zip(reference, measured)]
            assert list(getattr(m.error, field)) == pytest.approx(expected, abs=1e-12)
        # the mock arm commands positions; the output holds what was written
        assert len(m.output.positions) == 6 and all(math.isfinite(x) for x in m.output.positions)
    # along the linear segment the reference moves at 0.6 rad/s on joint1
    assert moving[-1].reference.velocities[0] == pytest.approx(0.6, abs=1e-9)


def test_topic_trajectory_in_jumbled_order_empty_stops_stamps_respected(arm):
    arm.start(JTC)
    # jumbled joint order: joint k goes to 0.1 * k
    arm.publish(trajectory([point(0.3, [0.6, 0.5, 0.4, 0.3, 0.2, 0.1])], names=JOINTS[::-1]))
    assert arm.run_until(lambda: arm.position('joint6') == pytest.approx(0.6, abs=1e-12))
    arm.run_for(0.05)
    assert arm.positions() == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], abs=1e-12)

    # a trajectory that ended in the past is ignored
    past = arm.harness.node.get_clock().now().nanoseconds - 10 * 10**9
    arm.publish(trajectory([point(1.0, [0.0] * 6)], stamp_ns=past))
    arm.wait_logged('Trajectory rejected: ', 'that ends in the past')
    assert arm.positions() == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], abs=1e-12)

    # a future stamp: the first point (here: where the arm is) is due 0.5 s from now
    here = arm.positions()
    start = arm.stepper.catch_up_with_clock() + 500_000_000
    arm.publish(trajectory([point(0.0, here), point(0.3, [0.0] * 6)], stamp_ns=start))
    arm.run_for(0.3)
    assert arm.positions() == pytest.approx(here, abs=1e-9)  # not started yet
    assert arm.run_until(lambda: arm.position('joint6') == pytest.approx(0.0, abs=1e-12))

    # an empty trajectory stops a moving arm where it is
    arm.publish(trajectory([point(2.0, [1.0] * 6)]))
    assert arm.run_until(lambda: arm.position('joint1') > 0.2)
    arm.publish(JointTrajectory())
    arm.wait_logged('Empty trajectory received on ~/joint_trajectory')
    arm.run_for(0.05)
    stopped = arm.positions()
    arm.run_for(0.3)
    assert arm.positions() == stopped
    assert stopped[0] < 0.9


def test_partial_topic_trajectory_during_a_goal_keeps_the_other_joints_going(arm):
    arm.start('jtc_partial')
    handle = arm.send_goal(goal_of([point(1.0, [0.6] * 6)]), controller='jtc_partial')
    arm.run_for(0.3)
    arm.publish(trajectory([point(0.3, [-0.2])], names=['joint1']), controller='jtc_partial')
    status, result = arm.result(handle)
    # the goal stays active and is judged against the combined trajectory
    assert status == GoalStatus.STATUS_SUCCEEDED and result.error_code == R.SUCCESSFUL
    assert arm.positions() == pytest.approx([-0.2, 0.6, 0.6, 0.6, 0.6, 0.6], abs=1e-9)


def test_query_state_samples_the_trajectory(arm):
    arm.start(JTC)
    client = arm.harness.node.create_client(QueryTrajectoryState, f'/{JTC}/query_state')
    assert client.wait_for_service(timeout_sec=10.0)

    def query(time_ns):
        request = QueryTrajectoryState.Request()
        request.time.sec, request.time.nanosec = divmod(time_ns, 10**9)
        future = client.call_async(request)
        assert arm.harness.spin_until(future.done)
        return future.result()

    start = arm.stepper.catch_up_with_clock() + 100_000_000
    arm.publish(
        trajectory([point(0.0, [0.0] * 6), point(1.0, [1.0, 0, 0, 0, 0, 0])], stamp_ns=start)
    )
    assert arm.run_until(lambda: arm.position('joint1') > 0.0)
    # linear segment 0 -> 1 rad over 1 s: at its middle 0.5 rad moving at 1 rad/s
    middle = query(start + 500_000_000)
    assert middle.success
    assert list(middle.name) == JOINTS
    assert list(middle.position) == pytest.approx([0.5, 0, 0, 0, 0, 0], abs=1e-9)
    assert list(middle.velocity) == pytest.approx([1.0, 0, 0, 0, 0, 0], abs=1e-9)
    assert not query(start + 2 * 10**9).success  # after the end
    assert not query(start - 10 * 10**9).success  # before the start
    # querying has no side effects: the trajectory plays on to its end
    assert arm.run_until(lambda: arm.position('joint1') == pytest.approx(1.0, abs=1e-12))


def test_illegal_interface_combinations_fail_configure(arm):
    for name, reason in (
        (
            'jtc_bad_combination',
            "'velocity' command interface can be used either alone or 'position'",
        ),
        (
            'jtc_velocity_without_velocity_state',
            "'velocity' command interface can only be used alone if 'velocity' and 'position' "
            'state interfaces are present',
        ),
    ):
        assert arm.manager.load_controller(name)[0]
        ok, _ = arm.manager.configure_controller(name)
        assert not ok
        arm.wait_logged(reason)


def test_a_clock_jump_does_not_jump_the_trajectory(arm):
    arm.start(JTC)
    # linear 0 -> 1 rad over 1 s: 0.01 rad per 10 ms cycle
    arm.publish(trajectory([point(0.0, [0.0] * 6), point(1.0, [1.0, 0, 0, 0, 0, 0])]))
    assert arm.run_until(lambda: arm.position('joint1') > 0.0)
    arm.run_for(0.3)
    before = arm.position('joint1')
    arm.now_ns += 3600 * 10**9  # the system clock jumps an hour ahead
    arm.step(1)
    assert arm.position('joint1') - before == pytest.approx(0.01, abs=1e-9)
    arm.now_ns -= 7200 * 10**9  # and two hours back
    arm.step(1)
    assert arm.position('joint1') - before == pytest.approx(0.02, abs=1e-9)


def test_speed_scaling_slows_trajectory_time(arm):
    arm.start(JTC)
    qos = QoSProfile(
        depth=1,
        reliability=ReliabilityPolicy.RELIABLE,
        durability=DurabilityPolicy.TRANSIENT_LOCAL,
    )
    scaling = arm.harness.node.create_publisher(
        SpeedScalingFactor, f'/{JTC}/speed_scaling_input', qos
    )
    scaling.publish(SpeedScalingFactor(factor=0.5))
    arm.wait_logged('New scaling factor will be 0.500000')
    # a linear 0 -> 1 rad over 1 s of trajectory time, played at half speed
    arm.publish(trajectory([point(0.0, [0.0] * 6), point(1.0, [1.0, 0, 0, 0, 0, 0])]))
    assert arm.run_until(lambda: arm.position('joint1') > 0.0)
    arm.run_for(1.0)
    assert arm.position('joint1') == pytest.approx(0.5, abs=0.02)
    assert arm.run_until(lambda: arm.position('joint1') == pytest.approx(1.0, abs=1e-12))


# --- velocity and effort commands through the PID, on simulated dynamics -------------


@pytest.mark.parametrize('config', ['arm_velocity_controllers.yaml', 'arm_effort_controllers.yaml'])
def test_pid_tracks_a_trajectory_on_simulated_dynamics(tmp_path, config):
    rig = Rig(tmp_path, urdf=SIM_URDF, config=config)
    try:
        rig.start(JTC)
        rig.run_for(0.5)  # settle (the effort arm sags under gravity until the integral builds)
        target = [0.5, -0.4, 0.6, 2.0, -0.3, 0.4]
        handle = rig.send_goal(
            goal_of(
                [
                    point(0.75, [x / 2 for x in target], [x / 1.5 for x in target]),
                    point(1.5, target, [0.0] * 6),
                ]
            )
        )
        assert handle.accepted
        status, result = rig.result(handle)
        assert result.error_string == 'Goal successfully reached!'
        assert status == GoalStatus.STATUS_SUCCEEDED
        # the path tolerance (0.2 rad) held all the way; the goal tolerance is 0.02 / 0.03
        assert rig.positions() == pytest.approx(target, abs=0.03)
    finally:
        rig.close()


# --- stopping and starting rules ---------------------------------------------------------

# mock that differentiates positions into velocities
DYNAMIC_URDF = swap_hardware(ARM_URDF, MOCK, {'calculate_dynamics': 'true'})


def test_decelerate_on_cancel_brakes_at_the_configured_rate(tmp_path):
    rig = Rig(
        tmp_path,
        urdf=DYNAMIC_URDF,
        variants={
            'jtc_decelerate': {
                'joints': JOINTS,
                'command_interfaces': ['position'],
                'state_interfaces': ['position', 'velocity'],
                'constraints': {
                    'decelerate_on_cancel': True,
                    **{j: {'max_deceleration_on_cancel': 2.0} for j in JOINTS},
                },
            }
        },
    )
    try:
        rig.start('jtc_decelerate')
        # joint1 at a steady 1 rad/s (a linear segment), the others still
        handle = rig.send_goal(
            goal_of([point(2.0, [2.0, 0, 0, 0, 0, 0])]), controller='jtc_decelerate'
        )
        rig.run_for(0.5)
        cancel = handle.cancel_goal_async()
        assert rig.run_until(cancel.done)
        at_cancel = rig.position('joint1')
        status, _ = rig.result(handle)
        assert status == GoalStatus.STATUS_CANCELED
        rig.run_for(0.8)
        # braking from 1 rad/s at 2 rad/s^2 takes 0.5 s and 1 / (2 * 2) = 0.25 rad
        assert rig.position('joint1') - at_cancel == pytest.approx(0.25, abs=0.02)
        assert rig.manager.rm.state_interfaces['joint1/velocity'].value == 0.0
    finally:
        rig.close()


def test_command_timeout_stops_a_stale_topic_trajectory(tmp_path):
    rig = Rig(
        tmp_path,
        urdf=FROZEN_URDF,
        variants={
            'jtc_timeout': {
                'joints': JOINTS,
                'command_interfaces': ['position'],
                'state_interfaces': ['position', 'velocity'],
                'cmd_timeout': 0.3,
                'constraints': {j: {'goal': 0.02} for j in JOINTS},
            }
        },
    )
    try:
        rig.start('jtc_timeout')
        # the frozen arm never gets there: the controller keeps commanding the end point...
        rig.publish(trajectory([point(0.2, [0.5] * 6)]), controller='jtc_timeout')
        assert rig.run_until(lambda: rig.command('joint1') == 0.5)
        rig.run_for(0.2)
        assert rig.command('joint1') == 0.5
        # ...until cmd_timeout after the last point: then it holds where the arm is
        assert rig.run_until(lambda: rig.command('joint1') == 0.0)
        rig.wait_logged('Aborted due to command timeout')
    finally:
        rig.close()


def test_start_from_the_last_command_on_activation_and_for_new_trajectories(tmp_path):
    rig = Rig(
        tmp_path,
        urdf=FROZEN_URDF,  # commands move, the measured state stays at 0
        variants={
            'jtc_from_command': {
                'joints': JOINTS,
                'command_interfaces': ['position'],
                'state_interfaces': ['position', 'velocity'],
                'interpolate_from_desired_state': True,
            }
        },
    )
    name = 'jtc_from_command'
    try:
        rig.start(name)
        rig.publish(trajectory([point(0.2, [0.3] * 6)]), controller=name)
        assert rig.run_until(lambda: rig.command('joint1') == 0.3)
        # the next trajectory starts from the command (0.3), not from the measured 0
        rig.publish(trajectory([point(1.0, [0.6] * 6)]), controller=name)
        assert rig.run_until(lambda: rig.command('joint1') > 0.3)
        rig.run_for(0.5)
        assert rig.command('joint1') == pytest.approx(0.45, abs=0.02)
        # re-activation holds at the last command (set_last_command_interface_value_...)
        assert rig.manager.switch_controller([], [name], 2)[0]
        before = rig.command('joint1')
        assert rig.manager.switch_controller([name], [], 2)[0]
        rig.run_for(0.1)
        assert rig.command('joint1') == pytest.approx(before, abs=1e-12)
    finally:
        rig.close()
