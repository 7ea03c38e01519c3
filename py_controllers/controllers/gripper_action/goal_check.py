"""How a gripper goal ends: reached, stalled or still running. Pure (no rclpy).

Upstream's ``check_for_success`` (gripper_controllers and parallel_gripper_controller), run by
the loop once per cycle while a goal is active:

* reached: ``|position error| < goal_tolerance`` (strictly);
* otherwise a velocity of magnitude above ``stall_velocity_threshold`` counts as movement and
  restarts the stall clock; with no movement for more than ``stall_timeout`` (strictly) since
  the last movement, or since the goal started, the gripper has stalled. What a stall means
  (success with ``allow_stalling``, else abort) is the controller's business.

Times are integer nanoseconds of the controller manager's clock, so the outcome depends on
cycle counts only. Also here: the effort clamp of the effort variant and the goal checks.
"""

from __future__ import annotations

import math

__all__ = [
    'REACHED',
    'RUNNING',
    'STALLED',
    'GoalCheck',
    'clamp_effort',
    'gripper_command_problem',
]

RUNNING, REACHED, STALLED = 0, 1, 2


class GoalCheck:
    """The success and stall test of one goal at a time (loop-side state: the stall clock)."""

    __slots__ = ('last_movement_ns',)

    def __init__(self) -> None:
        self.last_movement_ns = 0

    def start(self, now_ns: int) -> None:
        """A goal starts at ``now_ns``: the stall clock starts there too."""
        self.last_movement_ns = now_ns

    def check(
        self,
        error_position: float,
        velocity: float,
        now_ns: int,
        *,
        goal_tolerance: float,
        stall_velocity_threshold: float,
        stall_timeout_s: float,
    ) -> int:
        """RUNNING, REACHED or STALLED after this cycle's measurement (loop-safe)."""
        if abs(error_position) < goal_tolerance:
            return REACHED
        if abs(velocity) > stall_velocity_threshold:
            self.last_movement_ns = now_ns
            return RUNNING
        if now_ns - self.last_movement_ns > round(stall_timeout_s * 1e9):
            return STALLED
        return RUNNING


def clamp_effort(effort: float, max_effort: float) -> float:
    """``effort`` within ``+-|max_effort|`` (upstream clamps with the magnitude of the goal's
    max_effort, so a negative one acts like its absolute value and 0 allows no effort).
    NaN (the PID had no finite error) stays NaN: min/max would turn it into ``-bound``."""
    bound = abs(max_effort)
    return effort if effort != effort else min(bound, max(-bound, effort))


def gripper_command_problem(position: float, max_effort: float) -> str:
    """Why a GripperCommand cannot be executed ('' when it can).

    Upstream accepts every goal; a non-finite position would be commanded as it is, and a NaN
    max_effort would make the effort clamp meaningless, so both are refused here. An infinite
    max_effort means no limit; a negative one is used by magnitude, as upstream.
    """
    if not math.isfinite(position):
        return f'command.position must be finite, got {position}'
    if math.isnan(max_effort):
        return 'command.max_effort must not be NaN'
    return ''
