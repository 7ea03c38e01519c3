"""The rules of the mobile bases' TwistStamped inputs (executor thread, not the loop).

A zero stamp means "now" (warned once, as upstream); a negative stamp is refused (rclpy
cannot even build a time from it); with a timeout > 0, a stamp older than the timeout is
ignored and one further than it in the future refused (the loop brakes timeout after the
stamp, so a future stamp would keep the base driving after the sender stopped). A twist
with a non-finite velocity, or one whose wheel speeds overflow, is refused too: a
non-finite command never reaches the hardware.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from py_controllers.ros_conversions import stamp_to_ns


class TwistStampCheck:
    """Judges stamps of one topic (`topic` and the timeout parameter's name appear in the
    log lines)."""

    def __init__(self, topic: str, timeout_name: str) -> None:
        self.topic = topic
        self.timeout_name = timeout_name
        self._warned_zero_stamp = False

    def accept(self, stamp: Any, now_ns: int, timeout_s: float, log: Any) -> int | None:
        """The stamp in ns (the time of arrival for a zero stamp), or None when refused."""
        if stamp.sec < 0:
            log.error(
                f'{self.topic} rejected: negative stamp ({stamp.sec} s, {stamp.nanosec} ns); '
                'stamp it with the current time, or leave it zero for "now"',
                throttle_duration_sec=1.0,
            )
            return None
        stamp_ns = stamp_to_ns(stamp)
        if stamp_ns == 0:
            if not self._warned_zero_stamp:
                log.warning(f'{self.topic} with a zero stamp: using the time of arrival')
                self._warned_zero_stamp = True
            return now_ns
        timeout_ns = int(timeout_s * 1e9)
        if timeout_ns > 0 and now_ns - stamp_ns >= timeout_ns:
            log.warning(
                f'{self.topic} ignored: {(now_ns - stamp_ns) * 1e-9:.3f} s old, older than '
                f'{self.timeout_name} {timeout_s:g} s',
                throttle_duration_sec=1.0,
            )
            return None
        if timeout_ns > 0 and stamp_ns - now_ns > timeout_ns:
            log.error(
                f'{self.topic} rejected: stamped {(stamp_ns - now_ns) * 1e-9:.3f} s in the '
                f'future, more than {self.timeout_name} {timeout_s:g} s',
                throttle_duration_sec=1.0,
            )
            return None
        return stamp_ns

    def accept_twist(
        self,
        msg: Any,
        values: tuple[float, ...],
        timeout_s: float,
        node: Any,
        wheel_speeds: Callable[..., Sequence[float]] | None = None,
    ) -> int | None:
        """The stamp in ns of a TwistStamped `msg` whose velocities `values` may drive the
        base, or None when refused and logged on `node`: its stamp, a non-finite velocity,
        or (with `wheel_speeds`, the base's inverse kinematics) wheel speeds that overflow."""
        log = node.get_logger()
        stamp_ns = self.accept(msg.header.stamp, node.get_clock().now().nanoseconds, timeout_s, log)
        if stamp_ns is None:
            return None
        if not all(math.isfinite(v) for v in values):
            log.error(
                f'{self.topic} rejected: non-finite velocity {values}', throttle_duration_sec=1.0
            )
            return None
        if wheel_speeds is not None:
            wheels = tuple(wheel_speeds(*values))
            if not all(math.isfinite(w) for w in wheels):
                log.error(
                    f'{self.topic} rejected: velocity {values} gives non-finite wheel '
                    f'speeds {wheels}',
                    throttle_duration_sec=1.0,
                )
                return None
        return stamp_ns
