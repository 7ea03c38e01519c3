"""The jogging panel every kind of controller shares (`ui_trajectory`, `ui_gripper`): an
enable switch, a slider per joint within its URDF limits (its step from the range: 0.01,
finer for a short one such as a gripper's travel in m), the target and where the joint is,
and a goal each time a slider is let go, with the result shown.

Nothing is sent unless the switch is on; switching it on first sets every slider to where
its joint is, so enabling never moves the robot.
"""

from __future__ import annotations

from typing import Any

from nicegui import background_tasks, ui

from py_controllers.dashboard.model import (
    DEFAULT_RANGE,
    ControllerInfo,
    clamp,
    clamp_positions,
    joints_of,
    slider_step,
    step_digits,
)
from py_controllers.dashboard.ros_bridge import Goal
from py_controllers.dashboard.ui_common import Dashboard, Session, fmt, state_color
from py_controllers.dashboard.ui_joints import joint_states, latest_positions


class JogPanel:
    """The card of one controller: an enable switch, a slider per joint, a goal each time
    one is let go. Subclasses say what the goal is (`_send`, `_result_text`)."""

    testid = 'jog'  # the card's data-testid is `<testid>-<controller>`

    def __init__(self, dash: Dashboard, session: Session, controller: ControllerInfo) -> None:
        self.dash = dash
        self.session = session
        self.name = controller.name
        self.controller_type = controller.type
        self.joints = joints_of(controller)
        self.states = joint_states(dash.watch)
        self.goal: Goal | None = None
        self.goals_sent = 0
        self.range_of = dash.watch.state.ranges
        self.ranges = [self.range_of.get(j, DEFAULT_RANGE) for j in self.joints]
        self.steps = [slider_step(r) for r in self.ranges]
        self._prepare()
        self.sliders: list[Any] = []
        self.targets: list[Any] = []
        self.actuals: list[Any] = []
        active = controller.state == 'active'
        with ui.card().classes('w-full q-pa-sm').props(f'data-testid={self.testid}-{self.name}'):
            with ui.row().classes('items-center w-full'):
                ui.label(self.name).classes('text-subtitle1 text-weight-bold')
                ui.badge(controller.state, color=state_color(controller.state))
                self.enable = ui.switch('enable', on_change=self._on_enable).props(
                    f'data-testid=enable-{self.name}'
                )
                if not active:
                    self.enable.disable()
                self._header()
                ui.button('stop', icon='stop', on_click=self._stop).props(
                    f'dense outline color=negative data-testid=stop-{self.name}'
                )
            if not self.joints:
                ui.label('no joints known yet: configure the controller').classes('text-grey-7')
            for joint, rng, step in zip(self.joints, self.ranges, self.steps):
                digits = step_digits(step)
                with ui.row().classes('items-center w-full no-wrap'):
                    ui.label(joint).classes('w-24')
                    ui.label(fmt(rng.lower, digits)).classes('text-caption w-10 text-right')
                    slider = (
                        ui.slider(min=rng.lower, max=rng.upper, step=step, value=0.0)
                        .props(f'data-testid=slider-{self.name}-{joint}')
                        .classes('col')
                    )
                    slider.disable()
                    slider.on('change', self._on_release)
                    ui.label(fmt(rng.upper, digits)).classes('text-caption w-10')
                    ui.label('target').classes('text-caption')
                    self.targets.append(
                        ui.label('-')
                        .classes('w-16 text-weight-bold')
                        .props(f'data-testid=target-{self.name}-{joint}')
                    )
                    ui.label('now').classes('text-caption')
                    self.actuals.append(
                        ui.label('-')
                        .classes('w-16')
                        .props(f'data-testid=actual-{self.name}-{joint}')
                    )
                    self.sliders.append(slider)
            self.result = ui.label(
                'switch on to command' if active else 'the controller is not active'
            ).props(f'data-testid=result-{self.name}')
        ui.timer(0.25, self._show_actual)

    # --- what a kind of controller says ------------------------------------------------
    def _prepare(self) -> None:
        """Make the action client (before the first goal)."""
        raise NotImplementedError

    def _header(self) -> None:
        """The kind's own controls beside the switch."""

    def _ready(self) -> str:
        """Why the panel cannot be enabled yet ('' when it can)."""
        return ''

    async def _send(self, target: list[float]) -> tuple[Goal, str]:
        """Send the goal to `target`; the accepted goal and a line saying what it is."""
        raise NotImplementedError

    async def _result_text(self, goal: Goal) -> str:
        """Await the goal's end and say it in one line."""
        raise NotImplementedError

    # --- the panel ----------------------------------------------------------------------
    def _digits(self, i: int) -> int:
        return step_digits(self.steps[i])

    def _slider_value(self, i: int, position: float) -> float:
        rng = self.ranges[i]
        return round(clamp(position, rng.lower, rng.upper), self._digits(i))

    def _show_actual(self) -> None:
        positions = latest_positions(self.states)
        for i, (joint, label) in enumerate(zip(self.joints, self.actuals)):
            label.set_text(fmt(positions.get(joint), max(3, self._digits(i))))
        if not self.enable.value:  # disabled sliders show where the joints are
            for i, (joint, slider) in enumerate(zip(self.joints, self.sliders)):
                if joint in positions:
                    slider.set_value(self._slider_value(i, positions[joint]))

    def _on_enable(self, e: Any) -> None:
        if not e.value:
            for slider in self.sliders:
                slider.disable()
            self.result.set_text('disabled: nothing is sent')
            return
        if not self.session.allowed():
            self.enable.set_value(False)
            return
        positions = latest_positions(self.states)
        missing = [j for j in self.joints if j not in positions]
        why = f'no /joint_states for {", ".join(missing)}' if missing else self._ready()
        if why:
            self.enable.set_value(False)
            self.result.set_text(f'cannot enable: {why}')
            return
        for i, (joint, slider) in enumerate(zip(self.joints, self.sliders)):
            slider.set_value(self._slider_value(i, positions[joint]))
            slider.enable()
        self.result.set_text('enabled: let a slider go to send a goal')

    async def _on_release(self, e: Any) -> None:
        """A slider was let go: send every slider's value as one goal."""
        if not self.enable.value:
            return
        for slider in self.sliders:  # the released one's value comes with the event
            if slider is e.sender and isinstance(e.args, (int, float)):
                slider.value = float(e.args)
        try:  # the page's values are limited again where the goal is made
            target = clamp_positions([float(s.value) for s in self.sliders], self.ranges)
        except (TypeError, ValueError) as exc:
            self.result.set_text(f'no goal sent: {exc}')
            return
        self.goals_sent += 1
        number = self.goals_sent

        async def send() -> str:
            self.goal, what = await self._send(target)
            background_tasks.create(self._await_result(self.goal, number))
            return f'goal {number} accepted: {what}'

        for i, (label, value) in enumerate(zip(self.targets, target)):
            label.set_text(fmt(value, max(3, self._digits(i))))
        ok = await self.session.act(f'goal to {self.name}', send)
        text = self.session.answer.text if self.session.answer is not None else ''
        self.result.set_text(text if ok else f'goal {number} not sent: {text}')

    async def _await_result(self, goal: Goal, number: int) -> None:
        try:
            text = await self._result_text(goal)
        except Exception as exc:  # the server went away: say so, nothing else
            text = f'no result: {exc}'
        if number == self.goals_sent:  # an older goal's end (preempted) is not news
            self.result.set_text(f'goal {number}: {text}')

    async def _stop(self) -> None:
        if self.goal is not None and self.session.allowed():
            self.goal.cancel()
            self.result.set_text('cancel requested')
