"""What every page shares: access control, the header, the manager banner, and actions
that never show a traceback.

Access: when the dashboard runs with a token (the default), a page opened with
`?token=<token>` stores a digest of it in the browser's signed session cookie (signed with
a secret made at each start); a page without a valid token or cookie shows only a refusal.
Every action checks the session's digest against the dashboard's token at that moment.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nicegui import app, ui

from py_controllers.dashboard.commands import RefusedError
from py_controllers.dashboard.manager_watch import ManagerWatch
from py_controllers.dashboard.model import session_allowed, token_digest, token_ok
from py_controllers.dashboard.motion import Steering
from py_controllers.dashboard.ros_bridge import CallFailedError, NotAvailableError, RosBridge

LOG = logging.getLogger('py_controllers.dashboard')

PAGES = [
    ('/', 'Controllers'),
    ('/hardware', 'Hardware'),
    ('/loop', 'Loop'),
    ('/joints', 'Joint states'),
    ('/trajectory', 'Trajectories'),
    ('/steering', 'Steering'),
    ('/io', 'GPIO & sensors'),
    ('/tuning', 'Tuning'),
    ('/scene', '3D'),
]
COOKIE_KEY = 'py_controllers_dashboard'


@dataclass
class Dashboard:
    """Everything the pages share: one per process."""

    bridge: RosBridge
    watch: ManagerWatch
    steering: Steering
    token: str | None

    @property
    def manager(self) -> str:
        """Full name of the controller manager node."""
        return self.watch.manager


class Session:
    """One open page: its client, whether it may act, and where answers are shown."""

    def __init__(self, dash: Dashboard, token_digest: str | None) -> None:
        self.dash = dash
        self.client = ui.context.client
        self.id = str(self.client.id)
        self._token_digest = token_digest
        self.answer: Any = None

    def allowed(self) -> bool:
        """Check the session's token against the dashboard's token now."""
        return session_allowed(self.dash.token, self._token_digest)

    def show_answer(self, text: str, ok: bool) -> None:
        """Put a service answer (or error) in the page's answer line."""
        if self.answer is not None:
            self.answer.set_text(text)
            self.answer.classes(
                remove='text-positive text-negative text-weight-bold',
                add='text-positive' if ok else 'text-negative text-weight-bold',
            )

    async def act(self, what: str, work: Callable[[], Awaitable[str]]) -> bool:
        """Run an action: refused without the token; its answer or error shown, never
        raised into the web page. True when it succeeded."""
        if not self.allowed():
            ui.notify('refused: this page has no valid token', type='negative')
            return False
        try:
            text = await work()
        except RefusedError as exc:
            self.show_answer(str(exc), False)
            return False
        except (NotAvailableError, CallFailedError) as exc:
            self.show_answer(f'{what}: {exc}', False)
            return False
        except Exception as exc:
            LOG.exception('dashboard: %s failed', what)
            self.show_answer(f'{what} failed: {type(exc).__name__}: {exc}', False)
            return False
        finally:
            self.dash.watch.poke()
        self.show_answer(text, True)
        return True


def open_page(dash: Dashboard, path: str, token: str | None) -> Session | None:
    """Build the frame of page `path`; None (and a refusal page) without a valid token."""
    title = dict(PAGES).get(path, 'py_controllers')
    ui.page_title(f'{title} - py_controllers dashboard')
    digest = _authorize(dash, token)
    if dash.token is not None and digest is None:
        ui.status_code(403)
        with ui.column().classes('w-full items-center q-pa-xl'):
            ui.icon('lock', size='xl', color='negative')
            ui.label('Access refused').classes('text-h5').props('data-testid=refused')
            ui.label(
                'This dashboard needs its token: open the address printed when it started '
                '(…/?token=…).'
            )
        return None
    session = Session(dash, digest)
    with ui.header().classes('items-center q-py-xs bg-blue-grey-9'):
        ui.label('py_controllers').classes('text-subtitle1 text-weight-bold q-mr-md')
        for target, label in PAGES:
            link = ui.link(label, target).classes('text-white q-mx-xs')
            link.props(f'data-testid=nav-{target.strip("/") or "controllers"}')
            if target == path:
                link.classes('text-weight-bold underline')
        ui.space()
        manager_selector(dash, session)
    status = ui.label().classes('text-body2').props('data-testid=manager-status')

    def show_status() -> None:
        s = dash.watch.state
        if s.available:
            status.set_text(
                f'controller manager {dash.manager}: connected, {len(s.controllers)} '
                f'controllers, {len(s.hardware)} hardware components'
            )
            status.classes(replace='text-body2 text-positive')
        else:
            status.set_text(
                f'controller manager not available: {s.reason}. Waiting for it to come back…'
            )
            status.classes(replace='text-body2 text-negative text-weight-bold')

    show_status()
    ui.timer(0.5, show_status)
    ui.label(title).classes('text-h6')
    return session


