"""motion_primitives_controllers/MotionPrimitivesForwardController with the mock that executes
primitives (config/motion_primitives_robot.urdf: 25 reads per primitive, 3 to stop), over a
real ExecuteMotionPrimitiveSequence action. The manager runs in this process, stepped at
10 ms (SteppedManager): the numbers depend on cycle counts only.

The PTP primitive carries upstream's values (test_motion_primitives_forward_controller,
receive_single_action_goal: q 0.1..0.6, velocity 0.7, acceleration 1.0, move_time 2.0, blend
radius 3.0), and each of them must reach the hardware's interface of that name."""

import gc
import math

import pytest
from action_msgs.msg import GoalStatus
from control_msgs.action import ExecuteMotionPrimitiveSequence
from control_msgs.msg import MotionArgument, MotionPrimitive
from geometry_msgs.msg import PoseStamped
from rclpy.action import ActionClient

from py_controllers import plugins
from py_controllers.controllers.motion_primitives import primitives as mp
from py_controllers.controllers.motion_primitives.controller import (
    MotionPrimitivesForwardController,
)
from py_controllers.hardware.motion_primitives_mock import MotionPrimitivesMockSystem
from py_controllers.realtime_tools import realtime_publisher
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

plugins.register(
    plugins.HARDWARE_GROUP, 'py_controllers/MotionPrimitivesMockSystem', MotionPrimitivesMockSystem
)
plugins.register(
    plugins.CONTROLLERS_GROUP,
    'motion_primitives_controllers/MotionPrimitivesForwardController',
    MotionPrimitivesForwardController,
)

NAME = 'motion_primitive_controller'
Action = ExecuteMotionPrimitiveSequence


def ptp(joints=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6), **arguments):
    primitive = MotionPrimitive(type=MotionPrimitive.LINEAR_JOINT, blend_radius=3.0)
    primitive.joint_positions = [float(q) for q in joints]
    arguments = arguments or {'velocity': 0.7, 'acceleration': 1.0, 'move_time': 2.0}
    primitive.additional_arguments = [
        MotionArgument(name=k, value=float(v)) for k, v in arguments.items()
    ]
    return primitive


def lin(x=0.4, y=-0.1, z=0.3):
    primitive = MotionPrimitive(type=MotionPrimitive.LINEAR_CARTESIAN, blend_radius=0.05)
    pose = PoseStamped()
    pose.pose.position.x, pose.pose.position.y, pose.pose.position.z = x, y, z
    pose.pose.orientation.w = 1.0
    primitive.poses = [pose]
    primitive.additional_arguments = [MotionArgument(name='velocity', value=0.25)]
    return primitive


def goal(*motions):
    request = Action.Goal()
    request.trajectory.motions = list(motions)
    return request


def field(row, name):
    return row[mp.COMMAND_NAMES.index(name)]


class Rig:
    def __init__(self):
        self.harness = RosHarness(
            'moprim_test',
            args=['--ros-args', '--params-file', str(CONFIG / 'motion_primitives.yaml')],
        )
        urdf = (CONFIG / 'motion_primitives_robot.urdf').read_text()
        self.cm = SteppedManager(self.harness, urdf, period_ns=10_000_000)
        self.rosout = self.harness.subscribe_rosout()
        (self.controller,) = self.cm.start(NAME)
        self.hw = self.cm.manager.rm.components['MotionPrimitivesRobot'].component
        self.client = ActionClient(self.harness.node, Action, f'/{NAME}/motion_sequence')
        assert self.client.wait_for_server(timeout_sec=10.0)

    def send(self, request, feedback=None):
        future = self.client.send_goal_async(request, feedback_callback=feedback)
        assert self.harness.spin_until(future.done)
        return future.result()

    def cycles(self, count):
        for _ in range(count):
            self.cm.step()
            assert realtime_publisher.drain(timeout_s=10.0)
            self.harness.executor.spin_once(timeout_sec=0.0)

    def result(self, handle):
        future = handle.get_result_async()

        def done():
            if future.done():
                return True
            self.cycles(1)
            return False

        assert self.harness.spin_until(done), 'no result'
        return future.result().status, future.result().result

    def status(self):
        return self.cm.state('motion_primitive/execution_status')

    def close(self):
        self.cm.shutdown()
        self.harness.close()
        gc.collect()


@pytest.fixture
def rig():
    rig = Rig()
    yield rig
    rig.close()


