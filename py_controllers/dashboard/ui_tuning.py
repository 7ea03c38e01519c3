"""The tuning page (`/tuning?controller=<name>`): a controller's parameters from its
generate_parameter_library schema, edited through the controller node's own parameter
service (its answer, or its reason for refusing, is shown), beside live plots of the
signals that matter for its type, at a rate a person can read (downsampled, a window of the
last N seconds, pause, CSV export).
"""

from __future__ import annotations

import re
import time
from typing import Any
from urllib.parse import quote

from nicegui import ui

from py_controllers.dashboard import tuning, tuning_bridge, tuning_schema, tuning_signals
from py_controllers.dashboard.names import controller_node
from py_controllers.dashboard.tuning_schema import ParameterError, ParamRow
from py_controllers.dashboard.ui_common import (
    Dashboard,
    Session,
    answer_line,
    line_chart,
    set_series,
)

WINDOWS_S = (5, 10, 30, 60)


def window_of(query: str | None) -> int:
    """The plot window asked for by the page's `window` query (the default if none is)."""
    return int(query) if query in {str(w) for w in WINDOWS_S} else WINDOWS_S[1]


def tuning_url(controller: str, window_s: int) -> str:
    """The tuning page of `controller` with the plot window `window_s`."""
    return f'/tuning?controller={quote(controller)}&window={window_s}'


MAX_POINTS = 400  # per line: more than a chart a few hundred pixels wide can show
REFRESH_S = 0.25
_FEEDS: dict[int, tuning_bridge.Feeds] = {}


def _feeds(dash: Dashboard) -> tuning_bridge.Feeds:
    """The recorders of this dashboard (kept for its life, shared by its pages)."""
    return _FEEDS.setdefault(id(dash.bridge), tuning_bridge.Feeds(dash.bridge))


def slug(text: str) -> str:
    """`text` usable in a data-testid."""
    return re.sub(r'[^A-Za-z0-9_.]+', '-', text).strip('-')


def build(dash: Dashboard, session: Session) -> None:
    """The page body."""
    query = ui.context.client.request.query_params
    chosen = query.get('controller', '')
    # the window chosen goes into the address: a page reloaded (a busy host can drop its
    # connection) or rebuilt keeps it
    choice = {'window_s': window_of(query.get('window'))}
    names = [c.name for c in dash.watch.state.controllers]
    with ui.row().classes('items-center w-full'):
        picker = (
            ui.select(
                sorted(set(names) | ({chosen} if chosen else set())),
                label='controller',
                value=chosen or None,
                on_change=lambda e: ui.navigate.to(tuning_url(e.value or '', choice['window_s'])),
            )
            .classes('w-72')
            .props('data-testid=tuning-controller')
        )
        heading = ui.label().classes('text-caption').props('data-testid=tuning-type')

    def offer() -> None:  # the selected manager's controllers (and the one asked for)
        current = sorted({c.name for c in dash.watch.state.controllers} | ({chosen} - {''}))
        if list(picker.options) != current:
            picker.set_options(current, value=chosen or None)

    ui.timer(1.0, offer)
    if not chosen:
        heading.set_text('choose a controller')
        return
    views: list[_TuningView] = []

    @ui.refreshable
    def body() -> None:
        views[:] = [_TuningView(dash, session, chosen, dash.manager, heading, choice)]

    body()

    async def refresh() -> None:
        # the header's manager selector rebinds the page: the view of that manager's node
        if views[0].manager != dash.manager:
            body.refresh()
        await views[0].refresh()

    ui.timer(REFRESH_S, refresh)


