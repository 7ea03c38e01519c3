"""The ROS arguments a controller's node is created with (no rclpy: plain lists of strings).

As upstream's `determine_controller_node_options` on Jazzy and Kilted: a controller's node
ignores the process's global arguments (a `-r __node:=my_cm` meant for the manager would
otherwise rename every controller node too) and gets, in this order, the manager's own ROS
arguments less those naming the node, its namespace or the robot description, the
controller's `<name>.params_file`s, and its `--controller-ros-args` (`<name>.node_options_args`).
The manager's parameter files and `-p` values so reach the controllers, keyed by node name as
in any ROS parameter file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

ROS_ARGS = '--ros-args'
REMAP_FLAGS = frozenset({'-r', '--remap'})
PARAM_FLAGS = frozenset({'-p', '--param'})
# the ROS flags followed by a value (rcl's arguments.h)
VALUE_FLAGS = (
    REMAP_FLAGS
    | PARAM_FLAGS
    | {
        '--params-file',
        '--log-level',
        '--log-config-file',
        '--log-file-name',
        '-e',
        '--enclave',
    }
)
NODE_NAME_AND_NAMESPACE = frozenset({'__node', '__name', '__ns'})


def ros_arguments(argv: Iterable[str]) -> list[str]:
    """The ROS arguments of a command line: what stands between each `--ros-args` and the
    next `--` (or the end), without those markers."""
    found: list[str] = []
    inside = False
    for arg in argv:
        if arg == ROS_ARGS:
            inside = True
        elif arg == '--' and inside:
            inside = False
        elif inside:
            found.append(arg)
    return found


def _left_name(value: str) -> str:
    """The name a `[node:]name:=value` rule sets, without its node prefix."""
    return value.split(':=', 1)[0].rsplit(':', 1)[-1]


def _is_manager_only(flag: str, value: str) -> bool:
    """A rule for the manager alone: its node name, namespace or robot description."""
    if flag in REMAP_FLAGS:
        return _left_name(value) in NODE_NAME_AND_NAMESPACE
    if flag in PARAM_FLAGS:
        return _left_name(value).startswith('robot_description')
    return False


def forwarded_arguments(manager_args: Sequence[str]) -> list[str]:
    """The manager's ROS arguments (see `ros_arguments`) a controller's node also gets:
    all but the `-r __node:=`, `-r __ns:=` remaps and the `-p robot_description...` values."""
    kept: list[str] = []
    i = 0
    while i < len(manager_args):
        arg = manager_args[i]
        if arg in VALUE_FLAGS and i + 1 < len(manager_args):
            value = manager_args[i + 1]
            if not _is_manager_only(arg, value):
                kept += [arg, value]
            i += 2
        else:
            kept.append(arg)
            i += 1
    return kept


def controller_node_arguments(
    manager_args: Sequence[str],
    params_files: Sequence[str] = (),
    node_options_args: Sequence[str] = (),
) -> list[str]:
    """The `cli_args` of a controller's node (created with `use_global_arguments=False`)."""
    args = [ROS_ARGS, *forwarded_arguments(manager_args)]
    for path in params_files:
        args += ['--params-file', path]
    if node_options_args and ROS_ARGS not in node_options_args:
        args.append(ROS_ARGS)
    return args + list(node_options_args)
