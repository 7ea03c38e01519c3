"""Joint limits and command limiters, mirroring ros2_control's `joint_limits` package.

ROS-free: limits come from the URDF (see hardware_interface.component_parser) and from
`joint_limits.<joint>.*` parameters given as a plain mapping (`apply_limits_parameters`);
the limiters clamp one joint's commands per control cycle with an explicit `dt_s`.
"""

from py_controllers.joint_limits.data import INTERFACE_FIELDS, JointControlInterfacesData
from py_controllers.joint_limits.errors import (
    InvalidJointLimitsError,
    JointLimitsError,
    JointPositionOutOfBoundsError,
)
from py_controllers.joint_limits.limits import JointLimits, SoftJointLimits, validate_joint_limits
from py_controllers.joint_limits.parameters import (
    JOINT_LIMITS_PARAMETERS,
    SOFT_LIMITS_PARAMETERS,
    apply_limits_parameters,
    joint_limits_parameters,
)
from py_controllers.joint_limits.saturation_limiter import JointLimiter, JointSaturationLimiter
from py_controllers.joint_limits.soft_limiter import (
    JointSoftLimiter,
    has_soft_limits,
    has_soft_position_limits,
    make_joint_limiter,
    make_joint_limiters,
)

__all__ = [
    'INTERFACE_FIELDS',
    'JOINT_LIMITS_PARAMETERS',
    'SOFT_LIMITS_PARAMETERS',
    'InvalidJointLimitsError',
    'JointControlInterfacesData',
    'JointLimiter',
    'JointLimits',
    'JointLimitsError',
    'JointPositionOutOfBoundsError',
    'JointSaturationLimiter',
    'JointSoftLimiter',
    'SoftJointLimits',
    'apply_limits_parameters',
    'has_soft_limits',
    'has_soft_position_limits',
    'joint_limits_parameters',
    'make_joint_limiter',
    'make_joint_limiters',
    'validate_joint_limits',
]
