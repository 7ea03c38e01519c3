"""The arm's JTC controller_state as the demos record it: reference and feedback over time,
for the joints figure and the demos' checks."""

from __future__ import annotations

from control_msgs.msg import JointTrajectoryControllerState

from py_controllers.demo.references import stamp_s
from py_controllers.testing import RosHarness

# (stamp s, joint names, reference positions, feedback positions)
Sample = tuple[float, list[str], list[float], list[float]]

TOPIC = '/arm_controller/controller_state'


def sample_of(msg: JointTrajectoryControllerState) -> Sample | None:
    """One state as a sample; None while the controller has no reference (nothing to hold)."""
    if len(msg.reference.positions) != len(msg.joint_names):
        return None
    return (
        stamp_s(msg),
        list(msg.joint_names),
        list(msg.reference.positions),
        list(msg.feedback.positions),
    )


def record_arm_state(ros: RosHarness, depth: int = 10) -> list[Sample]:
    """A list that collects every sample of the arm's controller_state."""
    samples: list[Sample] = []

    def on_state(msg: JointTrajectoryControllerState) -> None:
        sample = sample_of(msg)
        if sample is not None:
            samples.append(sample)

    ros.node.create_subscription(JointTrajectoryControllerState, TOPIC, on_state, depth)
    return samples
