"""Exceptions of the joint_limits package."""

from __future__ import annotations


class JointLimitsError(Exception):
    """Base class of every joint_limits error."""


class InvalidJointLimitsError(JointLimitsError, ValueError):
    """A limit value or a `joint_limits.<joint>.*` parameter is missing, mistyped or inconsistent.

    The message names the joint and the parameter at fault.
    """


class JointPositionOutOfBoundsError(JointLimitsError, RuntimeError):
    """The measured position of a joint is far outside its position limits.

    Raised while limiting a position command, as upstream's limiters throw, because such a
    reading means broken hardware or a URDF whose limits are narrower than the real joint.
    """

    def __init__(self, joint_name: str, position: float, lower: float, upper: float) -> None:
        super().__init__(
            f"joint '{joint_name}': actual position {position} is out of its limits "
            f'[{lower}, {upper}]; the hardware may be faulty or the URDF limits narrower '
            'than the joint'
        )
        self.joint_name = joint_name
        self.position = position
