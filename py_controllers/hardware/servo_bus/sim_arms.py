"""The simulated buses of the two arms: servo ids, models and loads (no rclpy).

OpenManipulator-X: ids 11-15 (ROBOTIS's), XM430-W350, 1 Mbaud; the shoulder and elbow carry
the arm's weight. SO-101: ids 1-6 (LeRobot's order: shoulder_pan, shoulder_lift, elbow_flex,
wrist_flex, wrist_roll, gripper), STS3215, 1 Mbaud. Each load pulls its joint towards the
servo's centre, where the arm rests with the torque off (so an unpowered arm stays put).
"""

from __future__ import annotations

import math
import time

from py_controllers.hardware.servo_bus.models import MODELS
from py_controllers.hardware.servo_bus.sim_servo import Load, SimServo

# (servo id, model, load)
_OMX = [
    (11, 'XM430-W350', Load(inertia=0.01)),
    (12, 'XM430-W350', Load(inertia=0.02, gravity_nm=0.6)),
    (13, 'XM430-W350', Load(inertia=0.01, gravity_nm=0.35)),
    (14, 'XM430-W350', Load(inertia=0.004, gravity_nm=0.08)),
    (15, 'XM430-W350', Load(inertia=0.002)),
]
_SO101 = [
    (1, 'STS3215', Load(inertia=0.008)),
    (2, 'STS3215', Load(inertia=0.015, gravity_nm=0.45)),
    (3, 'STS3215', Load(inertia=0.008, gravity_nm=0.25)),
    (4, 'STS3215', Load(inertia=0.003, gravity_nm=0.06)),
    (5, 'STS3215', Load(inertia=0.002)),
    (6, 'STS3215', Load(inertia=0.002)),
]
ARMS = {'omx': _OMX, 'so101': _SO101, 'so101_leader': _SO101}


def make_servos(arm: str) -> list[SimServo]:
    """Fresh servos of `arm` (a key of ARMS), at rest at their centre, torque off; the
    leader's moved by a hand: slow sines of 0.3-0.5 rad, a different period each."""
    servos = [
        SimServo(servo_id, MODELS[model], Load(**vars(load))) for servo_id, model, load in ARMS[arm]
    ]
    if arm == 'so101_leader':
        start = time.monotonic()
        for k, servo in enumerate(servos):
            servo.hand = _sine(start, 0.3 + 0.04 * k, 4.0 + 0.7 * k)
    return servos


def _sine(start: float, amplitude: float, period: float):  # type: ignore[no-untyped-def]
    return lambda t: amplitude * math.sin(2 * math.pi * (t - start) / period)
