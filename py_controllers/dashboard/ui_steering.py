"""Steering pads (rqt_robot_steering): one per base that takes a TwistStamped (diff drive,
tricycle, omni wheel and mecanum drives, the steering controllers; `bases.BASES`), sent on
the controller's own topic (`/<ns>/<controller>/cmd_vel` or `.../reference`) while the pad
is held and its switch is on. A holonomic base's pad can move it sideways (linear.y) instead
of turning it. The speed sliders stop at the controller's own limits where it has them, and
the server clamps every command to them (`motion.Steering.command`).

The browser reports the pad's position ten times a second while a pointer holds it
(`steer` events) and says when it lets go (`steer_end`, also on blur and when the tab is
hidden); the server keeps a lease (see `motion.Steering`), so a page that closes, freezes
or loses its connection stops the robot within the lease, well inside the controller's own
timeout. A disconnect stops it at once.
"""

from __future__ import annotations

from typing import Any

from nicegui import background_tasks, ui

from py_controllers.dashboard.bases import BASES, Base, pad_limits
from py_controllers.dashboard.model import twist_from_pad
from py_controllers.dashboard.motion import PAD_MAX_ANGULAR, PAD_MAX_LINEAR, PAD_RANGE, twist_topic
from py_controllers.dashboard.names import controller_node
from py_controllers.dashboard.ros_bridge import CallFailedError, NotAvailableError
from py_controllers.dashboard.ui_common import Dashboard, Session, fmt, state_color

TURN, SIDEWAYS = 'turn', 'sideways'
"""What a holonomic pad's left-right axis does."""

PAD_SCRIPT = """
<script>
(function () {
  if (window.pyControllersSteering) return;
  window.pyControllersSteering = true;
  let held = null;
  function where(pad, e) {
    const r = pad.getBoundingClientRect();
    let x = ((e.clientX - r.left) / r.width) * 2 - 1;
    let y = 1 - ((e.clientY - r.top) / r.height) * 2;
    const n = Math.hypot(x, y);
    if (n > 1) { x /= n; y /= n; }
    return [x, y];
  }
  function knob(pad, x, y) {
    const k = pad.querySelector('.steer-knob');
    if (k) { k.style.left = (50 + x * 40) + '%'; k.style.top = (50 - y * 40) + '%'; }
  }
  function report() {
    if (held) emitEvent('steer', {pad: held.id, x: held.x, y: held.y});
  }
  document.addEventListener('pointerdown', (e) => {
    const pad = e.target.closest ? e.target.closest('.steer-pad') : null;
    if (!pad || held) return;
    e.preventDefault();
    pad.setPointerCapture(e.pointerId);
    const [x, y] = where(pad, e);
    held = {pad: pad, id: pad.dataset.pad, x: x, y: y, pointer: e.pointerId,
            timer: setInterval(report, 100)};
    knob(pad, x, y);
    report();
  });
  document.addEventListener('pointermove', (e) => {
    if (!held || e.pointerId !== held.pointer) return;
    [held.x, held.y] = where(held.pad, e);
    knob(held.pad, held.x, held.y);
  });
  function letGo(e) {
    if (!held || (e && e.pointerId !== undefined && e.pointerId !== held.pointer)) return;
    clearInterval(held.timer);
    knob(held.pad, 0, 0);
    emitEvent('steer_end', {pad: held.id});
    held = null;
  }
  document.addEventListener('pointerup', letGo);
  document.addEventListener('pointercancel', letGo);
  window.addEventListener('blur', () => letGo());
  document.addEventListener('visibilitychange', () => { if (document.hidden) letGo(); });
})();
</script>
"""


