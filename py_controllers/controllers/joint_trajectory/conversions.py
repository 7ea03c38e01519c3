"""Trajectory messages to plain data; the outgoing messages, built once with numpy views.

The loop fills a message built here in place through the views (no allocation per cycle).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from control_msgs.msg import JointTrajectoryControllerState
from trajectory_msgs.msg import JointTrajectory

from py_controllers.controllers.joint_trajectory.validation import PointData
from py_controllers.realtime_tools.serialized_message import SerializedMessage
from py_controllers.ros_conversions import bind_array, element_writer

__all__ = [
    'NS',
    'SampleCopy',
    'SampleViews',
    'StateMessage',
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


@dataclass(slots=True)
class StateMessage:
    """~/controller_state, serialized once, and where the loop writes into it."""

    message: SerializedMessage
    stamp: Any
    reference_time: Any  # reference.time_from_start
    feedback_time: Any  # feedback.time_from_start
    scaling: np.ndarray  # speed_scaling_factor
    views: SampleViews  # reference / feedback / error
    outputs: list[tuple[np.ndarray, Any]]  # (output field, its command handles)


def state_message(
    joints: list[str], vel_state: bool, acc_state: bool, outputs: list[tuple[str, Any]]
) -> StateMessage:
    """~/controller_state for ``joints``, with one output field per ``(field, command
    handles)`` (NaN until commanded)."""
    n = len(joints)
    msg = JointTrajectoryControllerState()
    msg.joint_names = list(joints)
    msg.speed_scaling_factor = 1.0
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
    output_views = [(bind_array(msg.output, field, n, math.nan), h) for field, h in outputs]
    serialized = SerializedMessage(msg)
    return StateMessage(
        message=serialized,
        stamp=serialized.time(msg.header.stamp),
        reference_time=serialized.time(msg.reference.time_from_start),
        feedback_time=serialized.time(msg.feedback.time_from_start),
        scaling=serialized.scalars(msg, ('speed_scaling_factor',)),
        views=SampleViews(
            *(
                None if view is None else serialized.doubles(view)
                for view in (getattr(views, f.name) for f in fields(SampleViews))
            )
        ),
        outputs=[(serialized.doubles(view), h) for view, h in output_views],
    )


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


class SampleCopy:
    """Copies one cycle's desired, measured and error arrays into a message's `SampleViews`:
    each array through memoryviews (a fifth of `np.copyto`'s cost for a few joints), the
    velocity and acceleration errors first computed into the loop's own arrays (numpy writes
    a serialized message's unaligned views at more than twice the cost of aligned ones)."""

    __slots__ = ('_errors', '_pairs')

    def __init__(
        self,
        views: SampleViews,
        desired: Any,
        actual: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        errors: tuple[np.ndarray, np.ndarray, np.ndarray],
    ) -> None:
        """`desired`: the loop's SampleResult; `actual`: measured positions, velocities,
        accelerations and effort; `errors`: the position error and the arrays the velocity
        and acceleration errors are computed into. Every source keeps its array for good."""
        cur_pos, cur_vel, cur_acc, cur_eff = actual
        err_pos, err_vel, err_acc = errors
        v = views
        pairs = [
            (v.desired_pos, desired.positions),
            (v.desired_vel, desired.velocities),
            (v.desired_acc, desired.accelerations),
            (v.desired_eff, desired.effort),
            (v.actual_pos, cur_pos),
            (v.error_pos, err_pos),
            (v.actual_eff, cur_eff),
        ]
        self._errors = []
        if v.actual_vel is not None and v.error_vel is not None:
            pairs += [(v.actual_vel, cur_vel), (v.error_vel, err_vel)]
            self._errors.append((desired.velocities, cur_vel, err_vel))
        if v.actual_acc is not None and v.error_acc is not None:
            pairs += [(v.actual_acc, cur_acc), (v.error_acc, err_acc)]
            self._errors.append((desired.accelerations, cur_acc, err_acc))
        self._pairs = [
            (element_writer(view), memoryview(source)) for view, source in pairs if view is not None
        ]

    def copy_rt(self) -> None:
        """This cycle's values into the message (loop thread)."""
        for wanted, measured, error in self._errors:
            np.subtract(wanted, measured, out=error)
        for view, source in self._pairs:
            view[:] = source
