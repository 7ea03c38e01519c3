"""Plain data describing hardware components, as read from `<ros2_control>` URDF tags.

Field names follow ros2_control's `hardware_info.hpp` in Python style; parameter values
stay strings, as in the URDF, so each component converts what it reads itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from py_controllers.hardware_interface.urdf import JointLimits, SoftJointLimits, UrdfJoint

HARDWARE_TYPES = ('system', 'actuator', 'sensor')
COMPONENT_TYPES = ('joint', 'sensor', 'gpio')
DATA_TYPES = ('double', 'float32', 'bool', 'uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32')


@dataclass
class InterfaceInfo:
    """One `<command_interface>` or `<state_interface>`.

    `min`, `max` and `initial_value` keep the text of their `<param>` (None if absent);
    `parameters` holds every `<param>` of the interface, those three included.
    """

    name: str
    min: str | None = None
    max: str | None = None
    initial_value: str | None = None
    data_type: str = 'double'
    size: int = 1
    enable_limits: bool = True
    parameters: dict[str, str] = field(default_factory=dict)


@dataclass
class ComponentInfo:
    """A `<joint>`, `<sensor>` or `<gpio>` of a hardware component.

    `is_mimic` is the joint's `mimic` attribute: True, False, or None when not written
    (then a URDF `<mimic>` makes the joint a mimic joint).
    """

    name: str
    type: str = 'joint'
    command_interfaces: list[InterfaceInfo] = field(default_factory=list)
    state_interfaces: list[InterfaceInfo] = field(default_factory=list)
    parameters: dict[str, str] = field(default_factory=dict)
    is_mimic: bool | None = None
    enable_limits: bool = True


@dataclass
class MimicJoint:
    """A joint of this component driven by another of its joints (indices into `joints`)."""

    joint_index: int
    mimicked_joint_index: int
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass
class TransmissionJointInfo:
    """A `<joint>` (or `<actuator>`) of a `<transmission>` (upstream's JointInfo/ActuatorInfo).

    `mechanical_reduction` and `offset` come from the child tags of those names (1.0 and 0.0
    when absent). For a joint, the interface names are copied from the component's `<joint>`
    of the same name. `role` and `read_only` are kept as written, for the component to use.
    """

    name: str
    role: str = ''
    mechanical_reduction: float = 1.0
    offset: float = 0.0
    state_interfaces: list[str] = field(default_factory=list)
    command_interfaces: list[str] = field(default_factory=list)
    read_only: bool = False


TransmissionActuatorInfo = TransmissionJointInfo
"""An `<actuator>` of a `<transmission>`: the same fields as a joint."""


@dataclass
class TransmissionInfo:
    """A `<transmission>` inside `<ros2_control>`: its plugin and what it connects, in the
    order written (the loaders take the first joint as joint 1, and so on)."""

    name: str
    plugin: str
    joints: list[TransmissionJointInfo] = field(default_factory=list)
    actuators: list[TransmissionActuatorInfo] = field(default_factory=list)
    parameters: dict[str, str] = field(default_factory=dict)

    @property
    def type(self) -> str:
        """The plugin name under its ros2_control field name (`transmission_info.type`)."""
        return self.plugin


@dataclass
class HardwareAsyncParams:
    """Settings of an async component's own thread (`<properties><async .../>`)."""

    thread_priority: int = 50
    scheduling_policy: str = 'synchronized'
    cpu_affinity_cores: list[int] = field(default_factory=list)
    print_warnings: bool = True


@dataclass
class HardwareInfo:
    """One `<ros2_control>` tag: what to load (`plugin`) and what it exposes.

    `rw_rate` is the component's read/write rate in Hz (0: the manager's rate).
    `limits` merges each joint's URDF `<limit>` with the tighter `min`/`max` of its
    command interfaces. `original_xml` is this `<ros2_control>` element;
    `robot_description` is the whole URDF it came from, and `urdf_joints` its joints.
    """

    name: str
    type: str = 'system'
    plugin: str = ''
    group: str = ''
    is_async: bool = False
    rw_rate: int = 0
    async_params: HardwareAsyncParams = field(default_factory=HardwareAsyncParams)
    hardware_parameters: dict[str, str] = field(default_factory=dict)
    joints: list[ComponentInfo] = field(default_factory=list)
    sensors: list[ComponentInfo] = field(default_factory=list)
    gpios: list[ComponentInfo] = field(default_factory=list)
    transmissions: list[TransmissionInfo] = field(default_factory=list)
    mimic_joints: list[MimicJoint] = field(default_factory=list)
    limits: dict[str, JointLimits] = field(default_factory=dict)
    soft_limits: dict[str, SoftJointLimits] = field(default_factory=dict)
    urdf_joints: dict[str, UrdfJoint] = field(default_factory=dict)
    original_xml: str = ''
    robot_description: str = ''

    @property
    def hardware_plugin_name(self) -> str:
        """The plugin name under its ros2_control field name."""
        return self.plugin

    @property
    def thread_priority(self) -> int:
        """Priority of the async thread (from `thread_priority` or `<async>`)."""
        return self.async_params.thread_priority
