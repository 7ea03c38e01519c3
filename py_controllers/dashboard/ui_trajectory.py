"""Trajectory panels (rqt_joint_trajectory_controller): one per joint trajectory
controller, a slider per joint within its URDF limits, a speed scale, and a
FollowJointTrajectory goal each time a slider is let go, with the result shown.

Nothing is sent unless the panel's switch is on; switching it on first sets every slider
to where its joint is, so enabling never moves the robot.
"""

from __future__ import annotations

from typing import Any

from nicegui import background_tasks, ui

from py_controllers.dashboard import motion
from py_controllers.dashboard.model import (
    DEFAULT_RANGE,
    JTC_TYPE,
    ControllerInfo,
    clamp,
    clamp_positions,
    joints_of,
    trajectory_duration_s,
)
from py_controllers.dashboard.ros_bridge import Goal
from py_controllers.dashboard.ui_common import Dashboard, Session, fmt, state_color
from py_controllers.dashboard.ui_joints import joint_states, latest_positions


class TrajectoryPanel:
    """The card of one controller."""

    def __init__(self, dash: Dashboard, session: Session, controller: ControllerInfo) -> None:
        self.dash = dash
        self.session = session
        self.name = controller.name
        self.joints = joints_of(controller)
        self.states = joint_states(dash.watch)
        self.action = motion.follow_joint_trajectory_action(dash.manager, self.name)
        self.goal: Goal | None = None
        self.goals_sent = 0
        self.range_of = dash.watch.state.ranges
        self.ranges = [self.range_of.get(j, DEFAULT_RANGE) for j in self.joints]
        dash.bridge.prepare_action(motion.FollowJointTrajectory, self.action)
        self.sliders: list[Any] = []
        self.targets: list[Any] = []
        self.actuals: list[Any] = []
        active = controller.state == 'active'
        with ui.card().classes('w-full q-pa-sm').props(f'data-testid=jtc-{self.name}'):
            with ui.row().classes('items-center w-full'):
                ui.label(self.name).classes('text-subtitle1 text-weight-bold')
                ui.badge(controller.state, color=state_color(controller.state))
                self.enable = ui.switch('enable', on_change=self._on_enable).props(
                    f'data-testid=enable-{self.name}'
                )
                if not active:
                    self.enable.disable()
                ui.label('speed').classes('q-ml-md')
                self.speed = (
                    ui.slider(min=0.05, max=1.0, step=0.05, value=0.5)
                    .props(f'label-always data-testid=speed-{self.name}')
                    .classes('w-40')
                )
                ui.button('stop', icon='stop', on_click=self._stop).props(
                    f'dense outline color=negative data-testid=stop-{self.name}'
                )
            if not self.joints:
                ui.label('no joints known yet: configure the controller').classes('text-grey-7')
            for joint, rng in zip(self.joints, self.ranges):
                with ui.row().classes('items-center w-full no-wrap'):
                    ui.label(joint).classes('w-24')
                    ui.label(fmt(rng.lower, 2)).classes('text-caption w-10 text-right')
                    slider = (
                        ui.slider(min=rng.lower, max=rng.upper, step=0.01, value=0.0)
                        .props(f'data-testid=slider-{self.name}-{joint}')
                        .classes('col')
                    )
                    slider.disable()
                    slider.on('change', self._on_release)
                    ui.label(fmt(rng.upper, 2)).classes('text-caption w-10')
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

    def _show_actual(self) -> None:
        positions = latest_positions(self.states)
        for joint, label in zip(self.joints, self.actuals):
            label.set_text(fmt(positions.get(joint)))
        if not self.enable.value:  # disabled sliders show where the joints are
            for joint, rng, slider in zip(self.joints, self.ranges, self.sliders):
                if joint in positions:
                    slider.set_value(round(clamp(positions[joint], rng.lower, rng.upper), 2))

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
        if missing:
            self.enable.set_value(False)
            self.result.set_text(f'cannot enable: no /joint_states for {", ".join(missing)}')
            return
        for joint, rng, slider in zip(self.joints, self.ranges, self.sliders):
            slider.set_value(round(clamp(positions[joint], rng.lower, rng.upper), 2))
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
        positions = latest_positions(self.states)
        current = [positions.get(j, t) for j, t in zip(self.joints, target)]
        duration = trajectory_duration_s(
            current, target, [r.max_velocity for r in self.ranges], float(self.speed.value)
        )
        self.goals_sent += 1
        number = self.goals_sent

        async def send() -> str:
            self.goal = await motion.send_trajectory(
                self.dash.bridge, self.action, self.joints, target, duration, self.range_of
            )
            background_tasks.create(self._await_result(self.goal, number))
            return f'goal {number} accepted: {duration:.2f} s to {[round(t, 3) for t in target]}'

        for label, value in zip(self.targets, target):
            label.set_text(fmt(value))
        ok = await self.session.act(f'goal to {self.name}', send)
        text = self.session.answer.text if self.session.answer is not None else ''
        self.result.set_text(text if ok else f'goal {number} not sent: {text}')

    async def _await_result(self, goal: Goal, number: int) -> None:
        try:
            text = await motion.result_text(goal)
        except Exception as exc:  # the server went away: say so, nothing else
            text = f'no result: {exc}'
        if number == self.goals_sent:  # an older goal's end (preempted) is not news
            self.result.set_text(f'goal {number}: {text}')

    async def _stop(self) -> None:
        if self.goal is not None and self.session.allowed():
            self.goal.cancel()
            self.result.set_text('cancel requested')


def build(dash: Dashboard, session: Session) -> None:
    """The page body."""
    ui.label().bind_text_from(dash.watch.state, 'ranges_problem').classes('text-caption')
    # the panels' own answers go to their result lines; this one collects the rest
    session.answer = ui.label('').classes('hidden')

    def key() -> tuple:
        s = dash.watch.state
        jtcs = dash.watch.of_type(JTC_TYPE)
        panels_key = tuple((c.name, c.state, tuple(joints_of(c))) for c in jtcs)
        return dash.manager, panels_key, id(s.ranges)

    @ui.refreshable
    def panels() -> None:
        jtcs = dash.watch.of_type(JTC_TYPE)
        if not jtcs:
            ui.label('No joint trajectory controller loaded.').classes('text-grey-7')
        for c in jtcs:
            TrajectoryPanel(dash, session, c)

    panels()
    shown = [key()]

    def refresh() -> None:
        if key() != shown[0]:
            shown[0] = key()
            panels.refresh()

    ui.timer(0.5, refresh)
