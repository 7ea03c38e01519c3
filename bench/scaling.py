"""Per-cycle cost as the robot grows: N joints under a quintic JTC plus the broadcaster,
and N single-joint forward controllers; generated mock robots, ros2_control_node at 1 kHz."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import yaml
from builtin_interfaces.msg import Duration as DurationMsg
from control_msgs.msg import JointTrajectoryControllerState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from bench.common import BROADCASTER_TOPICS, WAIT_S, listening, measure, running_manager
from py_controllers.testing import RosHarness


def mock_robot_urdf(n_joints: int) -> str:
    """A chain of `n_joints` revolute joints on mock_components/GenericSystem."""
    links = ''.join(f'<link name="l{i}"/>' for i in range(n_joints + 1))
    joints = ''.join(
        f'<joint name="j{i}" type="revolute"><parent link="l{i}"/><child link="l{i + 1}"/>'
        f'<axis xyz="0 0 1"/><limit lower="-3" upper="3" velocity="5" effort="10"/></joint>'
        for i in range(n_joints)
    )
    control = ''.join(
        f'<joint name="j{i}"><command_interface name="position"/>'
        f'<state_interface name="position"/><state_interface name="velocity"/></joint>'
        for i in range(n_joints)
    )
    return (
        f'<robot name="chain{n_joints}">{links}{joints}<ros2_control name="Chain" type="system">'
        '<hardware><plugin>mock_components/GenericSystem</plugin>'
        '<param name="calculate_dynamics">false</param></hardware>'
        f'{control}</ros2_control></robot>'
    )


def _write(folder: Path, n_joints: int, controllers: dict) -> tuple[Path, Path]:
    urdf = folder / f'chain{n_joints}.urdf'
    urdf.write_text(mock_robot_urdf(n_joints))
    params = folder / 'controllers.yaml'
    manager = {name: {'type': spec.pop('type')} for name, spec in controllers.items()}
    document = {'controller_manager': {'ros__parameters': manager}}
    document.update({name: {'ros__parameters': spec} for name, spec in controllers.items()})
    params.write_text(yaml.safe_dump(document))
    return params, urdf


def sine_trajectory(joints: list[str], duration_s: float) -> JointTrajectory:
    """Every joint on a slow sine with positions, velocities, accelerations: quintic splines."""
    msg = JointTrajectory(joint_names=joints)
    w = 2.0 * math.pi / 4.0
    for k in range(1, int(duration_s / 0.1) + 1):
        t = k * 0.1
        point = JointTrajectoryPoint(
            positions=[0.5 * math.sin(w * t) for _ in joints],
            velocities=[0.5 * w * math.cos(w * t) for _ in joints],
            accelerations=[-0.5 * w * w * math.sin(w * t) for _ in joints],
        )
        point.time_from_start = DurationMsg(sec=int(t), nanosec=round((t % 1.0) * 1e9))
        msg.points.append(point)
    msg.points[-1].velocities = [0.0] * len(joints)
    msg.points[-1].accelerations = [0.0] * len(joints)
    return msg


def jtc_run(n_joints: int, seconds: float, rate_hz: int = 1000) -> dict:
    """Statistics with a quintic JTC on `n_joints` executing, plus the broadcaster; every
    state topic heard."""
    joints = [f'j{i}' for i in range(n_joints)]
    controllers = {
        'joint_state_broadcaster': {'type': 'joint_state_broadcaster/JointStateBroadcaster'},
        'jtc': {
            'type': 'joint_trajectory_controller/JointTrajectoryController',
            'joints': joints,
            'command_interfaces': ['position'],
            'state_interfaces': ['position', 'velocity'],
            'allow_nonzero_velocity_at_trajectory_end': True,
        },
    }
    with tempfile.TemporaryDirectory() as folder:
        params, urdf = _write(Path(folder), n_joints, controllers)
        with (
            running_manager(
                [params], urdf, ['joint_state_broadcaster', 'jtc'], rate_hz=rate_hz
            ) as (_, ros, cm),
            listening(
                ros, {**BROADCASTER_TOPICS, '/jtc/controller_state': JointTrajectoryControllerState}
            ),
        ):
            start_trajectory(ros, sine_trajectory(joints, seconds + 5.0))
            return measure(ros, cm, seconds)


def start_trajectory(ros: RosHarness, trajectory: JointTrajectory) -> None:
    """Send `trajectory` to the JTC `jtc` until its state shows it moving (a message sent
    while discovery settles can be lost); RuntimeError after WAIT_S."""
    states: list[JointTrajectoryControllerState] = []
    watch = ros.node.create_subscription(
        JointTrajectoryControllerState, '/jtc/controller_state', states.append, 10
    )
    pub = ros.node.create_publisher(JointTrajectory, '/jtc/joint_trajectory', 10)

    def moving() -> bool:
        if any(v != 0.0 for m in states[-3:] for v in m.reference.velocities):
            return True
        if pub.get_subscription_count() > 0:
            pub.publish(trajectory)
        return False

    try:
        if not ros.spin_until(moving, WAIT_S):
            raise RuntimeError(f'the JTC did not start its trajectory within {WAIT_S:g} s')
    finally:
        ros.node.destroy_subscription(watch)
        ros.node.destroy_publisher(pub)


def forward_run(n_controllers: int, seconds: float, rate_hz: int = 1000) -> dict:
    """Statistics with `n_controllers` single-joint forward command controllers."""
    controllers = {
        f'fwd{i}': {
            'type': 'forward_command_controller/ForwardCommandController',
            'joints': [f'j{i}'],
            'interface_name': 'position',
        }
        for i in range(n_controllers)
    }
    names = list(controllers)
    with tempfile.TemporaryDirectory() as folder:
        params, urdf = _write(Path(folder), n_controllers, controllers)
        with running_manager([params], urdf, names, rate_hz=rate_hz) as (_, ros, cm):
            return measure(ros, cm, seconds)
