"""What the two-joint transmission tests share: handles for two joints and two actuators,
upstream's list of bad configurations, and its seeded actuator -> joint -> actuator trip."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from py_controllers.transmission_interface import ActuatorHandle, JointHandle, Transmission

EXTREMAL = 1337.1337
"""Written over the actuators between the two maps, so joint_to_actuator cannot be a no-op."""


def quad(interface: str, actuators=(math.nan, math.nan), joints=(math.nan, math.nan)):
    """([joint1, joint2], [act1, act2]) handles of `interface` with these values."""
    return (
        [JointHandle(f'joint{i + 1}', interface, joints[i]) for i in range(2)],
        [ActuatorHandle(f'act{i + 1}', interface, actuators[i]) for i in range(2)],
    )


def mapped(trans: Transmission, interface: str, actuators: tuple[float, float]) -> list[float]:
    """The joint values actuator_to_joint() gives for `actuators` on `interface`."""
    joints, acts = quad(interface, actuators)
    trans.configure(joints, acts)
    trans.actuator_to_joint()
    return [j.value for j in joints]


def bad_configurations(interface: str) -> list[tuple[list[Any], list[Any], str]]:
    """Upstream's testConfigureWithBadHandles (a null handle is None here)."""
    j1, j2, j3 = (JointHandle(f'joint{i}', interface, 0.0) for i in (1, 2, 3))
    a1, a2, a3 = (ActuatorHandle(f'act{i}', interface, 0.0) for i in (1, 2, 3))
    two_joints = 'exactly two unique joint names'
    two_actuators = 'exactly two unique actuator names'
    return [
        ([], [], 'no joint handles'),
        ([j1], [], 'no actuator handles'),
        ([j1], [a1], two_joints),
        ([], [a1], 'no joint handles'),
        ([j1, j2], [a1], two_actuators),
        ([j1], [a1, a2], two_joints),
        ([j1, j2, j3], [a1, a2], two_joints),
        ([j1, j2], [a1, a2, a3], two_actuators),
        ([j1, j2, j3], [a1, a2, a3], two_joints),
        ([j1, j2], [None, a2], 'actuator handle #0 is None'),
        ([None, j2], [a1, a2], 'joint handle #0 is None'),
        ([None, j2], [None, a2], 'joint handle #0 is None'),
    ]


def round_trips(make: Callable[..., Transmission], interfaces: list[str]) -> int:
    """Upstream's black-box test, seeded: random transmissions (reductions and offsets in
    [-1000, 1000]) and random actuator values come back from actuator -> joint -> actuator
    within 1e-5 (relative to their size). The number of trips made."""
    rng = random.Random(1234)
    trips = 0
    for _ in range(30):
        trans = make(*([rng.uniform(-1000, 1000) for _ in range(2)] for _ in range(3)))
        for _ in range(10):
            reference = (rng.uniform(-1000, 1000), rng.uniform(-1000, 1000))
            for interface in interfaces:
                joints, actuators = quad(interface, reference)
                trans.configure(joints, actuators)
                trans.actuator_to_joint()
                for a in actuators:
                    a.value = EXTREMAL
                trans.joint_to_actuator()
                for a, ref in zip(actuators, reference):
                    assert math.isclose(a.value, ref, rel_tol=1e-9, abs_tol=1e-5), (
                        interface,
                        a.value,
                        ref,
                    )
                trips += 1
    return trips
