"""The 3D page's ROS side: the names of the topics it reads, the odometry of a mobile base,
and where a mesh's ROS package lives on this machine. The robot description comes from the
manager watch (`ManagerState.description`), which reads it for every page."""

from __future__ import annotations

from nav_msgs.msg import Odometry
from sensor_msgs.msg import JointState

from py_controllers.dashboard.bases import BASES
from py_controllers.dashboard.names import controller_topic, in_namespace
from py_controllers.dashboard.ros_bridge import Latest
from py_controllers.dashboard.ui_common import Dashboard

JOINT_STATES_SAMPLE_S = 0.05


def scene_topic(dash: Dashboard, what: str, controller: str = '') -> str:
    """The one place the 3D page names a topic, in the watched manager's namespace:
    'joint_states', or 'odometry' of the mobile base `controller`."""
    if what == 'odometry':
        info = dash.watch.controller(controller)
        base = BASES.get(info.type) if info is not None else None
        return controller_topic(dash.manager, controller, base.odometry if base else 'odom')
    if what != 'joint_states':
        raise ValueError(f'no 3D page topic {what!r}')
    return in_namespace(dash.manager, what)


def joint_states(dash: Dashboard) -> Latest:
    """The joint states the robot is drawn from (the same subscription as other pages')."""
    return dash.bridge.watch(
        JointState,
        scene_topic(dash, 'joint_states'),
        keep=400,
        min_interval_s=JOINT_STATES_SAMPLE_S,
    )


def odometry(dash: Dashboard, controller: str) -> Latest:
    """The odometry of the mobile base `controller`."""
    return dash.bridge.watch(Odometry, scene_topic(dash, 'odometry', controller))


def package_share(package: str) -> str | None:
    """The share directory of ROS package `package`, None when it is not installed here."""
    try:
        from ament_index_python.packages import get_package_share_directory

        return get_package_share_directory(package)
    except Exception:  # not found, or no ament index at all: the mesh is just not local
        return None
