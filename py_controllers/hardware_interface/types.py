"""Return codes and standard interface names shared by hardware and controllers."""

from __future__ import annotations

from enum import IntEnum


class ReturnType(IntEnum):
    """Result of read()/write()/update(), numbered like hardware_interface::return_type."""

    OK = 0
    ERROR = 1
    DEACTIVATE = 2


# ReturnType.OK as a module global, for code that runs every cycle: on Python 3.11 looking an
# enum's member up on its class goes through EnumType.__getattr__'s hook (53 against 5 ns)
RETURN_OK = ReturnType.OK


class CallbackReturn(IntEnum):
    """Result of a hardware lifecycle callback (SUCCESS, FAILURE or ERROR)."""

    SUCCESS = 0
    FAILURE = 1
    ERROR = 2


class LifecycleStateId(IntEnum):
    """Primary lifecycle states, with lifecycle_msgs/State ids."""

    UNKNOWN = 0
    UNCONFIGURED = 1
    INACTIVE = 2
    ACTIVE = 3
    FINALIZED = 4

    @property
    def label(self) -> str:
        """The lower-case label ros2_control reports ('active', ...)."""
        return self.name.lower()

    @classmethod
    def from_label(cls, label: str) -> LifecycleStateId:
        """Parse a label such as 'active' (case-insensitive); raises ValueError."""
        try:
            return cls[label.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown lifecycle state label '{label}'") from None


HW_IF_POSITION = 'position'
HW_IF_VELOCITY = 'velocity'
HW_IF_ACCELERATION = 'acceleration'
HW_IF_EFFORT = 'effort'
HW_IF_TORQUE = 'torque'
HW_IF_FORCE = 'force'
HW_IF_CURRENT = 'current'
HW_IF_TEMPERATURE = 'temperature'
STANDARD_JOINT_INTERFACES = (HW_IF_POSITION, HW_IF_VELOCITY, HW_IF_ACCELERATION, HW_IF_EFFORT)
