"""GPIO outputs and sensor readings: gpio_controllers/GpioCommandController (`~/commands`
and `~/gpio_states`, control_msgs/DynamicInterfaceGroupValues), IMU broadcasters
(`~/imu`) and force-torque broadcasters (`~/wrench`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from control_msgs.msg import DynamicInterfaceGroupValues, InterfaceValue
from geometry_msgs.msg import WrenchStamped
from nicegui import ui
from sensor_msgs.msg import Imu

from py_controllers.dashboard.model import (
    GPIO_TYPE,
    IMU_TYPE,
    WRENCH_TYPE,
    ControllerInfo,
    quaternion_to_rpy,
)
from py_controllers.dashboard.ui_common import Dashboard, Session, answer_line, fmt, state_color


def _vec(v: Any) -> str:
    return f'x {fmt(v.x)}  y {fmt(v.y)}  z {fmt(v.z)}'


def gpio_values(msg: Any) -> dict[str, float]:
    """`group/interface` -> value of a DynamicInterfaceGroupValues."""
    out: dict[str, float] = {}
    if msg is None:
        return out
    for group, values in zip(msg.interface_groups, msg.interface_values):
        for name, value in zip(values.interface_names, values.values):
            out[f'{group}/{name}'] = float(value)
    return out


def gpio_command(interface: str, value: float) -> DynamicInterfaceGroupValues:
    """The command setting `group/interface` to `value`."""
    group, name = interface.rsplit('/', 1)
    return DynamicInterfaceGroupValues(
        interface_groups=[group],
        interface_values=[InterfaceValue(interface_names=[name], values=[float(value)])],
    )


def gpio_card(dash: Dashboard, session: Session, c: ControllerInfo) -> None:
    """Outputs (a value and a set button each) and the current states."""
    states = dash.bridge.watch(DynamicInterfaceGroupValues, dash.watch.topic(c.name, 'gpio_states'))
    outputs = list(c.claimed_interfaces or c.required_command_interfaces)
    topic = dash.watch.topic(c.name, 'commands')
    with ui.card().classes('w-full q-pa-sm').props(f'data-testid=gpio-{c.name}'):
        with ui.row().classes('items-center'):
            ui.label(c.name).classes('text-subtitle1 text-weight-bold')
            ui.badge(c.state, color=state_color(c.state))
            ui.label(f'commands on {topic}').classes('text-caption text-grey-8')
        if not outputs:
            ui.label('no outputs known yet: configure the controller').classes('text-grey-7')
        for itf in outputs:
            with ui.row().classes('items-center'):
                ui.label(itf).classes('w-64')
                value = (
                    ui.number(value=0.0, format='%.3f')
                    .classes('w-28')
                    .props(f'dense data-testid=gpio-value-{itf}')
                )

                async def send(itf: str = itf, value: Any = value) -> None:
                    async def work() -> str:
                        v = float(value.value if value.value is not None else math.nan)
                        if not math.isfinite(v):
                            raise ValueError('enter a number')
                        dash.bridge.publish(
                            DynamicInterfaceGroupValues, topic, gpio_command(itf, v)
                        )
                        return f'{itf} <- {v:g} sent on {topic}'

                    await session.act(f'set {itf}', work)

                ui.button('set', on_click=send).props(f'dense outline data-testid=gpio-set-{itf}')
                if 'digital' in itf:

                    async def set_to(v: float, value: Any = value, send: Any = send) -> None:
                        value.set_value(v)
                        await send()

                    for label, v in (('on', 1.0), ('off', 0.0)):
                        ui.button(label, on_click=lambda v=v, set_to=set_to: set_to(v)).props(
                            'dense flat'
                        )
        readings = (
            ui.label()
            .classes('text-body2 whitespace-pre-line')
            .props(f'data-testid=gpio-states-{c.name}')
        )

    def show() -> None:
        values = gpio_values(states.msg)
        readings.set_text(
            '\n'.join(f'{k}: {fmt(v)}' for k, v in values.items()) or 'no ~/gpio_states yet'
        )

    show()
    ui.timer(0.5, show)


def _imu_text(m: Imu) -> str:
    q = m.orientation
    rpy = [math.degrees(a) for a in quaternion_to_rpy(q.x, q.y, q.z, q.w)]
    return (
        f'roll {rpy[0]:.1f}°  pitch {rpy[1]:.1f}°  yaw {rpy[2]:.1f}°\n'
        f'angular velocity (rad/s): {_vec(m.angular_velocity)}\n'
        f'linear acceleration (m/s²): {_vec(m.linear_acceleration)}'
    )


def _wrench_text(m: WrenchStamped) -> str:
    return f'force (N): {_vec(m.wrench.force)}\ntorque (N·m): {_vec(m.wrench.torque)}'


def reading_card(
    dash: Dashboard, c: ControllerInfo, kind: str, msg_type: Any, text_of: Callable[[Any], str]
) -> None:
    """A broadcaster's latest message on `/<ns>/<controller>/<kind>`, as `text_of` writes it."""
    name = dash.watch.topic(c.name, kind)
    topic = dash.bridge.watch(msg_type, name)
    with ui.card().classes('q-pa-sm').props(f'data-testid={kind}-{c.name}'):
        ui.label(f'{c.name} ({name})').classes('text-subtitle1 text-weight-bold')
        text = ui.label().classes('text-body2 whitespace-pre-line font-mono')

    def show() -> None:
        m = topic.msg
        text.set_text('no message yet' if m is None else text_of(m))

    show()
    ui.timer(0.5, show)


def imu_card(dash: Dashboard, c: ControllerInfo) -> None:
    """Orientation (roll, pitch, yaw), angular velocity and acceleration."""
    reading_card(dash, c, 'imu', Imu, _imu_text)


def wrench_card(dash: Dashboard, c: ControllerInfo) -> None:
    """Force and torque."""
    reading_card(dash, c, 'wrench', WrenchStamped, _wrench_text)


def build(dash: Dashboard, session: Session) -> None:
    """The page body."""
    answer_line(session)

    def key() -> tuple:
        types = (GPIO_TYPE, IMU_TYPE, WRENCH_TYPE)
        return dash.manager, tuple(
            (c.name, c.type, c.state, c.claimed_interfaces, c.required_command_interfaces)
            for c in dash.watch.state.controllers
            if c.type in types
        )

    @ui.refreshable
    def listing() -> None:
        gpios = dash.watch.of_type(GPIO_TYPE)
        sensors = dash.watch.of_type(IMU_TYPE) + dash.watch.of_type(WRENCH_TYPE)
        if not gpios and not sensors:
            ui.label('No GPIO controller and no IMU or force-torque broadcaster loaded.').classes(
                'text-grey-7'
            )
        for c in gpios:
            gpio_card(dash, session, c)
        with ui.row():
            for c in dash.watch.of_type(IMU_TYPE):
                imu_card(dash, c)
            for c in dash.watch.of_type(WRENCH_TYPE):
                wrench_card(dash, c)

    listing()
    shown = [key()]

    def refresh() -> None:
        if key() != shown[0]:
            shown[0] = key()
            listing.refresh()

    ui.timer(0.5, refresh)