class _TuningView:
    """The parameters and plots of one controller on one page."""

    def __init__(
        self,
        dash: Dashboard,
        session: Session,
        name: str,
        manager: str,
        heading: Any,
        choice: dict[str, int],
    ) -> None:
        self.dash, self.session, self.name, self.manager, self.heading = (
            dash,
            session,
            name,
            manager,
            heading,
        )
        self.node = controller_node(manager, name)
        self.type = ''
        self.kind: str | None = None
        self.recorders: list[tuning.Recorder] = []
        self.rows: list[ParamRow] = []
        self.values: dict[str, Any] = {}
        self.loading = False
        self.charts: dict[str, Any] = {}
        self.frozen: tuple[float, list[tuning.Sample]] | None = None
        self.choice = choice
        self.window_s = float(choice['window_s'])
        with ui.row().classes('w-full no-wrap items-start'):
            with ui.column().classes('col-5'):
                answer_line(session)
                self.params_box = ui.column().classes('w-full')
            with ui.column().classes('col'):
                with ui.row().classes('items-center'):
                    ui.select(
                        {w: f'last {w} s' for w in WINDOWS_S},
                        value=choice['window_s'],
                        label='window',
                        on_change=self._on_window,
                    ).classes('w-32').props('data-testid=plot-window')
                    self.pause = ui.switch('pause', on_change=self._on_pause).props(
                        'data-testid=plot-pause'
                    )
                    ui.button('export CSV', icon='download', on_click=self.export).props(
                        'outline dense data-testid=plot-export'
                    )
                self.status = ui.label().classes('text-caption').props('data-testid=plot-status')
                self.plots = ui.column().classes('w-full')

    def _on_window(self, event: Any) -> None:
        self.window_s = float(event.value)
        self.choice['window_s'] = int(event.value)
        ui.navigate.history.replace(tuning_url(self.name, int(event.value)))

    # --- parameters -------------------------------------------------------------------
    async def load(self) -> None:
        """Read the schema and the node's values, and draw the parameter list."""
        self.loading = True
        try:
            schemas, problem = tuning_schema.schema_of(self.type)
            self.params_box.clear()
            if not schemas:
                with self.params_box:
                    ui.label(problem).classes('text-negative').props('data-testid=params-problem')
                return
            try:
                self.values = await tuning_bridge.read_parameters(
                    self.dash.bridge, self.node, schemas
                )
            except Exception as exc:  # the node is not there (yet): said, and tried again
                with self.params_box:
                    ui.label(f'parameters of {self.node}: {exc}').classes('text-negative')
                self.type = ''
                return
            self.rows = tuning_schema.param_rows(schemas, self.values)
            with self.params_box:
                for row in self.rows:
                    self._row(row)
        finally:
            self.loading = False

    def _row(self, row: ParamRow) -> None:
        with ui.column().classes('w-full q-py-xs gap-0').props(f'data-testid=param-{row.name}'):
            with ui.row().classes('items-center w-full no-wrap'):
                ui.label(row.name).classes('text-weight-bold text-body2')
                ui.label(row.type_name).classes('text-caption text-grey-7')
                if row.range is not None:
                    ui.label(row.range_text).classes('text-caption text-grey-8').props(
                        f'data-testid=range-{row.name}'
                    )
                if row.read_only:
                    ui.badge('read-only', color='grey').props(f'data-testid=readonly-{row.name}')
            with ui.row().classes('items-center w-full no-wrap'):
                text = tuning_schema.value_text(row.value)
                if row.read_only:
                    ui.label(text or '(not set)').classes('text-body2').props(
                        f'data-testid=value-{row.name}'
                    )
                else:
                    field = (
                        ui.input(value=text)
                        .props(f'dense outlined data-testid=input-{row.name}')
                        .classes('col')
                    )
                    ui.button('set', on_click=lambda r=row, f=field: self.set(r, f.value)).props(
                        f'dense outline data-testid=set-{row.name}'
                    )
            if row.description:
                ui.label(row.description).classes('text-caption text-grey-8')
            if row.rules:
                ui.label(row.rules).classes('text-caption text-grey-6 whitespace-pre-line')

    async def set(self, row: ParamRow, text: str) -> None:
        """Send the typed value to the node; the answer (or refusal) goes to the answer line."""
        try:
            value = tuning_schema.parse_value(row.type, row.name, text)
        except ParameterError as exc:
            self.session.show_answer(f'{row.name}: {exc}', False)
            return

        async def work() -> str:
            return await tuning_bridge.set_parameter(
                self.dash.bridge, self.node, row.name, row.type, value
            )

        await self.session.act(f'set {row.name}', work)
        try:
            schemas, _ = tuning_schema.schema_of(self.type)
            if schemas:
                self.values = await tuning_bridge.read_parameters(
                    self.dash.bridge, self.node, schemas
                )
        except Exception:  # the answer line already says what happened
            return

    # --- plots --------------------------------------------------------------------------
    def _on_pause(self, event: Any) -> None:
        self.frozen = (time.monotonic(), self._samples()) if event.value else None

    def _samples(self) -> list[tuning.Sample]:
        return tuning.merged(*(r.snapshot() for r in self.recorders))

    def shown(self) -> tuple[float, list[tuning.Sample]]:
        """(the time the plots end at, the samples of the window), frozen while paused."""
        now, samples = self.frozen or (time.monotonic(), self._samples())
        return now, tuning.window(samples, now, self.window_s)

    def export(self) -> None:
        """Download the window shown (every sample, not the downsampled lines) as CSV."""
        _, samples = self.shown()
        ui.download.content(
            tuning.csv_text(samples), f'{self.name}_signals.csv', media_type='text/csv'
        )

    def _draw(self) -> None:
        now, samples = self.shown()
        received = sum(r.count for r in self.recorders)
        paused = ' (paused)' if self.frozen else ''
        self.status.set_text(
            f'{received} messages received, {len(samples)} samples in the window{paused}'
        )
        specs = tuning_signals.charts_for(self.kind or '', tuning.names_of(samples), self.values)
        signals = list(dict.fromkeys(name for spec in specs for name in spec.signals))
        lines = tuning.chart_data(samples, signals, now, MAX_POINTS)
        for spec in specs:
            chart = self.charts.get(spec.title)
            if chart is None:
                with self.plots:
                    chart = line_chart(spec.title, spec.unit).props(
                        f'data-testid=chart-{slug(spec.title)}'
                    )
                self.charts[spec.title] = chart
            data = {name: lines[name] for name in spec.signals}
            if spec.around:
                upper, lower = tuning.band(data[spec.around], spec.half_width)
                data[f'+{spec.half_width:g} tolerance'] = upper
                data[f'-{spec.half_width:g} tolerance'] = lower
            set_series(chart, data, dashed={n for n in data if 'tolerance' in n})

    # --- the timer ---------------------------------------------------------------------
    async def refresh(self) -> None:
        """Find the controller's type (the manager watch may not have it yet), load its
        parameters once, and redraw the plots."""
        info = next((c for c in self.dash.watch.state.controllers if c.name == self.name), None)
        if info is None:
            self.heading.set_text(f"no controller '{self.name}' in {self.manager}")
            return
        self.heading.set_text(f'{info.type} ({info.state}), node {self.node}')
        if info.type != self.type and not self.loading:
            self.type = info.type
            self.kind = tuning_signals.kind_of(info.type)
            self.recorders = _feeds(self.dash).recorders(self.kind or '', self.manager, self.name)
            if self.kind is None:
                self.plots.clear()
                self.charts.clear()
                with self.plots:
                    ui.label(f'no live plot for {info.type}').classes('text-grey-7')
            await self.load()
        if self.kind is not None:
            self._draw()
