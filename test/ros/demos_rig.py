"""What ros2_control_demos' launch files do, for test/ros/test_demos_*.py.

A launch file of the demos starts `ros2_control_node` (here the real one,
`py_controllers.testing.ManagerProcess`, with the example's parameter file), a
robot_state_publisher (here `publish_description`: the xacro expanded with the `xacro`
package and published latched on `<namespace>/robot_description`, which is what the
manager reads of it) and `spawner`s with the launch file's arguments (`spawn`). The
examples' files are our fixtures in the same layout (test/fixtures/ros2_control_demos).
"""

from __future__ import annotations

import itertools
import math
import re
import subprocess
from pathlib import Path
from typing import Any

import xacro
import yaml
from rclpy.time import Time
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from py_controllers.testing import ManagerProcess, RosHarness, latched_qos, run_tool

FIXTURES = Path(__file__).resolve().parents[1] / 'fixtures' / 'ros2_control_demos'


def example(number: int) -> Path:
    """The share folder of example `number` (urdf/, ros2_control/, config/)."""
    return FIXTURES / f'example_{number}'


def expand_xacro(path: Path, **mappings: Any) -> str:
    """`xacro <path> name:=value ...` as launch's Command runs it: the URDF text."""
    document = xacro.process_file(str(path), mappings={k: str(v) for k, v in mappings.items()})
    return document.toxml()


HARDWARE_WAIT = re.compile(r'(<param name="example_param_hw_(start|stop)_duration_sec">)[^<]*<')


def without_waits(urdf: str, keep: tuple[str, ...] = ()) -> str:
    """`urdf` with the examples' hardware waits set to 0, but those named in `keep` ('start',
    'stop'). The examples' components sleep, counting down, in on_configure and on_activate
    (start) and in on_deactivate (stop) as upstream's do: 3 s at every Ctrl-C of most of them.
    The tests of the countdowns keep them (examples 1 and 6); the others have no use for them."""
    assert set(keep) <= {'start', 'stop'}, keep
    return HARDWARE_WAIT.sub(lambda m: m[0] if m[2] in keep else f'{m[1]}0<', urdf)


def substituted(path: Path, directory: Path, **variables: str) -> Path:
    """`ParameterFile(path, allow_substs=True)` as launch resolves it: every `$(var name)`
    replaced, written to a file of its own in `directory`."""
    text = path.read_text()
    for name, value in variables.items():
        text = text.replace(f'$(var {name})', value)
    assert '$(var ' not in text, f'{path}: a substitution is left: {text}'
    out = directory / f'substituted_{path.name}'
    out.write_text(text)
    return out


def node_parameters(directory: Path, name: str, values: dict[str, Any]) -> Path:
    """A `parameters=[{...}]` dict of a launch Node, as launch_ros writes it for the node:
    a `/**: ros__parameters:` file."""
    out = directory / f'{name}.yaml'
    out.write_text(yaml.safe_dump({'/**': {'ros__parameters': values}}))
    return out


