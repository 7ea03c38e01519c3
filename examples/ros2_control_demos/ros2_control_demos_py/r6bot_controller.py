"""Example 7's controller: follows a JointTrajectory received on `~/joint_trajectory`,
sampled as upstream samples it (r6bot_interpolation.py), on the `position` and `velocity`
command interfaces of its joints.

Parameters (read at load, as upstream's auto_declare in on_init): `joints`,
`command_interfaces` and `state_interfaces` (interface names per joint). A trajectory with
fewer than two points, a wrong number of values or a value that is not finite is refused
with an error (upstream would index past its vectors). A trajectory received while the
controller is inactive is followed once it is active, as upstream; one under way when it was
deactivated is not resumed on activation (upstream would go on with the old start time,
jumping towards the end).
"""

from __future__ import annotations

from typing import Any

from rclpy.exceptions import ParameterUninitializedException
from rclpy.parameter import Parameter
from rclpy.qos import qos_profile_system_default
from trajectory_msgs.msg import JointTrajectory

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controller_interface.loop_log import LoopLog
from py_controllers.realtime_tools import RealtimeBox
from py_controllers.ros_conversions import duration_to_s
from ros2_control_demos_py.r6bot_interpolation import Trajectory, sample, trajectory_problem


def _string_array(node: Any, name: str) -> list[str]:
    """Declare `name` as a string array; its value, [] when none was given."""
    node.declare_parameter(name, Parameter.Type.STRING_ARRAY)
    try:
        return list(node.get_parameter(name).value or [])
    except ParameterUninitializedException:
        return []


class RobotController(ControllerInterface):
    """ros2_control_demo_example_7/RobotController."""

    def on_init(self) -> CallbackReturn:
        node = self.get_node()
        self.joint_names = _string_array(node, 'joints')
        self.command_interface_types = _string_array(node, 'command_interfaces')
        self.state_interface_types = _string_array(node, 'state_interfaces')
        n = len(self.joint_names)
        self.point_positions = [0.0] * n
        self.point_velocities = [0.0] * n
        self.trajectory_box: RealtimeBox[Trajectory | None] = RealtimeBox(None)
        self._taken: Trajectory | None = None
        return CallbackReturn.SUCCESS

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(
            [f'{j}/{i}' for j in self.joint_names for i in self.command_interface_types]
        )

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(
            [f'{j}/{i}' for j in self.joint_names for i in self.state_interface_types]
        )

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        node = self.get_node()
        node.create_subscription(
            JointTrajectory, '~/joint_trajectory', self._on_trajectory, qos_profile_system_default
        )
        self._loop_log = LoopLog(node, throttle_s=0.0)  # update() never logs through rcl
        return CallbackReturn.SUCCESS

    def _on_trajectory(self, msg: JointTrajectory) -> None:
        log = self.get_node().get_logger()
        log.info('Received new trajectory.')
        positions = [list(p.positions) for p in msg.points]
        velocities = [list(p.velocities) for p in msg.points]
        total_s = 0.0
        if msg.points:
            last = msg.points[-1].time_from_start
            total_s = duration_to_s(last)
        problem = trajectory_problem(positions, velocities, total_s, len(self.joint_names))
        if problem:
            log.error(f'trajectory refused: {problem}')
            return
        self.trajectory_box.set(
            Trajectory(tuple(map(tuple, positions)), tuple(map(tuple, velocities)), total_s)
        )

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        by_kind: dict[str, list[Any]] = {'position': [], 'velocity': []}
        for handle in self.command_interfaces:
            if handle.interface_name in by_kind:
                by_kind[handle.interface_name].append(handle)
        self.position_commands = by_kind['position']
        self.velocity_commands = by_kind['velocity']
        # one received while inactive is followed now (as upstream); one under way when the
        # controller was deactivated is not resumed (upstream would jump to its end)
        self.trajectory: Trajectory | None = None
        self.start_ns = 0
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> ReturnType:
        newest = self.trajectory_box.get()
        if newest is not None and newest is not self._taken:
            self._taken = newest
            self.trajectory = newest
            self.start_ns = time.nanoseconds
        trajectory = self.trajectory
        if trajectory is None:
            return ReturnType.OK
        elapsed_s = (time.nanoseconds - self.start_ns) * 1e-9
        if sample(trajectory, elapsed_s, self.point_positions, self.point_velocities):
            self._loop_log.log_rt('info', 'Trajectory execution complete.', time.nanoseconds)
            self.trajectory = None
        for handle, value in zip(self.position_commands, self.point_positions):
            handle.value = value
        for handle, value in zip(self.velocity_commands, self.point_velocities):
            handle.value = value
        return ReturnType.OK
