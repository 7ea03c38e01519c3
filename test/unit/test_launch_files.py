"""Launch files cannot run here (no `ros2 launch`), so check them statically: every file
parses, defines generate_launch_description, and every package, executable and config
path it names exists in this package (or is a known ROS package)."""

import ast
import functools
import re
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCH_FILES = sorted((ROOT / 'launch').glob('*.launch.py'))
ROS_PACKAGES = {'robot_state_publisher': {'robot_state_publisher'}, 'rviz2': {'rviz2'}}


def includes(tree: ast.AST) -> list[ast.Call]:
    """The file's IncludeLaunchDescription calls."""
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, 'id', '') == 'IncludeLaunchDescription'
    ]


def declared_arguments(tree: ast.AST) -> set[str]:
    """The names of the file's DeclareLaunchArgument calls."""
    return {
        ast.literal_eval(n.args[0])
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, 'id', '') == 'DeclareLaunchArgument'
    }


def our_executables() -> set[str]:
    return {ep.name for ep in entry_points(group='console_scripts') if ep.value.startswith('py_')}


def test_there_are_launch_files():
    names = {p.name for p in LAUNCH_FILES}
    assert {
        'minimal.launch.py',
        'diffbot.launch.py',
        'arm.launch.py',
        'demo.launch.py',
        'mujoco_arm.launch.py',
        'mujoco_admittance.launch.py',
        'mujoco_upstream.launch.py',
        'topic_based.launch.py',
        'carlikebot.launch.py',
        'mecanumbot.launch.py',
    } <= names


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=lambda p: p.name)
def test_launch_file_names_only_what_exists(path):
    source = path.read_text()
    tree = ast.parse(source, filename=str(path))
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert 'generate_launch_description' in functions
    nodes = [
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, 'id', '') == 'Node'
    ]
    assert nodes or includes(tree), 'no launch_ros Node in the file, nor an included file'
    executables = our_executables()
    for node in nodes:
        kws = {kw.arg: kw.value for kw in node.keywords}
        package = kws['package']
        executable = ast.literal_eval(kws['executable'])
        if isinstance(package, ast.Name) and package.id == 'PACKAGE':
            assert executable in executables, executable
        else:
            pkg = ast.literal_eval(package)
            assert executable in ROS_PACKAGES[pkg], (pkg, executable)
    # every share path the file builds must exist in the checkout (installed to share/)
    named = re.findall(r'\{share\}/((?:config|launch)/[\w./-]+)', source)
    named += [f'{d}/{f}' for d, f in re.findall(r"'(config|launch)', '([\w./-]+)'", source)]
    if 'ARMS[' in source:  # the servo arms' files, named by arm_files.ARMS
        from py_controllers.hardware.servo_bus.arm_files import ARMS

        named += [f'config/{p.name}' for arm in ARMS.values() for p in (arm.urdf, arm.controllers)]
    assert named, 'no config file named'
    for rel in named:
        assert (ROOT / rel).is_file(), rel


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=lambda p: p.name)
def test_an_included_launch_file_declares_what_it_is_given(path):
    """An include names a launch file of this package, which declares every argument the
    include passes (ros2 launch would fail on neither here)."""
    for include in includes(ast.parse(path.read_text())):
        source = ast.unparse(include)
        (target,) = re.findall(r"'launch', '([\w.]+)'", source)
        included = ast.parse((ROOT / 'launch' / target).read_text())
        given = set(re.findall(r"'(\w+)':", source))
        assert given, source
        assert given <= declared_arguments(included), (target, given)


@functools.cache
def declared_controllers() -> frozenset[str]:
    """Controllers with a `type` under controller_manager in any config YAML (read once: each
    launch file's test asks, and the YAML parser is pure Python)."""
    import yaml

    names = set()
    for path in (ROOT / 'config').glob('*controllers*.yaml'):
        cm = (yaml.safe_load(path.read_text()) or {}).get('controller_manager', {})
        for name, value in cm.get('ros__parameters', {}).items():
            if isinstance(value, dict) and 'type' in value:
                names.add(name)
    return frozenset(names)


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=lambda p: p.name)
def test_spawned_controllers_are_declared(path):
    tree = ast.parse(path.read_text())
    known = declared_controllers()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, 'id', '') == 'Node'):
            continue
        kws = {kw.arg: kw.value for kw in node.keywords}
        if ast.literal_eval(kws['executable']) == 'spawner':
            for name in spawned_names(ast.literal_eval(kws['arguments'])):
                assert name in known, name


# spawner options that take a value (the value is not a controller name)
SPAWNER_OPTIONS_WITH_VALUE = {
    '-c',
    '--controller-manager',
    '-p',
    '--param-file',
    '-t',
    '--controller-type',
    '--controller-manager-timeout',
    '--switch-timeout',
    '--service-call-timeout',
    '--controller-ros-args',
}


def spawned_names(arguments: list[str]) -> list[str]:
    """The controller names among a spawner's arguments (options and their values left out)."""
    names, skip = [], False
    for arg in arguments:
        if skip:
            skip = False
        elif arg.startswith('-'):
            skip = arg in SPAWNER_OPTIONS_WITH_VALUE
        else:
            names.append(arg)
    return names


def test_spawned_names_leave_out_options():
    args = [
        'jsb',
        'car',
        '--controller-ros-args',
        '-r /car/tf_odometry:=/tf',
        '--activate-as-group',
    ]
    assert spawned_names(args) == ['jsb', 'car']


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=lambda p: p.name)
def test_the_manager_hears_robot_state_publisher_as_upstream(path):
    """Jazzy's convention: robot_state_publisher publishes `robot_description`, which the
    manager subscribes to; no remap of the manager's `~/robot_description` (Humble's)."""
    tree = ast.parse(path.read_text())
    nodes = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, 'id', '') == 'Node':
            kws = {kw.arg: kw.value for kw in node.keywords}
            nodes[ast.literal_eval(kws['executable'])] = kws
    if not nodes:  # only includes another launch file, checked on its own
        assert includes(tree)
        return
    assert 'robot_state_publisher' in nodes
    manager = nodes['ros2_control_node']
    remapped = [ast.literal_eval(r)[0] for r in getattr(manager.get('remappings'), 'elts', [])]
    assert not any('robot_description' in name for name in remapped), remapped
    # nor the description handed to the manager as a parameter (deprecated upstream)
    assert 'robot_description' not in ast.unparse(manager.get('parameters', ast.List([])))
