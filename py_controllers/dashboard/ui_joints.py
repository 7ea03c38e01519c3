"""The joint states page: live position, velocity and effort of the chosen joints, from
the manager's `joint_states` (`/<ns>/joint_states`)."""

from __future__ import annotations

import math
import time
from typing import Any

from nicegui import ui
from sensor_msgs.msg import JointState

from py_controllers.dashboard.manager_watch import ManagerWatch
from py_controllers.dashboard.ros_bridge import Latest
from py_controllers.dashboard.ui_common import Dashboard, Session, fmt, line_chart, set_series

WINDOW_S = 20.0
SAMPLE_S = 0.05


def joint_states(watch: ManagerWatch) -> Latest:
    """The watched manager's joint_states with 20 s of history at 20 Hz (shared by every
    page)."""
    return watch.bridge.watch(
        JointState,
        watch.in_namespace('joint_states'),
        keep=int(WINDOW_S / SAMPLE_S),
        min_interval_s=SAMPLE_S,
    )


def latest_positions(states: Latest) -> dict[str, float]:
    """Joint name -> position of the newest /joint_states message."""
    msg = states.msg
    if msg is None:
        return {}
    return dict(zip(msg.name, msg.position))


def _series(history: list[tuple[float, Any]], joints: list[str], field: str, now: float) -> dict:
    out: dict[str, list[list[float]]] = {j: [] for j in joints}
    for t, msg in history:
        values = getattr(msg, field)
        for name, value in zip(msg.name, values):
            if name in out and math.isfinite(value):
                out[name].append([round(t - now, 3), value])
    return out


def build(dash: Dashboard, session: Session) -> None:
    """The page body."""
    states = joint_states(dash.watch)
    chosen: dict[str, list[str]] = {'joints': []}
    with ui.row().classes('items-center w-full'):
        select = (
            ui.select([], label='joints', multiple=True)
            .bind_value(chosen, 'joints')
            .classes('w-96')
            .props('use-chips data-testid=joint-select')
        )
        info = ui.label().classes('text-caption')
    table = (
        ui.table(
            columns=[
                {'name': 'joint', 'label': 'joint', 'field': 'joint', 'align': 'left'},
                {'name': 'position', 'label': 'position', 'field': 'position'},
                {'name': 'velocity', 'label': 'velocity', 'field': 'velocity'},
                {'name': 'effort', 'label': 'effort', 'field': 'effort'},
            ],
            rows=[],
            row_key='joint',
        )
        .props('dense flat hide-pagination :rows-per-page-options="[0]" data-testid=joint-table')
        .classes('w-full')
    )
    charts = {
        f: line_chart(f, unit)
        for f, unit in (('position', 'rad | m'), ('velocity', 'rad/s | m/s'), ('effort', 'N·m | N'))
    }

    def refresh() -> None:
        msg = states.msg
        if msg is None:
            info.set_text('no /joint_states yet (is a joint_state_broadcaster active?)')
            return
        names = list(msg.name)
        if list(select.options) != names:
            select.set_options(names, value=[j for j in chosen['joints'] if j in names])
            if not chosen['joints']:
                select.set_value(names[: min(6, len(names))])
        info.set_text(f'{states.count} messages received')
        joints = [j for j in chosen['joints'] if j in names]

        def value(seq: Any, i: int) -> str:
            return fmt(seq[i]) if i < len(seq) else '-'

        table.rows = [
            {
                'joint': n,
                'position': value(msg.position, i),
                'velocity': value(msg.velocity, i),
                'effort': value(msg.effort, i),
            }
            for i, n in enumerate(names)
            if n in joints
        ]
        table.update()
        now = time.monotonic()
        history = list(states.history)
        for field, chart in charts.items():
            set_series(chart, _series(history, joints, field, now))

    refresh()
    ui.timer(0.25, refresh)
