"""Joint limits and interface data built the short way, for the joint limits tests."""

from __future__ import annotations

from py_controllers.joint_limits import JointControlInterfacesData, JointLimits, SoftJointLimits

# soft limits inside the hard position limits (-1, 1) the tests pair them with
SOFT = SoftJointLimits(min_position=-0.8, max_position=0.8, k_position=10.0, k_velocity=5.0)


def hard(
    position: tuple[float, float] | None = None,
    velocity: float | None = None,
    acceleration: float | None = None,
    deceleration: float | None = None,
    jerk: float | None = None,
    effort: float | None = None,
) -> JointLimits:
    """JointLimits with the `has_*` flag set for every bound given."""
    limits = JointLimits()
    if position is not None:
        limits.lower, limits.upper = position
        limits.has_position_limits = True
    for name, value in (
        ('velocity', velocity),
        ('acceleration', acceleration),
        ('deceleration', deceleration),
        ('jerk', jerk),
        ('effort', effort),
    ):
        if value is not None:
            setattr(limits, name, value)
            setattr(limits, f'has_{name}_limits', True)
    return limits


def data(**values: float | None) -> JointControlInterfacesData:
    return JointControlInterfacesData('j1', **values)
