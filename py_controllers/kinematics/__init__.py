"""kinematics_interface without ROS: plug-ins found by upstream name through entry points.

`load_kinematics('kinematics_interface_kdl/KinematicsInterfaceKDL')` gives an instance to
initialize(); both upstream names are served by the Pinocchio implementation. Importing
this package does not import pinocchio; loading a plug-in does.
"""

from __future__ import annotations

from py_controllers import plugins
from py_controllers.kinematics.kinematics_interface import (
    DEFAULT_ALPHA,
    KinematicsError,
    KinematicsInterface,
    KinematicsParams,
)

KINEMATICS_GROUP = 'py_controllers.kinematics'

__all__ = [
    'DEFAULT_ALPHA',
    'KINEMATICS_GROUP',
    'KinematicsError',
    'KinematicsInterface',
    'KinematicsParams',
    'load_kinematics',
]


def load_kinematics(plugin_name: str) -> KinematicsInterface:
    """A new, uninitialized instance of the plug-in registered as `plugin_name`."""
    try:
        cls = plugins.load(KINEMATICS_GROUP, plugin_name, KinematicsInterface)
    except plugins.PluginError as exc:  # unknown name (lists the known) or broken import
        raise KinematicsError(f'kinematics plugin: {exc}') from exc
    return cls()
