"""The demos' record of the arm's controller_state: a sample per state with a reference."""

from control_msgs.msg import JointTrajectoryControllerState

from py_controllers.demo.arm_state import sample_of


def state(reference: list[float]) -> JointTrajectoryControllerState:
    msg = JointTrajectoryControllerState()
    msg.header.stamp.sec, msg.header.stamp.nanosec = 3, 250_000_000
    msg.joint_names = ['joint1', 'joint2']
    msg.reference.positions = reference
    msg.feedback.positions = [0.1, 0.2]
    return msg


def test_a_state_with_a_reference_is_a_sample():
    assert sample_of(state([0.5, -0.5])) == (3.25, ['joint1', 'joint2'], [0.5, -0.5], [0.1, 0.2])


def test_a_state_without_a_reference_is_left_out():
    assert sample_of(state([])) is None
