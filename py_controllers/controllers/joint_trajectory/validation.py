"""Checks and conversions for incoming joint trajectories (topic messages and action goals).

Pure (numpy and the trajectory math only, no rclpy): the controller turns a
``trajectory_msgs/JointTrajectory`` into plain :class:`PointData` and calls
:func:`validate_trajectory`, which returns '' for an acceptable trajectory or the reason it is
rejected (the controller logs it). :func:`to_controller_order` then maps the points into the
controller's joint order, and :func:`fill_omitted_joints` completes a partial trajectory.

The checks follow upstream ``JointTrajectoryController::validate_trajectory_msg`` (rolling) in
the same order and with the same messages, plus four checks upstream lacks: duplicate joint
names, non-finite values, values beyond :data:`MAX_TRAJECTORY_VALUE` and (for the topic
only) an empty trajectory meaning "stop and hold".

Why a bound, and why 1e150: a finite trajectory can still sample inf or NaN, because the
spline works with differences, powers of the segment time and products (a point at 1e308
reached from -1e308 gives ``dp = inf``; a velocity of 1e308 times a 2 s segment overflows).
Every position, velocity, acceleration and effort of every point must be within +-1e150
(as the measured state a trajectory starts from always is, on any real joint). Then nothing
overflows: segment times are whole nanoseconds on the loop's time axis, so a segment lasts
0 (no spline) or between 0.5 ns and ~1e10 s; the quintic's highest coefficient is at most
about ``24e150 / (2 * (5e-10)**5) ~ 4e197``, samples and their first two derivatives stay
below ~1e190, and positions integrated from velocities or accelerations over ~1e10 s stay
below ~1e172, all far from the 1.8e308 limit (the extreme cases in
test/unit/test_jtc_overflow_math.py peak at 5e169). No sane trajectory comes near 1e150 (in rad,
m, rad/s or N m). Upstream has no such check; it has no position-limit check either, and
neither has this controller: the manager's ``enforce_command_limits`` clamps positions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from py_controllers.controllers.joint_trajectory.points import (
    InterpolationMethod,
    SampleResult,
    TrajectoryPoint,
)
from py_controllers.controllers.joint_trajectory.spline_fill import fill_cubic_spline_velocities
from py_controllers.controllers.joint_trajectory.trajectory import Trajectory

__all__ = [
    'CUSTOM_VALIDATORS',
    'MAX_TRAJECTORY_VALUE',
    'PointData',
    'TrajectoryRules',
    'command_interface_combination_error',
    'fill_omitted_joints',
    'interface_requirements_error',
    'state_interface_combination_error',
    'to_controller_order',
    'upsample_positions',
    'validate_trajectory',
]

# Upstream compares the final velocity with the float (not double) epsilon.
_FLOAT_EPS = float(np.finfo(np.float32).eps)
_NS = 1_000_000_000

#: Largest magnitude a trajectory value may have: the spline never overflows below it.
MAX_TRAJECTORY_VALUE = 1e150


class PointData(NamedTuple):
    """One ``JointTrajectoryPoint`` as plain data (empty sequences for absent fields)."""

    time_from_start_ns: int
    positions: Sequence[float] = ()
    velocities: Sequence[float] = ()
    accelerations: Sequence[float] = ()
    effort: Sequence[float] = ()


@dataclass(frozen=True)
class TrajectoryRules:
    """What a controller accepts: its joints and the parameters that relax the checks."""

    joints: tuple[str, ...]
    allow_partial_joints_goal: bool = False
    allow_nonzero_velocity_at_trajectory_end: bool = False
    allow_integration_in_goal_trajectories: bool = False
    has_effort_command_interface: bool = False


def _seconds(ns: int) -> float:
    return ns / _NS


def _field_size_error(joint_count: int, values: Sequence[float], field: str, index: int) -> str:
    if len(values) == joint_count:
        return ''
    return (
        f'Mismatch between joint_names size ({joint_count}) and {field} ({len(values)}) '
        f'at point #{index}.'
    )


def _value_error(point: PointData, joint_names: Sequence[str], index: int) -> str:
    for field in ('positions', 'velocities', 'accelerations', 'effort'):
        values = getattr(point, field)
        for j, value in enumerate(values):
            if -MAX_TRAJECTORY_VALUE <= value <= MAX_TRAJECTORY_VALUE:
                continue
            joint = joint_names[j] if j < len(joint_names) else f'#{j}'
            if not math.isfinite(value):
                return f'Non-finite value {value} in {field} of joint {joint} at point #{index}.'
            return (
                f'Value {value} in {field} of joint {joint} at point #{index} is beyond '
                f'+-{MAX_TRAJECTORY_VALUE:g}: the trajectory would overflow.'
            )
    return ''


def validate_trajectory(
    joint_names: Sequence[str],
    points: Sequence[PointData],
    rules: TrajectoryRules,
    *,
    stamp_ns: int,
    now_ns: int,
    empty_means_stop: bool = False,
) -> str:
    """The reason to reject this trajectory, or '' if the controller may execute it.

    ``stamp_ns`` is ``header.stamp`` (0: start when first sampled), ``now_ns`` the controller
    node's current time. With ``empty_means_stop`` (the topic) a message without points is valid:
    the caller stops and holds; an action goal without points is rejected.
    """
    if not points and empty_means_stop:
        return ''
    if not rules.allow_partial_joints_goal and len(joint_names) != len(rules.joints):
        return "Joints on incoming trajectory don't match the controller joints."
    if not joint_names:
        return 'Empty joint names on incoming trajectory.'
    if not points:
        return 'Empty trajectory received.'
    known = set(rules.joints)
    for name in joint_names:
        if name not in known:
            return f"Incoming joint {name} doesn't match the controller's joints."
    seen: set[str] = set()
    for name in joint_names:
        if name in seen:
            return f'Incoming trajectory names joint {name} more than once.'
        seen.add(name)

    last = points[-1]
    if not rules.allow_nonzero_velocity_at_trajectory_end:
        for j, velocity in enumerate(last.velocities):
            if abs(velocity) > _FLOAT_EPS:
                joint = joint_names[j] if j < len(joint_names) else f'#{j}'
                return (
                    f'Velocity of last trajectory point of joint {joint} is not zero: '
                    f'{velocity:.15f}'
                )

    if stamp_ns != 0:
        end_ns = stamp_ns + last.time_from_start_ns
        if end_ns < now_ns:
            return (
                f'Received trajectory with non-zero start time ({_seconds(stamp_ns):f}) that '
                f'ends in the past ({_seconds(end_ns):f})'
            )

    joint_count = len(joint_names)
    previous_ns = 0
    for i, point in enumerate(points):
        if point.time_from_start_ns < 0:
            # upstream lets a negative first time through, and the robot jumps to that
            # point at once; no point lies before the start of its trajectory
            return (
                f'Point {i} has a negative time_from_start '
                f'({_seconds(point.time_from_start_ns):f} s)'
            )
        if i > 0 and point.time_from_start_ns <= previous_ns:
            return (
                f'Time between points {i - 1} and {i} is not strictly increasing, it is '
                f'{_seconds(previous_ns):f} and {_seconds(point.time_from_start_ns):f} '
                'respectively'
            )
        previous_ns = point.time_from_start_ns

        if rules.allow_integration_in_goal_trajectories:
            if not (point.positions or point.velocities or point.accelerations):
                return 'The given trajectory has no position, velocity, or acceleration points.'
            for field in ('positions', 'velocities', 'accelerations'):
                values = getattr(point, field)
                if values:
                    error = _field_size_error(joint_count, values, field, i)
                    if error:
                        return error
        else:
            error = _field_size_error(joint_count, point.positions, 'positions', i)
            for field in ('velocities', 'accelerations'):
                values = getattr(point, field)
                if not error and values:
                    error = _field_size_error(joint_count, values, field, i)
            if error:
                return error
        if point.effort:
            if not rules.has_effort_command_interface:
                return (
                    'Trajectories with effort fields are only supported for controllers using '
                    "the 'effort' command interface."
                )
            error = _field_size_error(joint_count, point.effort, 'effort', i)
            if error:
                return error
        error = _value_error(point, joint_names, i)
        if error:
            return error
    return ''


def upsample_positions(points: list[PointData], policy_frequency_hz: float) -> list[PointData]:
    """Positions-only points with knot velocities of a C2 cubic spline (``positions_upsampling``).

    When every ``time_from_start`` is zero and ``policy_frequency_hz`` > 0 the points are timed
    ``(i + 1) / policy_frequency_hz``. Anything else (velocities or accelerations present, a
    point without positions, times that do not increase) is returned unchanged.
    """
    if not points or any(p.velocities or p.accelerations or not p.positions for p in points):
        return points
    if policy_frequency_hz > 0.0 and all(p.time_from_start_ns == 0 for p in points):
        step_ns = _NS / policy_frequency_hz
        points = [
            p._replace(time_from_start_ns=round((i + 1) * step_ns)) for i, p in enumerate(points)
        ]
    widths = {len(p.positions) for p in points}
    if len(widths) != 1:
        return points
    times = [_seconds(p.time_from_start_ns) for p in points]
    velocities = fill_cubic_spline_velocities(times, np.array([p.positions for p in points]))
    if velocities is None:
        return points
    return [p._replace(velocities=tuple(v.tolist())) for p, v in zip(points, velocities)]


def _ordered(
    values: Sequence[float], columns: np.ndarray, n_joints: int, fill: float
) -> np.ndarray:
    out = np.full(n_joints, fill)
    out[columns] = np.asarray(values, dtype=float)
    return out


def to_controller_order(
    joint_names: Sequence[str], points: Sequence[PointData], joints: Sequence[str]
) -> tuple[list[TrajectoryPoint], np.ndarray]:
    """Points in controller joint order and the mask of joints the message commands.

    Expects a validated trajectory. Omitted joints get NaN positions and zero velocities,
    accelerations and effort (in the fields a point has); :func:`fill_omitted_joints` fills them.
    """
    index = {name: i for i, name in enumerate(joints)}
    columns = np.array([index[name] for name in joint_names], dtype=int)
    n = len(joints)
    commanded = np.zeros(n, dtype=bool)
    commanded[columns] = True
    converted = []
    for point in points:
        converted.append(
            TrajectoryPoint(
                _seconds(point.time_from_start_ns),
                _ordered(point.positions, columns, n, math.nan) if point.positions else None,
                _ordered(point.velocities, columns, n, 0.0) if point.velocities else None,
                _ordered(point.accelerations, columns, n, 0.0) if point.accelerations else None,
                _ordered(point.effort, columns, n, 0.0) if point.effort else None,
            )
        )
    return converted, commanded


def fill_omitted_joints(
    points: list[TrajectoryPoint],
    commanded: np.ndarray,
    hold_positions: np.ndarray,
    *,
    previous: Trajectory | None = None,
    start_time_s: float = 0.0,
    interpolation: InterpolationMethod | str = InterpolationMethod.SPLINES,
) -> list[TrajectoryPoint]:
    """Complete a partial trajectory (in controller order) for the joints it omits.

    Without ``previous`` every omitted joint holds ``hold_positions`` with zero velocity and
    acceleration (upstream's legacy behaviour). With ``previous`` (the trajectory being executed,
    already sampled) the omitted joints keep following it: each new point takes its state at
    ``start_time_s + time_from_start`` (``start_time_s`` is where the new trajectory will start on
    the controller's time axis), and when ``previous`` ends later, its remaining course is
    appended with the commanded joints resting at their final positions. ``previous`` is only
    sampled without side effects. Returns new points; the inputs are not modified.
    """
    omitted = ~np.asarray(commanded, dtype=bool)
    if not omitted.any():
        return points
    n = omitted.shape[0]
    # the trajectory to follow: sampled already (its start time fixed), for these joints
    source = (
        previous
        if previous is not None and previous.sampled_already and previous.n_joints == n
        else None
    )
    sample = SampleResult(n)
    filled: list[TrajectoryPoint] = []
    for point in points:
        state = None
        if source is not None:
            state = source.sample(
                start_time_s + point.time_from_start_s, interpolation, advance=False, out=sample
            )
        new = point.copy()
        if new.positions is not None:
            new.positions[omitted] = (state.positions if state else hold_positions)[omitted]
        if new.velocities is not None:
            new.velocities[omitted] = state.velocities[omitted] if state else 0.0
        if new.accelerations is not None:
            new.accelerations[omitted] = state.accelerations[omitted] if state else 0.0
        filled.append(new)

    rest_positions = filled[-1].positions
    if source is None or rest_positions is None:
        return filled
    previous_start_s, previous_end_s = source.start_time_s, source.end_time_s
    new_end_s = start_time_s + filled[-1].time_from_start_s
    if previous_start_s is None or previous_end_s is None or previous_end_s <= new_end_s:
        return filled
    # The old trajectory goes on after the new one ends: append its knots (and its end).
    knot_times = [previous_start_s + p.time_from_start_s for p in source.points]
    for t_s in [t for t in knot_times if t > new_end_s]:
        state = source.sample(t_s, interpolation, advance=False, out=sample)
        if state is None:
            continue
        positions = np.where(omitted, state.positions, rest_positions)
        velocities = np.where(omitted, state.velocities, 0.0)
        accelerations = np.where(omitted, state.accelerations, 0.0)
        filled.append(
            TrajectoryPoint(t_s - start_time_s, positions, velocities, accelerations, None)
        )
    return filled


# -- parameter combinations (configure time) -------------------------------------------------


def command_interface_combination_error(interfaces: Sequence[str]) -> str:
    """Why ``command_interfaces`` is not a legal combination, or '' (upstream's validator)."""
    names = set(interfaces)
    if 'velocity' in names and len(interfaces) > 1 and 'position' not in names:
        return (
            "'velocity' command interface can be used either alone or 'position' "
            'command interface has to be present'
        )
    if 'acceleration' in names and not ({'velocity', 'position'} & names):
        return (
            "'acceleration' command interface can only be used if 'velocity' and "
            "'position' command interfaces are present"
        )
    if 'effort' in names and not (
        len(interfaces) == 1 or (len(interfaces) == 2 and 'position' in names)
    ):
        return "'effort' command interface has to be used alone or with a 'position' interface"
    return ''


def state_interface_combination_error(interfaces: Sequence[str]) -> str:
    """Why ``state_interfaces`` is not a legal combination, or '' (upstream's validator)."""
    names = set(interfaces)
    if 'velocity' in names and 'position' not in names:
        return "'velocity' state interface cannot be used if 'position' interface is missing."
    if 'acceleration' in names and not {'position', 'velocity'} <= names:
        return (
            "'acceleration' state interface cannot be used if 'position' and 'velocity' "
            'interfaces are not present.'
        )
    return ''


def interface_requirements_error(
    command_interfaces: Sequence[str], state_interfaces: Sequence[str]
) -> str:
    """The cross-checks upstream makes at configure between command and state interfaces."""
    commands = set(command_interfaces)
    states = set(state_interfaces)
    has_pos_vel_states = {'position', 'velocity'} <= states
    if commands == {'velocity'} and not has_pos_vel_states:
        return (
            "'velocity' command interface can only be used alone if 'velocity' and "
            "'position' state interfaces are present"
        )
    if (
        'effort' in commands
        and (len(commands) == 1 or commands == {'position', 'effort'})
        and not has_pos_vel_states
    ):
        return (
            "'effort' command interface can only be used alone or with 'position' command "
            "interface if 'velocity' and 'position' state interfaces are present"
        )
    return ''


def _combination_validator(check: Callable[[Sequence[str]], str]) -> Callable[[Any], str]:
    def validate(param: Any) -> str:
        return check(list(param.value))

    return validate


# The parameter schema's custom validators (``ControllerParameters(custom_validators=...)``).
CUSTOM_VALIDATORS = {
    'joint_trajectory_controller::command_interface_type_combinations': _combination_validator(
        command_interface_combination_error
    ),
    'joint_trajectory_controller::state_interface_type_combinations': _combination_validator(
        state_interface_combination_error
    ),
}