class SteeringPad:
    """The card of one base."""

    def __init__(
        self, dash: Dashboard, session: Session, name: str, state: str, base: Base
    ) -> None:
        self.dash = dash
        self.session = session
        self.name = name
        self.base = base
        self.topic = twist_topic(dash.manager, name, base)
        self.node = controller_node(dash.manager, name)
        self.limits = {'linear': 0.5, 'angular': 1.0, 'lateral': 0.5, 'axis': TURN}
        # before the controller's limits are read: the pad's range, sideways if it can
        dash.steering.set_limits(
            self.topic, PAD_RANGE._replace(lateral=PAD_MAX_LINEAR if base.holonomic else 0.0)
        )
        with ui.card().classes('q-pa-sm').props(f'data-testid=steer-{name}'):
            with ui.row().classes('items-center'):
                ui.label(name).classes('text-subtitle1 text-weight-bold')
                ui.badge(state, color=state_color(state))
                self.enable = ui.switch('enable', on_change=self._on_enable).props(
                    f'data-testid=steer-enable-{name}'
                )
            ui.label(f'TwistStamped on {self.topic}').classes('text-caption text-grey-8')
            with ui.row().classes('items-start no-wrap'):
                with (
                    ui.element('div')
                    .classes('steer-pad')
                    .props(f'data-pad={name} data-testid=pad-{name}')
                    .style(
                        'width: 240px; height: 240px; border-radius: 50%; position: relative; '
                        'background: #eceff1; border: 2px solid #90a4ae; touch-action: none; '
                        'user-select: none; cursor: grab'
                    ) as self.pad
                ):
                    ui.element('div').classes('steer-knob').style(
                        'position: absolute; left: 50%; top: 50%; width: 56px; height: 56px; '
                        'margin: -28px 0 0 -28px; border-radius: 50%; background: #546e7a; '
                        'pointer-events: none'
                    )
                with ui.column().classes('q-ml-md'):
                    self.linear = self._slider('linear', 'max linear {:.2f} m/s', 0.05)
                    self.angular = self._slider('angular', 'max angular {:.1f} rad/s', 0.1)
                    self.lateral = None
                    if base.holonomic:
                        self.lateral = self._slider('lateral', 'max sideways {:.2f} m/s', 0.05)
                        ui.toggle(
                            {TURN: 'left-right turns', SIDEWAYS: 'left-right slides'}
                        ).bind_value(self.limits, 'axis').props(
                            f'dense data-testid=steer-axis-{name}'
                        )
                    self.sending = ui.label('stopped').props(f'data-testid=steer-sending-{name}')
            self._show_enabled(False)
        ui.timer(0.2, self._show_sending)
        background_tasks.create(self._read_limits())

    def _slider(self, key: str, text: str, step: float) -> Any:
        ui.label().bind_text_from(self.limits, key, lambda v: text.format(v))
        top = PAD_MAX_ANGULAR if key == 'angular' else PAD_MAX_LINEAR
        slider = ui.slider(min=step, max=top, step=step).props(
            f'data-testid=steer-max-{key}-{self.name}'
        )
        slider.bind_value(self.limits, key)
        return slider

    async def _read_limits(self) -> None:
        """The controller's velocity limits narrow the sliders and the server's clamp."""
        names = self.base.limit_parameters
        try:
            values = await self.dash.bridge.get_parameters(self.node, names) if names else {}
        except (NotAvailableError, CallFailedError):
            return  # the pad's own range stays the limit
        limits = pad_limits(self.base, values, PAD_MAX_LINEAR, PAD_MAX_ANGULAR)
        self.dash.steering.set_limits(self.topic, limits)
        for key, slider in (
            ('linear', self.linear),
            ('angular', self.angular),
            ('lateral', self.lateral),
        ):
            if slider is not None:
                top = getattr(limits, key)
                slider.props['max'] = top
                slider.update()
                self.limits[key] = min(self.limits[key], top)

    def _show_enabled(self, on: bool) -> None:
        if on:
            self.pad.classes(remove='opacity-40')
        else:
            self.pad.classes(add='opacity-40')

    def _on_enable(self, e: Any) -> None:
        if e.value and not self.session.allowed():
            self.enable.set_value(False)
            return
        if not e.value:
            self.dash.steering.release(self.topic)
        self._show_enabled(bool(e.value))

    def steer(self, x: float, y: float) -> None:
        """A `steer` event for this pad: up is forward; left-right turns, or slides a
        holonomic base sideways when its toggle says so."""
        if not self.enable.value or not self.session.allowed():
            return
        sideways = self.lateral is not None and self.limits['axis'] == SIDEWAYS
        try:
            max_linear = float(self.limits['linear'])
            max_side = float(self.limits['lateral' if sideways else 'angular'])
        except (TypeError, ValueError):
            max_linear = max_side = 0.0
        linear, side = twist_from_pad(x, y, max_linear, max_side)
        if sideways:  # right is -y, as a right turn is -z
            self.dash.steering.command(self.topic, self.session.id, linear, 0.0, side)
        else:
            self.dash.steering.command(self.topic, self.session.id, linear, side)

    def let_go(self) -> None:
        """The pad was let go."""
        self.dash.steering.release(self.topic, self.session.id)

    def _show_sending(self) -> None:
        lease = self.dash.steering.leases.get(self.topic)
        cmd = lease.current if lease is not None else None
        if cmd is None:
            self.sending.set_text('stopped')
            return
        sideways = f', sideways {fmt(cmd.lateral, 2)} m/s' if self.base.holonomic else ''
        self.sending.set_text(
            f'sending linear {fmt(cmd.linear, 2)} m/s{sideways}, '
            f'angular {fmt(cmd.angular, 2)} rad/s'
        )


def build(dash: Dashboard, session: Session) -> None:
    """The page body."""
    ui.add_body_html(PAD_SCRIPT)
    pads: dict[str, SteeringPad] = {}

    def on_steer(e: Any) -> None:
        args = e.args if isinstance(e.args, dict) else {}
        pad = pads.get(str(args.get('pad')))
        if pad is not None:
            try:
                pad.steer(float(args.get('x', 0.0)), float(args.get('y', 0.0)))
            except (TypeError, ValueError):
                pad.let_go()

    def on_end(e: Any) -> None:
        args = e.args if isinstance(e.args, dict) else {}
        pad = pads.get(str(args.get('pad')))
        if pad is not None:
            pad.let_go()

    ui.on('steer', on_steer)
    ui.on('steer_end', on_end)
    session.client.on_disconnect(lambda: dash.steering.release_owner(session.id))
    session.client.on_delete(lambda: dash.steering.release_owner(session.id))

    def bases() -> list:
        return [c for c in dash.watch.state.controllers if c.type in BASES]

    def key() -> tuple:
        return dash.manager, tuple((c.name, c.type, c.state) for c in bases())

    @ui.refreshable
    def listing() -> None:
        dash.steering.release_owner(session.id)
        pads.clear()
        drives = bases()
        if not drives:
            ui.label(
                'No base to steer (diff drive, tricycle, omni, mecanum or steering controller).'
            ).classes('text-grey-7')
        with ui.row():
            for c in drives:
                pads[c.name] = SteeringPad(dash, session, c.name, c.state, BASES[c.type])

    listing()
    shown = [key()]

    def refresh() -> None:
        if key() != shown[0]:
            shown[0] = key()
            listing.refresh()

    ui.timer(0.5, refresh)
