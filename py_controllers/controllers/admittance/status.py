"""``~/status`` (control_msgs/AdmittanceControllerState) from the rule's state.

Filled as upstream's ``AdmittanceRule::get_controller_state``: the admittance offsets as
``joint_state`` (position, velocity and, in ``effort``, acceleration), the mass, damping,
stiffness and selected axes per Cartesian axis, the filtered wrench in the base frame, the
admittance twist and acceleration and offset pose of the sensor frame, the sensor frame at
the reference and the control frame's rotation. Frame ids are ``kinematics.base``; the
stamps (left empty upstream) are the update's time.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from control_msgs.msg import AdmittanceControllerState

from py_controllers.controllers.admittance.admittance_rule import AdmittanceRule
from py_controllers.ros_conversions import set_stamp

ADMITTANCE_OFFSET_FRAME = 'admittance_offset'


def make_status_message(joints: list[str], base: str, ft_frame: str) -> AdmittanceControllerState:
    """The message to fill in place every update (built once, at activation)."""
    n = len(joints)
    msg = AdmittanceControllerState()
    msg.joint_state.name = list(joints)
    msg.joint_state.position = [0.0] * n
    msg.joint_state.velocity = [0.0] * n
    msg.joint_state.effort = [0.0] * n
    msg.mass.data = [0.0] * 6
    msg.damping.data = [0.0] * 6
    msg.stiffness.data = [0.0] * 6
    msg.selected_axes.data = [0] * 6
    for stamped in (
        msg.wrench_base,
        msg.admittance_velocity,
        msg.admittance_acceleration,
        msg.admittance_position,
        msg.ref_trans_base_ft,
    ):
        stamped.header.frame_id = base
    msg.admittance_position.child_frame_id = ADMITTANCE_OFFSET_FRAME
    msg.ref_trans_base_ft.child_frame_id = ft_frame
    msg.ft_sensor_frame.data = ft_frame
    msg.rot_base_control.w = 1.0
    return msg


def fill_status(msg: AdmittanceControllerState, rule: AdmittanceRule, stamp_ns: int) -> None:
    """Copy the rule's state into ``msg`` (loop side, no new message)."""
    c, s = rule.config, rule.state
    msg.mass.data = c.mass.tolist()
    msg.damping.data = c.damping.tolist()
    msg.stiffness.data = c.stiffness.tolist()
    msg.selected_axes.data = [int(a) for a in c.selected_axes]
    js = msg.joint_state
    js.position = s.joint_pos.tolist()
    js.velocity = s.joint_vel.tolist()
    js.effort = s.joint_acc.tolist()
    set_stamp(js.header.stamp, stamp_ns)

    w = msg.wrench_base
    set_stamp(w.header.stamp, stamp_ns)
    _set_xyz(w.wrench.force, s.wrench_base[:3])
    _set_xyz(w.wrench.torque, s.wrench_base[3:])
    for twist, values in (
        (msg.admittance_velocity, s.admittance_velocity),
        (msg.admittance_acceleration, s.admittance_acceleration),
    ):
        set_stamp(twist.header.stamp, stamp_ns)
        _set_xyz(twist.twist.linear, values[:3])
        _set_xyz(twist.twist.angular, values[3:])
    for transform, matrix in (
        (msg.admittance_position, s.admittance_position),
        (msg.ref_trans_base_ft, s.ref_trans_base_ft),
    ):
        set_stamp(transform.header.stamp, stamp_ns)
        _set_xyz(transform.transform.translation, matrix[:3, 3])
        set_quaternion(transform.transform.rotation, matrix[:3, :3])
    set_quaternion(msg.rot_base_control, s.rot_base_control)
    msg.ref_trans_base_ft.child_frame_id = c.ft_frame
    msg.ft_sensor_frame.data = c.ft_frame


def _set_xyz(target: Any, values: np.ndarray) -> None:
    target.x, target.y, target.z = float(values[0]), float(values[1]), float(values[2])


def set_quaternion(q: Any, r: np.ndarray) -> None:
    """Fill a geometry_msgs/Quaternion from a rotation matrix (w >= 0)."""
    trace = float(r[0, 0] + r[1, 1] + r[2, 2])
    if trace > 0.0:
        s = 2.0 * math.sqrt(trace + 1.0)
        w, x, y, z = (
            0.25 * s,
            (r[2, 1] - r[1, 2]) / s,
            (r[0, 2] - r[2, 0]) / s,
            (r[1, 0] - r[0, 1]) / s,
        )
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = 2.0 * math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2])
        w, x, y, z = (
            (r[2, 1] - r[1, 2]) / s,
            0.25 * s,
            (r[0, 1] + r[1, 0]) / s,
            (r[0, 2] + r[2, 0]) / s,
        )
    elif r[1, 1] > r[2, 2]:
        s = 2.0 * math.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2])
        w, x, y, z = (
            (r[0, 2] - r[2, 0]) / s,
            (r[0, 1] + r[1, 0]) / s,
            0.25 * s,
            (r[1, 2] + r[2, 1]) / s,
        )
    else:
        s = 2.0 * math.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1])
        w, x, y, z = (
            (r[1, 0] - r[0, 1]) / s,
            (r[0, 2] + r[2, 0]) / s,
            (r[1, 2] + r[2, 1]) / s,
            0.25 * s,
        )
    sign = -1.0 if w < 0.0 else 1.0
    q.w, q.x, q.y, q.z = sign * float(w), sign * float(x), sign * float(y), sign * float(z)
