"""Which signals matter for which controller type, read out of its messages, and how they
are grouped into charts. Pure: the messages are read by field name only.

* pid_controller: per dof, reference and state (feedback) in one chart, error and output
  in another, from ~/controller_state (control_msgs/MultiDOFStateStamped).
* joint_trajectory_controller: per joint, desired vs actual position from ~/controller_state
  (control_msgs/JointTrajectoryControllerState), with the path tolerance
  `constraints.<joint>.trajectory` drawn around the desired position when it is set.
* diff_drive_controller: commanded (~/cmd_vel) vs measured (~/odom twist) linear and
  angular velocity.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PID = 'pid'
JTC = 'jtc'
DIFF_DRIVE = 'diff_drive'

KINDS = {
    'pid_controller/PidController': PID,
    'joint_trajectory_controller/JointTrajectoryController': JTC,
    'diff_drive_controller/DiffDriveController': DIFF_DRIVE,
}
"""Controller types with live plots, and their kind."""

PID_FIELDS = (('reference', 'reference'), ('state', 'feedback'), ('error', 'error'))
PID_OUTPUT = 'output'


@dataclass(frozen=True)
class ChartSpec:
    """One chart: its title, y unit, the signals drawn, and an optional tolerance band
    (`half_width` around the signal `around`)."""

    title: str
    unit: str
    signals: tuple[str, ...]
    around: str = ''
    half_width: float = 0.0


def kind_of(controller_type: str) -> str | None:
    """PID, JTC, DIFF_DRIVE, or None when the type has no live plot."""
    return KINDS.get(controller_type)


def pid_values(msg: Any) -> dict[str, float]:
    """`<dof> reference|state|error|output` of a MultiDOFStateStamped."""
    out: dict[str, float] = {}
    for dof in msg.dof_states:
        for label, attr in PID_FIELDS:
            out[f'{dof.name} {label}'] = float(getattr(dof, attr))
        out[f'{dof.name} {PID_OUTPUT}'] = float(dof.output)
    return out


def jtc_values(msg: Any) -> dict[str, float]:
    """`<joint> desired|actual` positions of a JointTrajectoryControllerState (joints the
    message has no position for are left out)."""
    out: dict[str, float] = {}
    for i, joint in enumerate(msg.joint_names):
        for label, point in (('desired', msg.reference), ('actual', msg.feedback)):
            if i < len(point.positions):
                out[f'{joint} {label}'] = float(point.positions[i])
    return out


def commanded_values(msg: Any) -> dict[str, float]:
    """A TwistStamped on ~/cmd_vel as the commanded linear x and angular z."""
    return {
        'commanded linear': float(msg.twist.linear.x),
        'commanded angular': float(msg.twist.angular.z),
    }


def measured_values(msg: Any) -> dict[str, float]:
    """An Odometry on ~/odom as the measured linear x and angular z."""
    twist = msg.twist.twist
    return {'measured linear': float(twist.linear.x), 'measured angular': float(twist.angular.z)}


def _prefixes(names: Sequence[str], suffix: str) -> list[str]:
    return [n[: -len(suffix)] for n in names if n.endswith(suffix)]


def charts_for(
    kind: str, names: Sequence[str], parameters: Mapping[str, Any] | None = None
) -> list[ChartSpec]:
    """The charts of `kind` for the signal `names` seen so far; `parameters` (dotted name ->
    value) gives the JTC's tolerances."""
    parameters = parameters or {}
    if kind == PID:
        charts = []
        for dof in _prefixes(names, f' {PID_OUTPUT}'):
            charts.append(
                ChartSpec(f'{dof}: reference and state', '', (f'{dof} reference', f'{dof} state'))
            )
            charts.append(
                ChartSpec(f'{dof}: error and output', '', (f'{dof} error', f'{dof} {PID_OUTPUT}'))
            )
        return charts
    if kind == JTC:
        charts = []
        for joint in _prefixes(names, ' desired'):
            tolerance = parameters.get(f'constraints.{joint}.trajectory') or 0.0
            charts.append(
                ChartSpec(
                    f'{joint}: desired vs actual position',
                    'rad | m',
                    (f'{joint} desired', f'{joint} actual'),
                    around=f'{joint} desired' if tolerance > 0.0 else '',
                    half_width=float(tolerance),
                )
            )
        return charts
    if kind == DIFF_DRIVE:
        return [
            ChartSpec('linear velocity', 'm/s', ('commanded linear', 'measured linear')),
            ChartSpec('angular velocity', 'rad/s', ('commanded angular', 'measured angular')),
        ]
    return []
