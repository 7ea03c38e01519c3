"""The servo arms' description and controller files, and a description aimed at a port (no
rclpy): what the tests, the demo and the launch files share."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

CONFIG = Path(__file__).resolve().parents[3] / 'config'


@dataclass(frozen=True)
class ServoArm:
    """One arm: its files, the simulated bus that stands in for it, its joints and a pose."""

    name: str
    urdf: Path
    controllers: Path
    sim: str  # a key of sim_arms.ARMS
    link: str  # the default usb_port of its URDF, where the simulated bus links
    arm_joints: tuple[str, ...]
    pose: tuple[float, ...]  # a pose that loads the shoulder and elbow
    gripper_goal: float


ARMS = {
    'omx': ServoArm(
        'omx',
        CONFIG / 'omx_robot.urdf',
        CONFIG / 'omx_controllers.yaml',
        'omx',
        '/tmp/ttyOMX',
        ('joint1', 'joint2', 'joint3', 'joint4'),
        (0.4, 0.6, -0.5, 0.3),
        0.012,
    ),
    'so101': ServoArm(
        'so101',
        CONFIG / 'so101_robot.urdf',
        CONFIG / 'so101_controllers.yaml',
        'so101',
        '/tmp/ttySO101',
        ('shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'wrist_roll'),
        (0.3, 0.6, -0.6, 0.4, 0.5),
        0.8,
    ),
}


def urdf_on_port(arm: ServoArm, port: str, **params: object) -> str:
    """The arm's URDF with `usb_port` set to `port` and extra `<hardware>` params."""
    return description_on_port(arm.urdf.read_text(), port, **params)


def leader_description(port: str) -> str:
    """The SO-101 as a leader arm on `port`: state interfaces only, torque off (read_only)."""
    text = ARMS['so101'].urdf.read_text()
    text = re.sub(r'\s*<command_interface name="\w+"/>', '', text)
    text = text.replace('name="SO101Follower"', 'name="SO101Leader"')
    return description_on_port(text, port, read_only='true')


def description_on_port(text: str, port: str, **params: object) -> str:
    """A servo bus URDF's text with `usb_port` set to `port` and extra `<hardware>` params."""
    text = re.sub(r'(<param name="usb_port">)[^<]*', lambda m: m.group(1) + port, text)
    extra = ''.join(f'<param name="{k}">{v}</param>' for k, v in params.items())
    return text.replace('</hardware>', extra + '</hardware>', 1)
