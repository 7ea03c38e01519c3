"""The IMU broadcaster's `rotation_offset`: re-express IMU readings in a rotated frame (no ROS).

Upstream's ``imu_transform.hpp`` in plain Python. ``r`` is the rotation from the roll,
pitch and yaw offsets in the Z-Y'-X'' convention (yaw about z, then pitch about the new y,
then roll about the newest x: ``r = Rz(yaw) Ry(pitch) Rx(roll)``). Vectors (angular
velocity, linear acceleration) become ``r v`` and their covariances ``r C r^T``; the
orientation, the attitude of the new frame in the same fixed world frame, becomes
``q r^-1``; the orientation covariance is kept.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Quaternion = tuple[float, float, float, float]  # (x, y, z, w)


def quat_from_euler(roll: float, pitch: float, yaw: float) -> Quaternion:
    """The unit quaternion (x, y, z, w) of ``Rz(yaw) Ry(pitch) Rx(roll)``."""
    cr, sr = math.cos(roll * 0.5), math.sin(roll * 0.5)
    cp, sp = math.cos(pitch * 0.5), math.sin(pitch * 0.5)
    cy, sy = math.cos(yaw * 0.5), math.sin(yaw * 0.5)
    q = (
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
        cr * cp * cy + sr * sp * sy,
    )
    norm = math.sqrt(sum(c * c for c in q))
    return (q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm)


def quat_multiply(a: Sequence[float], b: Sequence[float]) -> Quaternion:
    """The Hamilton product ``a b`` of two (x, y, z, w) quaternions."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def rotation_matrix(q: Sequence[float]) -> tuple[tuple[float, float, float], ...]:
    """The 3x3 rotation matrix (rows) of a unit (x, y, z, w) quaternion."""
    x, y, z, w = q
    return (
        (1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)),
        (2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)),
        (2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)),
    )


class ImuRotation:
    """A fixed rotation offset applied to IMU readings; build once, apply in the loop."""

    def __init__(self, roll: float, pitch: float, yaw: float) -> None:
        self.quaternion = quat_from_euler(roll, pitch, yaw)
        self.matrix = rotation_matrix(self.quaternion)
        x, y, z, w = self.quaternion
        self._inverse = (-x, -y, -z, w)
        self.is_identity = roll == 0.0 and pitch == 0.0 and yaw == 0.0

    def rotate_covariance(self, covariance: Sequence[float]) -> list[float]:
        """``r C r^T`` of a row-major 3x3 covariance (nine values)."""
        r = self.matrix
        c = [covariance[0:3], covariance[3:6], covariance[6:9]]
        rc = [[sum(r[i][k] * c[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
        return [sum(rc[i][k] * r[j][k] for k in range(3)) for i in range(3) for j in range(3)]

    def apply_rt(self, values: list[float]) -> None:
        """Transform ten IMU values in place (orientation x, y, z, w, angular velocity
        x, y, z, linear acceleration x, y, z); loop-safe."""
        (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = self.matrix
        for i in (4, 7):
            vx, vy, vz = values[i], values[i + 1], values[i + 2]
            values[i] = r00 * vx + r01 * vy + r02 * vz
            values[i + 1] = r10 * vx + r11 * vy + r12 * vz
            values[i + 2] = r20 * vx + r21 * vy + r22 * vz
        values[0:4] = quat_multiply(values[0:4], self._inverse)
