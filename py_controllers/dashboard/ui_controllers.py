"""The controllers page (rqt_controller_manager): state, interfaces, chains, update rate;
load, configure, activate, deactivate, clean up, unload; switch with strictness. Each
controller's card links to its tuning page. Every action goes to the manager selected when
it is made (the header's selector rebinds the page)."""

from __future__ import annotations

from urllib.parse import quote

from nicegui import ui

from py_controllers.dashboard import commands
from py_controllers.dashboard.model import ControllerInfo, controller_actions
from py_controllers.dashboard.ui_common import (
    Dashboard,
    Session,
    answer_line,
    live_listing,
    state_color,
)

LONG_LIST = 12
"""Longer interface lists are folded."""
STRICTNESS = {commands.STRICT: 'strict', commands.BEST_EFFORT: 'best effort'}


def build(dash: Dashboard, session: Session) -> None:
    """The page body."""
    form: dict = {'strictness': commands.STRICT, 'asap': False}

    with ui.card().classes('w-full'):
        with ui.row().classes('items-center w-full'):
            load_name = (
                ui.select(
                    [], label='controller to load', with_input=True, new_value_mode='add-unique'
                )
                .classes('w-64')
                .props('data-testid=load-name')
            )

            async def load() -> None:
                name = (load_name.value or '').strip()
                if not name:
                    session.show_answer('load: choose or type a controller name', False)
                    return
                ok = await session.act(
                    f'load {name}',
                    lambda: commands.lifecycle(dash.bridge, dash.manager, 'load', name),
                )
                if ok:
                    load_name.set_value(None)

            ui.button('Load', icon='download', on_click=load).props('data-testid=load')
            ui.separator().props('vertical')
            ui.toggle(STRICTNESS).bind_value(form, 'strictness').props('data-testid=strictness')
            ui.checkbox('activate asap').bind_value(form, 'asap')
        with ui.row().classes('items-center w-full'):
            to_activate = ui.select([], label='activate', multiple=True).classes('w-72')
            to_deactivate = ui.select([], label='deactivate', multiple=True).classes('w-72')

            async def do_switch() -> None:
                ok = await session.act(
                    'switch',
                    lambda: commands.switch(
                        dash.bridge,
                        dash.manager,
                        list(to_activate.value or []),
                        list(to_deactivate.value or []),
                        strictness=int(form['strictness']),
                        activate_asap=bool(form['asap']),
                    ),
                )
                if ok:
                    to_activate.set_value([])
                    to_deactivate.set_value([])

            ui.button('Switch', icon='swap_horiz', on_click=do_switch).props('data-testid=switch')
        answer_line(session)

    async def lifecycle(action: str, name: str) -> None:
        if action in ('activate', 'deactivate'):
            on, off = ([name], []) if action == 'activate' else ([], [name])
            await session.act(
                f'{action} {name}',
                lambda: commands.switch(
                    dash.bridge,
                    dash.manager,
                    on,
                    off,
                    strictness=int(form['strictness']),
                    activate_asap=bool(form['asap']),
                ),
            )
        else:
            await session.act(
                f'{action} {name}',
                lambda: commands.lifecycle(dash.bridge, dash.manager, action, name),
            )

    def card(c: ControllerInfo) -> None:
        with ui.card().classes('w-full q-pa-sm').props(f'data-testid=controller-{c.name}'):
            with ui.row().classes('items-center w-full'):
                ui.label(c.name).classes('text-subtitle1 text-weight-bold')
                ui.badge(c.state, color=state_color(c.state)).props(f'data-testid=state-{c.name}')
                ui.label(c.type).classes('text-caption text-grey-8')
                ui.label(f'{c.update_rate_hz} Hz' if c.update_rate_hz else '').classes(
                    'text-caption'
                )
                if c.is_chainable:
                    ui.badge('chained' if c.is_chained else 'chainable', color='info')
                ui.space()
                ui.link('tune', f'/tuning?controller={quote(c.name)}').classes(
                    'text-caption q-mr-sm'
                ).props(f'data-testid=tune-{c.name}')
                for action in controller_actions(c.state):
                    ui.button(
                        action,
                        on_click=lambda a=action, n=c.name: lifecycle(a, n),
                    ).props(f'dense outline data-testid={action}-{c.name}')
            if c.claimed_interfaces:
                ui.label('claimed: ' + ', '.join(c.claimed_interfaces)).classes('text-caption')
            elif c.required_command_interfaces:
                ui.label('commands: ' + ', '.join(c.required_command_interfaces)).classes(
                    'text-caption text-grey-7'
                )
            reads = c.required_state_interfaces
            if 0 < len(reads) <= LONG_LIST:
                ui.label('reads: ' + ', '.join(reads)).classes('text-caption text-grey-7')
            elif reads:
                with (
                    ui.expansion(f'reads {len(reads)} state interfaces')
                    .classes('text-caption text-grey-7 w-full')
                    .props('dense')
                ):
                    ui.label(', '.join(reads)).classes('text-caption')
            for follower, refs in c.chain_connections:
                ui.label(f'chained to {follower}: {", ".join(refs)}').classes('text-caption')

    redraw = live_listing(dash, lambda s: s.controllers, 'No controller loaded.', card)

    offered: dict[str, list[str]] = {}  # what the manager offered each select last time

    def offer(select: ui.select, key: str, options: list[str]) -> None:
        if offered.get(key) == options:
            return
        offered[key] = options
        if select is load_name:  # a typed name stays, whatever the manager declares
            typed = select.value
            extra = [typed] if typed and typed not in options else []
            select.set_options(options + extra, value=typed)
        else:
            keep = [v for v in select.value or [] if v in options]
            select.set_options(options, value=keep)

    def refresh() -> None:
        s = dash.watch.state
        offer(load_name, 'load', list(s.loadable))
        offer(to_activate, 'activate', [c.name for c in s.controllers if c.state == 'inactive'])
        offer(to_deactivate, 'deactivate', [c.name for c in s.controllers if c.state == 'active'])
        redraw()

    refresh()
    ui.timer(0.5, refresh)
