"""The jogging page (rqt_joint_trajectory_controller): a panel per joint trajectory
controller, a slider per joint, a speed scale, and a FollowJointTrajectory goal each time a
slider is let go, with the result shown; a panel per gripper action controller
(`ui_gripper`). What the panels share (the switch, sliders, safety) is `ui_jog`.
"""

from __future__ import annotations

from nicegui import ui

from py_controllers.dashboard import motion
from py_controllers.dashboard.model import (
    GRIPPER_TYPES,
    JTC_TYPE,
    joints_of,
    trajectory_duration_s,
)
from py_controllers.dashboard.ros_bridge import Goal
from py_controllers.dashboard.ui_common import Dashboard, Session
from py_controllers.dashboard.ui_gripper import GripperPanel
from py_controllers.dashboard.ui_jog import JogPanel
from py_controllers.dashboard.ui_joints import latest_positions


class TrajectoryPanel(JogPanel):
    """A joint trajectory controller: every slider in one FollowJointTrajectory goal, its
    duration from the joints' velocity limits times the speed scale."""

    testid = 'jtc'

    def _prepare(self) -> None:
        self.action = motion.follow_joint_trajectory_action(self.dash.manager, self.name)
        self.dash.bridge.prepare_action(motion.FollowJointTrajectory, self.action)

    def _header(self) -> None:
        ui.label('speed').classes('q-ml-md')
        self.speed = (
            ui.slider(min=0.05, max=1.0, step=0.05, value=0.5)
            .props(f'label-always data-testid=speed-{self.name}')
            .classes('w-40')
        )

    async def _send(self, target: list[float]) -> tuple[Goal, str]:
        positions = latest_positions(self.states)
        current = [positions.get(j, t) for j, t in zip(self.joints, target)]
        duration = trajectory_duration_s(
            current, target, [r.max_velocity for r in self.ranges], float(self.speed.value)
        )
        goal = await motion.send_trajectory(
            self.dash.bridge, self.action, self.joints, target, duration, self.range_of
        )
        return goal, f'{duration:.2f} s to {[round(t, 4) for t in target]}'

    async def _result_text(self, goal: Goal) -> str:
        return await motion.result_text(goal)


def build(dash: Dashboard, session: Session) -> None:
    """The page body."""
    ui.label().bind_text_from(dash.watch.state, 'ranges_problem').classes('text-caption')
    # the panels' own answers go to their result lines; this one collects the rest
    session.answer = ui.label('').classes('hidden')

    def jogged() -> list:
        return [c for c in dash.watch.state.controllers if c.type in (JTC_TYPE, *GRIPPER_TYPES)]

    def key() -> tuple:
        panels_key = tuple((c.name, c.state, tuple(joints_of(c))) for c in jogged())
        return dash.manager, panels_key, id(dash.watch.state.ranges)

    @ui.refreshable
    def panels() -> None:
        controllers = jogged()
        if not controllers:
            ui.label('No joint trajectory or gripper controller loaded.').classes('text-grey-7')
        for c in controllers:
            (TrajectoryPanel if c.type == JTC_TYPE else GripperPanel)(dash, session, c)

    panels()
    shown = [key()]

    def refresh() -> None:
        if key() != shown[0]:
            shown[0] = key()
            panels.refresh()

    ui.timer(0.5, refresh)
