"""The hardware page: components, their lifecycle state and interfaces; set the state
through `set_hardware_component_state`."""

from __future__ import annotations

from nicegui import ui

from py_controllers.dashboard import commands
from py_controllers.dashboard.model import HardwareInfo, InterfaceInfo, hardware_targets
from py_controllers.dashboard.ui_common import (
    Dashboard,
    Session,
    answer_line,
    live_listing,
    state_color,
)

TARGET_LABELS = {
    'active': 'activate',
    'inactive': 'to inactive',
    'unconfigured': 'clean up',
    'finalized': 'shut down',
}


def build(dash: Dashboard, session: Session) -> None:
    """The page body."""
    answer_line(session)

    async def set_state(name: str, target: str) -> None:
        await session.act(
            f'{name} -> {target}',
            lambda: commands.set_hardware_state(dash.bridge, dash.manager, name, target),
        )

    def interfaces(kind: str, items: tuple[InterfaceInfo, ...]) -> None:
        if not items:
            return
        rows = [
            {
                'name': i.name,
                'available': 'yes' if i.is_available else 'no',
                'claimed': 'yes' if i.is_claimed else '',
            }
            for i in items
        ]
        columns = [
            {'name': 'name', 'label': f'{kind} interface', 'field': 'name', 'align': 'left'},
            {'name': 'available', 'label': 'available', 'field': 'available'},
            {'name': 'claimed', 'label': 'claimed', 'field': 'claimed'},
        ]
        ui.table(columns=columns, rows=rows, row_key='name').props(
            'dense flat hide-pagination :rows-per-page-options="[0]"'
        ).classes('w-full')

    def card(h: HardwareInfo) -> None:
        with ui.card().classes('w-full q-pa-sm').props(f'data-testid=hardware-{h.name}'):
            with ui.row().classes('items-center w-full'):
                ui.label(h.name).classes('text-subtitle1 text-weight-bold')
                ui.badge(h.state, color=state_color(h.state)).props(
                    f'data-testid=hw-state-{h.name}'
                )
                ui.label(f'{h.type}, {h.plugin}').classes('text-caption text-grey-8')
                ui.space()
                for target in hardware_targets(h.state):
                    ui.button(
                        TARGET_LABELS.get(target, target),
                        on_click=lambda t=target, n=h.name: set_state(n, t),
                    ).props(f'dense outline data-testid=hw-{target}-{h.name}')
            with ui.row().classes('w-full no-wrap items-start'):
                with ui.column().classes('col'):
                    interfaces('command', h.command_interfaces)
                with ui.column().classes('col'):
                    interfaces('state', h.state_interfaces)

    refresh = live_listing(
        dash, lambda s: s.hardware, 'The manager has no hardware component.', card
    )

    ui.timer(0.5, refresh)
