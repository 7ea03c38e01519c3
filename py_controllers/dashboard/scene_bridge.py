"""The 3D page's ROS side: the names of the topics it reads, the robot description, the
odometry of a mobile base, and where a mesh's ROS package lives on this machine."""

from __future__ import annotations

from pathlib import Path

from nav_msgs.msg import Odometry
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from py_controllers.dashboard.bases import BASES
from py_controllers.dashboard.names import controller_topic, in_namespace
from py_controllers.dashboard.ros_bridge import CallFailedError, Latest, NotAvailableError, latched
from py_controllers.dashboard.ui_common import Dashboard

JOINT_STATES_SAMPLE_S = 0.05


def scene_topic(dash: Dashboard, what: str, controller: str = '') -> str:
    """The one place the 3D page names a topic, in the watched manager's namespace:
    'robot_description', 'joint_states', or 'odometry' of the mobile base `controller`."""
    if what == 'odometry':
        info = dash.watch.controller(controller)
        base = BASES.get(info.type) if info is not None else None
        return controller_topic(dash.manager, controller, base.odometry if base else 'odom')
    if what not in ('robot_description', 'joint_states'):
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


def description_topic(dash: Dashboard) -> Latest:
    """The latched robot description topic (robot_state_publisher's)."""
    return dash.bridge.watch(String, scene_topic(dash, 'robot_description'), qos=latched())


async def read_description(dash: Dashboard) -> tuple[str, str]:
    """(URDF text, where it came from) from the topic, else the manager's `robot_description`
    parameter, else the file its `robot_description_file` names; ('', why not) when none."""
    topic = description_topic(dash)
    if topic.msg is not None and topic.msg.data.strip():
        return topic.msg.data, scene_topic(dash, 'robot_description')
    try:
        values = await dash.bridge.get_parameters(
            dash.manager, ['robot_description', 'robot_description_file']
        )
    except (NotAvailableError, CallFailedError) as exc:
        return '', f'no robot description yet: {exc}'
    text = values.get('robot_description') or ''
    if text.strip():
        return text, f'{dash.manager} robot_description'
    path = values.get('robot_description_file') or ''
    if path and Path(path).is_file():
        return Path(path).read_text(errors='replace'), path
    return '', 'no robot description: no topic message and no manager parameter'


def package_share(package: str) -> str | None:
    """The share directory of ROS package `package`, None when it is not installed here."""
    try:
        from ament_index_python.packages import get_package_share_directory

        return get_package_share_directory(package)
    except Exception:  # not found, or no ament index at all: the mesh is just not local
        return None
