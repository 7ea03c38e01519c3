"""The loop page: rate, lateness, per-controller update time, live charts.

The figures come from `~/get_statistics` (std_srvs/Trigger answering JSON), which
py_controllers' manager offers and upstream's does not; without it the page says so and
shows what the manager puts on /diagnostics, if anything.
"""

from __future__ import annotations

import time

from nicegui import ui

from py_controllers.dashboard.model import loop_rows
from py_controllers.dashboard.ui_common import Dashboard, Session, fmt, line_chart, set_series

COLUMNS = [
    {'name': 'what', 'label': '', 'field': 'what', 'align': 'left'},
    {'name': 'mean_us', 'label': 'mean (us)', 'field': 'mean_us'},
    {'name': 'p99_us', 'label': 'p99 (us)', 'field': 'p99_us'},
    {'name': 'max_us', 'label': 'max (us)', 'field': 'max_us'},
]


def build(dash: Dashboard, session: Session) -> None:
    """The page body."""
    summary = ui.label().classes('text-subtitle1').props('data-testid=loop-summary')
    note = ui.label().classes('text-body2 text-grey-8')
    with ui.column().classes('w-full') as stats_box:
        with ui.row().classes('w-full no-wrap'):
            rate_chart = line_chart('measured rate', 'Hz').classes('col')
            time_chart = line_chart('lateness and cycle cost (p99)', 'us').classes('col')
        update_chart = line_chart('update() time per controller (mean)', 'us')
        table = (
            ui.table(columns=COLUMNS, rows=[], row_key='what')
            .props('dense flat hide-pagination :rows-per-page-options="[0]" data-testid=loop-table')
            .classes('w-full')
        )
    diagnostics = ui.label().classes('text-body2 whitespace-pre-line')

    def refresh() -> None:
        s = dash.watch.state
        w = dash.watch
        now = time.monotonic()
        stats_box.set_visibility(s.stats is not None)
        if s.stats is not None:
            st = s.stats
            summary.set_text(
                f'{fmt(st.get("measured_rate_hz"), 1)} Hz measured of '
                f'{fmt(st.get("update_rate_hz"), 0)} Hz, {st.get("cycles", 0)} cycles, '
                f'{st.get("overruns", 0)} overruns ({st.get("missed_periods", 0)} missed '
                f'periods), lateness p99 {fmt(st.get("lateness", {}).get("p99_us"), 1)} us'
            )
            note.set_text("from ~/get_statistics, over the manager's rolling window")
            table.rows = loop_rows(st)
            table.update()
            set_series(rate_chart, {'measured rate': w.rate_history.relative_to(now)})
            set_series(
                time_chart,
                {
                    'lateness p99': w.lateness_history.relative_to(now),
                    'cycle p99': w.execution_history.relative_to(now),
                },
            )
            set_series(
                update_chart,
                {n: series.relative_to(now) for n, series in sorted(w.controller_history.items())},
            )
            diagnostics.set_text('')
            return
        if not s.available:
            summary.set_text('no controller manager')
            note.set_text('')
        elif s.stats_supported is False:
            summary.set_text('this manager offers no loop statistics (~/get_statistics)')
            note.set_text('upstream ros2_control has no such service; /diagnostics below')
        else:
            summary.set_text('waiting for the first statistics…')
        msg = dash.watch.diagnostics.msg
        lines = []
        node = dash.manager.rsplit('/', 1)[-1]
        for status in getattr(msg, 'status', []):
            ours = status.name.startswith(f'{node}:') and (
                not status.hardware_id.startswith('/') or status.hardware_id == dash.manager
            )
            if ours:
                lines.append(f'{status.name}: {status.message}')
                lines += [f'    {kv.key}: {kv.value}' for kv in status.values]
        diagnostics.set_text('\n'.join(lines))

    refresh()
    ui.timer(1.0, refresh)
