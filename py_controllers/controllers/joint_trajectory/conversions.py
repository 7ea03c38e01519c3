"""Trajectory messages to plain data; the outgoing messages, built once with numpy views.

The loop fills a message built here in place through the views (no allocation per cycle).
"""

from __future__ import annotations

import array
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from control_msgs.msg import JointTrajectoryControllerState
from trajectory_msgs.msg import JointTrajectory

from py_controllers.controllers.joint_trajectory.validation import PointData

__all__ = [
    'NS',
    'SampleViews',
    'bind_array',
    'bind_feedback',
    'bind_sample',
    'ns_of',
    'points_of',
    'state_message',
]

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


@dataclass(slots=True)
class SampleViews:
    """Views of a desired / actual / error triple of JointTrajectoryPoints, as the feedback
    of FollowJointTrajectory and ~/controller_state both carry; None: not in the message."""

    desired_pos: np.ndarray
    desired_vel: np.ndarray
    desired_acc: np.ndarray
    desired_eff: np.ndarray | None
    actual_pos: np.ndarray
    actual_vel: np.ndarray | None
    actual_acc: np.ndarray | None
    actual_eff: np.ndarray | None
    error_pos: np.ndarray
    error_vel: np.ndarray | None
    error_acc: np.ndarray | None


def bind_sample(
    desired: Any,
    actual: Any,
    error: Any,
    n: int,
    *,
    vel_state: bool,
    acc_state: bool,
    desired_effort: bool,
    actual_effort: bool,
) -> SampleViews:
    """Give the three points their arrays once (velocities and accelerations of the actual
    and error points only with such states); the views the loop fills."""
    return SampleViews(
        desired_pos=bind_array(desired, 'positions', n),
        desired_vel=bind_array(desired, 'velocities', n),
        desired_acc=bind_array(desired, 'accelerations', n),
        desired_eff=bind_array(desired, 'effort', n) if desired_effort else None,
        actual_pos=bind_array(actual, 'positions', n),
        actual_vel=bind_array(actual, 'velocities', n) if vel_state else None,
        actual_acc=bind_array(actual, 'accelerations', n) if acc_state else None,
        actual_eff=bind_array(actual, 'effort', n) if actual_effort else None,
        error_pos=bind_array(error, 'positions', n),
        error_vel=bind_array(error, 'velocities', n) if vel_state else None,
        error_acc=bind_array(error, 'accelerations', n) if acc_state else None,
    )


def state_message(
    joints: list[str], vel_state: bool, acc_state: bool, outputs: list[tuple[str, Any]]
) -> tuple[JointTrajectoryControllerState, SampleViews, list[tuple[np.ndarray, Any]]]:
    """~/controller_state for ``joints``: the message, views of its reference / feedback /
    error points, and one ``(view, handles)`` per ``(output field, command handles)`` (NaN
    until commanded)."""
    n = len(joints)
    msg = JointTrajectoryControllerState()
    msg.joint_names = list(joints)
    views = bind_sample(
        msg.reference,
        msg.feedback,
        msg.error,
        n,
        vel_state=vel_state,
        acc_state=acc_state,
        desired_effort=False,
        actual_effort=False,
    )
    fields = [(bind_array(msg.output, field, n, math.nan), handles) for field, handles in outputs]
    return msg, views, fields


def bind_feedback(
    fb: Any, joints: list[str], vel_state: bool, acc_state: bool, eff_cmd: bool
) -> SampleViews:
    """Give a FollowJointTrajectory Feedback its arrays; views of its three points."""
    fb.joint_names = list(joints)
    return bind_sample(
        fb.desired,
        fb.actual,
        fb.error,
        len(joints),
        vel_state=vel_state,
        acc_state=acc_state,
        desired_effort=True,
        actual_effort=eff_cmd,
    )
