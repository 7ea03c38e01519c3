"""~/odom and the odom -> base_link transform, serialized once; the loop writes the numbers.

Both messages keep their frames and covariances from configuration on; each publish only
changes the stamp, the planar pose (x, y, heading as a quaternion about z) and, in the
odometry, the body velocities (forward, sideways for holonomic bases, turning).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from nav_msgs.msg import Odometry

from py_controllers.realtime_tools.serialized_message import SerializedMessage
from py_controllers.ros_conversions import set_stamp
from py_controllers.tf_publisher import transform_message


class OdometryMessages:
    """The two messages and the views the loop fills (`write_*_rt`, under their publishers'
    locks)."""

    def __init__(
        self,
        odom_frame: str,
        base_frame: str,
        pose_covariance_diagonal: Sequence[float],
        twist_covariance_diagonal: Sequence[float],
    ) -> None:
        msg = Odometry()
        msg.header.frame_id = odom_frame
        msg.child_frame_id = base_frame
        for i, value in enumerate(pose_covariance_diagonal):
            msg.pose.covariance[7 * i] = float(value)
        for i, value in enumerate(twist_covariance_diagonal):
            msg.twist.covariance[7 * i] = float(value)
        msg.pose.pose.orientation.w = 1.0
        self.odometry = odom = SerializedMessage(msg)
        self._odom_stamp = odom.time(msg.header.stamp)
        self._odom_xy = odom.scalars(msg.pose.pose.position, ('x', 'y'))
        self._odom_zw = odom.scalars(msg.pose.pose.orientation, ('z', 'w'))
        self._linear_xy = odom.scalars(msg.twist.twist.linear, ('x', 'y'))
        self._angular_z = odom.scalars(msg.twist.twist.angular, ('z',))

        tf = transform_message(odom_frame, base_frame)
        self.transform = tf.message
        self._tf_stamp = tf.stamp
        self._tf_xy = tf.translation[:2]
        self._tf_zw = tf.rotation[2:]

    def write_odometry_rt(
        self,
        now_ns: int,
        x: float,
        y: float,
        heading: float,
        linear: float,
        angular: float,
        linear_y: float = 0.0,
    ) -> None:
        """Stamp, pose and body twist (`linear` along x, `linear_y` sideways, `angular` about z)."""
        set_stamp(self._odom_stamp, now_ns)
        _write_pose(self._odom_xy, self._odom_zw, x, y, heading)
        self._linear_xy[0] = linear
        self._linear_xy[1] = linear_y
        self._angular_z[0] = angular

    def write_transform_rt(self, now_ns: int, x: float, y: float, heading: float) -> None:
        set_stamp(self._tf_stamp, now_ns)
        _write_pose(self._tf_xy, self._tf_zw, x, y, heading)


def _write_pose(xy: np.ndarray, zw: np.ndarray, x: float, y: float, heading: float) -> None:
    xy[0] = x
    xy[1] = y
    zw[0] = math.sin(heading / 2.0)
    zw[1] = math.cos(heading / 2.0)
