"""Trajectory messages to plain data; the outgoing messages, built once with numpy views.

The loop fills a message built here in place through the views (no allocation per cycle).
"""

from __future__ import annotations

import array
import math
from typing import Any

import numpy as np
from control_msgs.msg import JointTrajectoryControllerState
from trajectory_msgs.msg import JointTrajectory

from py_controllers.controllers.joint_trajectory.validation import PointData

__all__ = ['NS', 'bind_array', 'bind_feedback', 'ns_of', 'points_of', 'state_message']

NS = 1_000_000_000


def ns_of(msg_time: Any) -> int:
    """builtin_interfaces Time/Duration to integer nanoseconds."""
    return msg_time.sec * NS + msg_time.nanosec


def points_of(msg: JointTrajectory) -> list[PointData]:
    """The message's points as plain data (no copies of the arrays)."""
    return [
        PointData(ns_of(p.time_from_start), p.positions, p.velocities, p.accelerations, p.effort)
        for p in msg.points
    ]


def bind_array(point_msg: Any, field: str, n: int, fill: float = 0.0) -> np.ndarray:
    """Give a message field an array of n doubles and return a numpy view writing into it."""
    setattr(point_msg, field, array.array('d', [fill] * n))
    # Read it back: without ROS_PYTHON_CHECK_FIELDS the setter stores a copy.
    return np.frombuffer(getattr(point_msg, field), dtype=float)


def state_message(
    joints: list[str], vel_state: bool, acc_state: bool, outputs: list[tuple[str, Any]]
) -> tuple[JointTrajectoryControllerState, dict[str, np.ndarray], list[tuple[np.ndarray, Any]]]:
    """~/controller_state for ``joints``: the message, views of its arrays by name, and one
    ``(view, handles)`` per ``(output field, command handles)`` (NaN until commanded)."""
    n = len(joints)
    msg = JointTrajectoryControllerState()
    msg.joint_names = list(joints)
    v: dict[str, np.ndarray] = {}
    v['ref_pos'] = bind_array(msg.reference, 'positions', n)
    v['ref_vel'] = bind_array(msg.reference, 'velocities', n)
    v['ref_acc'] = bind_array(msg.reference, 'accelerations', n)
    for part in ('feedback', 'error'):
        point = getattr(msg, part)
        v[f'{part}_pos'] = bind_array(point, 'positions', n)
        if vel_state:
            v[f'{part}_vel'] = bind_array(point, 'velocities', n)
        if acc_state:
            v[f'{part}_acc'] = bind_array(point, 'accelerations', n)
    fields = [(bind_array(msg.output, field, n, math.nan), handles) for field, handles in outputs]
    return msg, v, fields


def bind_feedback(
    fb: Any, joints: list[str], vel_state: bool, acc_state: bool, eff_cmd: bool
) -> dict[str, np.ndarray]:
    """Give a FollowJointTrajectory Feedback its arrays; views of them by name."""
    n = len(joints)
    fb.joint_names = list(joints)
    v: dict[str, np.ndarray] = {}
    v['desired_pos'] = bind_array(fb.desired, 'positions', n)
    v['desired_vel'] = bind_array(fb.desired, 'velocities', n)
    v['desired_acc'] = bind_array(fb.desired, 'accelerations', n)
    v['desired_eff'] = bind_array(fb.desired, 'effort', n)
    v['actual_pos'] = bind_array(fb.actual, 'positions', n)
    v['error_pos'] = bind_array(fb.error, 'positions', n)
    if vel_state:
        v['actual_vel'] = bind_array(fb.actual, 'velocities', n)
        v['error_vel'] = bind_array(fb.error, 'velocities', n)
    if acc_state:
        v['actual_acc'] = bind_array(fb.actual, 'accelerations', n)
        v['error_acc'] = bind_array(fb.error, 'accelerations', n)
    if eff_cmd:
        v['actual_eff'] = bind_array(fb.actual, 'effort', n)
    return v