def test_ptp_then_lin_sequence_succeeds_with_feedback(rig):
    feedback = []
    handle = rig.send(goal(ptp(), lin()), lambda m: feedback.append(m.feedback))
    assert handle.accepted
    status, result = rig.result(handle)
    assert status == GoalStatus.STATUS_SUCCEEDED
    assert result.error_code == Action.Result.SUCCESSFUL
    assert result.error_string == 'Motion primitives executed successfully'
    # the hardware took the sequence start, the two primitives and the end, nothing else
    taken = rig.hw.taken
    assert [field(row, 'motion_type') for row in taken] == [100.0, 0.0, 50.0, 101.0]
    start, joint, cartesian, end = taken
    assert [field(joint, f'q{i}') for i in range(1, 7)] == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    assert field(joint, 'blend_radius') == 3.0
    assert (field(joint, 'velocity'), field(joint, 'acceleration')) == (0.7, 1.0)
    assert field(joint, 'move_time') == 2.0
    assert math.isnan(field(joint, 'pos_x'))
    pose = [field(cartesian, n) for n in ('pos_x', 'pos_y', 'pos_z', 'pos_qw')]
    assert pose == [0.4, -0.1, 0.3, 1.0]
    assert (field(cartesian, 'velocity'), field(cartesian, 'blend_radius')) == (0.25, 0.05)
    # LIN sets no joint values: the PTP's are not left on the interfaces
    assert all(math.isnan(field(cartesian, f'q{i}')) for i in range(1, 7))
    assert all(math.isnan(v) for v in start[1:] + end[1:])
    # 25 cycles per primitive, feedback at 50 Hz: primitive 0, then 1, nothing else
    indices = [m.current_primitive_index for m in feedback]
    assert indices == sorted(indices) and set(indices) == {0, 1}
    assert indices.count(0) >= 10 and indices.count(1) >= 10
    assert rig.status() == mp.SUCCESS


def test_single_primitive_succeeds_without_sequence_markers(rig):
    handle = rig.send(goal(ptp()))
    status, _ = rig.result(handle)
    assert status == GoalStatus.STATUS_SUCCEEDED
    assert [field(row, 'motion_type') for row in rig.hw.taken] == [0.0]


def _nan_pose_lin():
    primitive = lin()
    primitive.poses[0].pose.position.y = math.inf
    return primitive


MALFORMED = {
    'unknown type': (MotionPrimitive(type=7), 'Primitive 1 invalid: unknown motion type 7.'),
    'seven joints': (ptp(joints=range(7)), '7 joint_positions, the interfaces carry at most 6'),
    'no joints': (ptp(joints=()), 'LINEAR_JOINT requires joint_positions.'),
    'nan joint': (ptp(joints=(0.1, math.nan)), 'joint_positions holds nan, not a finite number'),
    'inf pose': (_nan_pose_lin(), 'poses[0] holds inf, not a finite number'),
    'unknown argument': (ptp(jerk=1.0), "unknown additional argument 'jerk'"),
    'lin without pose': (MotionPrimitive(type=50), 'LINEAR_CARTESIAN requires at least one pose'),
}


@pytest.mark.parametrize('case', list(MALFORMED), ids=list(MALFORMED))
def test_malformed_goal_is_rejected_and_nothing_reaches_hardware(rig, case):
    bad, message = MALFORMED[case]
    handle = rig.send(goal(ptp(), bad))
    assert not handle.accepted
    rig.rosout.wait_for(rig.harness.spin_until, message)
    rig.cycles(5)
    assert rig.hw.taken == []
    assert all(math.isnan(rig.cm.command(f'motion_primitive/{n}')) for n in mp.COMMAND_NAMES)
    assert rig.status() == mp.IDLE


def test_cancel_stops_the_robot_then_resets_it(rig):
    handle = rig.send(goal(ptp(), lin()))
    assert rig.cm.run_until(lambda: rig.status() == mp.EXECUTING)
    cancel = handle.cancel_goal_async()
    assert rig.harness.spin_until(cancel.done)
    status, _ = rig.result(handle)
    assert status == GoalStatus.STATUS_CANCELED
    # the LIN and the end marker were dropped: stop, then reset once the robot stopped
    assert [field(row, 'motion_type') for row in rig.hw.taken] == [100.0, 0.0, 66.0, 67.0]
    rig.cycles(1)
    assert rig.status() == mp.IDLE
    # the robot takes goals again
    again = rig.send(goal(lin()))
    assert again.accepted
    assert rig.result(again)[0] == GoalStatus.STATUS_SUCCEEDED


def test_second_goal_is_rejected_while_one_runs(rig):
    first = rig.send(goal(ptp()))
    rig.cycles(2)
    second = rig.send(goal(lin()))
    assert not second.accepted
    rig.rosout.wait_for(rig.harness.spin_until, 'Already has an active goal')
    assert rig.result(first)[0] == GoalStatus.STATUS_SUCCEEDED
    assert [field(row, 'motion_type') for row in rig.hw.taken] == [0.0]