def manager_selector(dash: Dashboard, session: Session) -> None:
    """The managers found on the domain; choosing one rebinds every page to it."""
    watch = dash.watch

    def options() -> list[str]:
        return sorted({*watch.managers, watch.manager})

    select = (
        ui.select(options(), value=watch.manager, label='controller manager')
        .props('dense dark options-dense data-testid=manager-select')
        .classes('w-64')
    )

    def chosen(e: Any) -> None:
        if e.value == watch.manager or e.value is None:
            return
        if e.value not in options() or not session.allowed():
            select.set_value(watch.manager)
            return
        watch.select(str(e.value))

    def follow() -> None:
        if list(select.options) != options():
            select.set_options(options(), value=watch.manager)
        elif select.value != watch.manager:
            select.set_value(watch.manager)

    select.on_value_change(chosen)
    ui.timer(1.0, follow)


def _authorize(dash: Dashboard, token: str | None) -> str | None:
    """Digest of a valid token from the query (then remembered in the session cookie) or
    from the cookie; None when there is none."""
    if dash.token is None:
        return None
    expected = token_digest(dash.token)
    if token is not None:
        if not token_ok(dash.token, token):
            return None
        app.storage.browser[COOKIE_KEY] = expected
        return expected
    remembered = app.storage.browser.get(COOKIE_KEY)
    return expected if isinstance(remembered, str) and token_ok(expected, remembered) else None


def answer_line(session: Session) -> Any:
    """The label where a page shows the last service answer."""
    session.answer = ui.label('').classes('text-body2').props('data-testid=answer')
    return session.answer


def state_color(state: str) -> str:
    """Badge colour of a lifecycle state."""
    return {
        'active': 'positive',
        'inactive': 'warning',
        'unconfigured': 'grey',
        'finalized': 'dark',
    }.get(state, 'negative')


def fmt(value: Any, digits: int = 3) -> str:
    """A number for a label ('-' for none)."""
    if value is None:
        return '-'
    try:
        text = f'{float(value):.{digits}f}'
    except (TypeError, ValueError):
        return str(value)
    return text[1:] if text.startswith('-') and float(text) == 0.0 else text  # no '-0.000'


def line_chart(title: str, y_name: str, *, height: str = '240px') -> Any:
    """An empty live line chart (x: seconds before now)."""
    return (
        ui.echart(
            {
                'title': {'text': title, 'top': 0, 'left': 0, 'textStyle': {'fontSize': 13}},
                'animation': False,
                'tooltip': {'trigger': 'axis'},
                'legend': {'top': 0, 'right': 10, 'width': '65%', 'type': 'scroll'},
                'grid': {'top': 50, 'left': 60, 'right': 30, 'bottom': 30},
                'xAxis': {'type': 'value', 'name': 's', 'max': 0},
                'yAxis': {'type': 'value', 'name': y_name, 'scale': True},
                'series': [],
            }
        )
        .classes('w-full')
        .style(f'height: {height}')
    )


def set_series(
    chart: Any, series: Mapping[str, Sequence[Sequence[float]]], dashed: Container[str] = ()
) -> None:
    """Replace the chart's lines with `series` (name -> [[x, y], ...]); those named in `dashed`
    are drawn dashed. The points go in as tuples: NiceGUI wraps every list put into an
    element's options in an observable copy, and for the tuning page's 60 s window (a dozen
    lines of 400 points) those wrappers were nine tenths of a redraw's time."""
    chart.options['series'] = [
        {
            'name': name,
            'type': 'line',
            'showSymbol': False,
            'data': tuple(map(tuple, data)),
            **({'lineStyle': {'type': 'dashed'}} if name in dashed else {}),
        }
        for name, data in series.items()
    ]
    chart.update()


def live_listing(
    dash: Dashboard, items: Callable[[Any], list[Any]], empty: str, card: Callable[[Any], None]
) -> Callable[[], None]:
    """Cards of `items(manager state)`, redrawn when the watched manager state changes;
    returns the check to call from a timer."""

    @ui.refreshable
    def listing() -> None:
        s = dash.watch.state
        if not s.available:
            ui.label('No controller manager: nothing to show.').classes('text-grey-7')
            return
        shown_items = items(s)
        if not shown_items:
            ui.label(empty).classes('text-grey-7')
        for item in shown_items:
            card(item)

    listing()
    shown = [dash.watch.state.version]

    def refresh() -> None:
        if dash.watch.state.version != shown[0]:
            shown[0] = dash.watch.state.version
            listing.refresh()

    return refresh
