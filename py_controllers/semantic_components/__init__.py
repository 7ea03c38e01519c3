"""Semantic components: state interfaces of one device read as that device (no rclpy).

ros2_control's ``controller_interface/semantic_components`` (IMUSensor, ForceTorqueSensor,
RangeSensor, PoseSensor, GPSSensor, MagneticFieldSensor) in Python. A controller claims
``get_state_interface_names()``, assigns the handles it gets on activation and reads values
or fills messages in update().
"""

from py_controllers.semantic_components.errors import (
    MissingStateInterfaceError,
    NotAssignedError,
    SemanticComponentError,
)
from py_controllers.semantic_components.force_torque_sensor import (
    FORCE_TORQUE_INTERFACES,
    ForceTorqueSensor,
)
from py_controllers.semantic_components.gps_sensor import (
    GPS_COVARIANCE_INTERFACES,
    GPS_INTERFACES,
    GPSSensor,
)
from py_controllers.semantic_components.imu_sensor import IMU_INTERFACES, IMUSensor
from py_controllers.semantic_components.magnetic_field_sensor import (
    MAGNETIC_FIELD_INTERFACES,
    MagneticFieldSensor,
)
from py_controllers.semantic_components.pose_sensor import POSE_INTERFACES, PoseSensor
from py_controllers.semantic_components.range_sensor import RangeSensor
from py_controllers.semantic_components.semantic_component import SemanticComponentInterface

__all__ = [
    'FORCE_TORQUE_INTERFACES',
    'GPS_COVARIANCE_INTERFACES',
    'GPS_INTERFACES',
    'IMU_INTERFACES',
    'MAGNETIC_FIELD_INTERFACES',
    'POSE_INTERFACES',
    'ForceTorqueSensor',
    'GPSSensor',
    'IMUSensor',
    'MagneticFieldSensor',
    'MissingStateInterfaceError',
    'NotAssignedError',
    'PoseSensor',
    'RangeSensor',
    'SemanticComponentError',
    'SemanticComponentInterface',
]