class DemoLaunch:
    """One example brought up: the test's ROS node, the published descriptions and the
    manager processes; `close()` (or the context manager) stops them all."""

    def __init__(self, name: str) -> None:
        self.ros = RosHarness(name)
        self.managers: list[ManagerProcess] = []
        self._publishers: list[Any] = []
        self._joint_states: dict[str, list[JointState]] = {}

    # --- what the launch file starts --------------------------------------------------
    def publish_description(
        self, urdf: str, namespace: str = '', *, keep_waits: tuple[str, ...] = ()
    ) -> None:
        """robot_state_publisher's `robot_description` (latched) in `namespace`; the
        examples' hardware waits set to 0 but those named in `keep_waits` (`without_waits`)."""
        pub = self.ros.node.create_publisher(
            String, f'{namespace}/robot_description', latched_qos()
        )
        pub.publish(String(data=without_waits(urdf, keep_waits)))
        self._publishers.append(pub)

    def start_manager(
        self,
        params_files: list[Path],
        *,
        namespace: str = '',
        params: dict[str, Any] | None = None,
        ros_args: list[str] | None = None,
    ) -> ManagerProcess:
        """`ros2_control_node` with these parameter files, in `namespace`."""
        args = ['-r', f'__ns:={namespace}'] if namespace else []
        manager = ManagerProcess(params_files, params=params, ros_args=args + list(ros_args or []))
        self.managers.append(manager)
        return manager

    def spawn(self, *args: str, namespace: str = '', ros_args: list[str] | None = None) -> str:
        """`spawner <args>` (in `namespace`); asserts exit status 0, returns its output."""
        extra = list(ros_args or [])
        if namespace:  # launch_ros makes a Node's namespace absolute
            extra += ['-r', f'__ns:=/{namespace.lstrip("/")}']
        tool_args = [*args, '--controller-manager-timeout', '30']
        if extra:
            tool_args += ['--ros-args', *extra]
        result = run_tool('spawner', *tool_args)
        output = result.stdout + result.stderr
        assert result.returncode == 0, f'spawner {args}: {output}\n{self.manager_output()}'
        return output

    def wait_logged(self, manager: ManagerProcess, *texts: str, timeout_s: float = 20.0) -> None:
        """Until `manager` has printed every one of `texts` (its output reaches the file in
        blocks: a line may come a while after the event)."""
        out = manager.output
        assert self.ros.spin_until(lambda: all(t in out() for t in texts), timeout_s), (
            f'not logged: {[t for t in texts if t not in out()]}\n{out()}'
        )

    def manager_output(self) -> str:
        return '\n'.join(m.output() for m in self.managers)

    # --- what the launch tests check ----------------------------------------------------
    def controller_states(self, manager: str = '/controller_manager') -> dict[str, str]:
        """name -> state of the controllers `manager` has."""
        return {c.name: c.state for c in self.ros.manager(manager).list_controllers()}

    def assert_states(
        self, names: list[str], state: str = 'active', manager: str = '/controller_manager'
    ) -> None:
        """check_controllers_running: every one of `names` is loaded and in `state`."""
        states = self.controller_states(manager)
        wrong = {n: states.get(n) for n in names if states.get(n) != state}
        assert not wrong, f'expected {state}: {wrong}; all: {states}\n{self.manager_output()}'

    def joint_states(self, topic: str = '/joint_states') -> list[JointState]:
        """Every message on `topic` from now on (one subscription per topic)."""
        if topic not in self._joint_states:
            self._joint_states[topic] = self.ros.subscribe(JointState, topic)
        return self._joint_states[topic]

    def wait_for_joints(self, names: list[str], topic: str = '/joint_states') -> JointState:
        """check_if_js_published: a message on `topic` that carries every one of `names`."""
        received = self.joint_states(topic)

        def carries() -> bool:
            return bool(received) and all(n in received[-1].name for n in names)

        assert self.ros.spin_until(carries, timeout_s=30.0), (
            f'{topic} without {names}: {[list(m.name) for m in received[-3:]]}\n'
            f'{self.manager_output()}'
        )
        return received[-1]

    def close(self) -> list[int]:
        """Ctrl-C to every manager (the last started first); their exit codes."""
        codes = [manager.stop() for manager in reversed(self.managers)]
        self.ros.close()
        return codes

    def __enter__(self) -> DemoLaunch:
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        codes = self.close()
        # the launch tests' post-shutdown check: every process exited normally
        if exc_type is None:
            assert codes == [0] * len(codes), f'exit codes {codes}\n{self.manager_output()}'


def stamped_since(messages: list[JointState], since_ns: int) -> list[JointState]:
    """The messages stamped at or after `since_ns`: on a loaded host, ones sent before an
    event can still arrive after it."""
    return [m for m in messages if Time.from_msg(m.header.stamp).nanoseconds >= since_ns]


def position_of(msg: JointState, joint: str) -> float:
    """`joint`'s position in a JointState message."""
    return msg.position[list(msg.name).index(joint)]


def steps_between(before: float, after: float, target: float, factor: float) -> float:
    """How many cycles of `x <- x + (target - x) * (1 - factor)` lead from `before` to
    `after` (a whole number when the law holds): log((target - after) / (target - before))
    / log(factor)."""
    return math.log((target - after) / (target - before)) / math.log(factor)


def assert_slowdown_law(messages, joints, target, slowdown):
    """Between two /joint_states messages each joint went a whole number of steps of
    `x <- x + (target - x) / slowdown` (messages may skip cycles, never split one)."""
    factor = 1.0 - 1.0 / slowdown
    checked = 0
    for before, after in itertools.pairwise(messages):
        for joint in joints:
            a, b = position_of(before, joint), position_of(after, joint)
            if abs(target - a) < 1e-6 or a == b:
                continue
            steps = steps_between(a, b, target, factor)
            assert abs(steps - round(steps)) < 1e-6 and round(steps) >= 1, (joint, a, b, steps)
            checked += 1
    assert checked >= 5, f'too few moving samples: {checked}'


def run_script(name: str, *args: str, timeout_s: float = 60.0) -> subprocess.CompletedProcess:
    """One of the console scripts (ours or the demos package's), output captured."""
    return run_tool(name, *args, timeout_s=timeout_s)
