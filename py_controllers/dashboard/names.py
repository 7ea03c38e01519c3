"""Topic, action and node names of one controller manager's robot, resolved the way
ros2_control resolves them, and the managers found on the domain.

A controller is a node in its manager's namespace (`/<ns>/<controller>`), so its
relative topics are `/<ns>/<controller>/cmd_vel`, `/<ns>/<controller>/odom`; the
joint state broadcaster's `joint_states` and the manager's `robot_description` topic are
relative too, so `/<ns>/joint_states` and `/<ns>/robot_description`. A manager is found
the way `ros2 control` finds one: a node offering `<node>/list_controllers` of type
controller_manager_msgs/srv/ListControllers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

LIST_CONTROLLERS_TYPE = 'controller_manager_msgs/srv/ListControllers'


def namespace_of(manager: str) -> str:
    """The namespace of manager node `manager` (absolute name), '' for the root:
    `/r1/controller_manager` -> `/r1`."""
    return manager.rstrip('/').rsplit('/', 1)[0]


def in_namespace(manager: str, name: str) -> str:
    """`name` (relative) resolved in `manager`'s namespace: `joint_states` -> `/r1/joint_states`."""
    return f'{namespace_of(manager)}/{name.strip("/")}'


def controller_node(manager: str, controller: str) -> str:
    """Full name of `controller`'s node: `/r1/diff_drive_controller`."""
    return in_namespace(manager, controller)


def controller_topic(manager: str, controller: str, name: str) -> str:
    """`~/<name>` of `controller`: `/r1/diff_drive_controller/cmd_vel`."""
    return f'{controller_node(manager, controller)}/{name.strip("/")}'


def managers_from_services(services: Iterable[tuple[str, Sequence[str]]]) -> list[str]:
    """Manager node names among (service name, types) pairs, sorted."""
    suffix = '/list_controllers'
    return sorted(
        {
            name[: -len(suffix)]
            for name, types in services
            if name.endswith(suffix) and LIST_CONTROLLERS_TYPE in types and len(name) > len(suffix)
        }
    )
