"""A gripper's jogging panel: one slider over the gripper joint's URDF range; letting it go
sends a `~/gripper_cmd` goal (GripperCommand with the controller's own `max_effort`, read
from its node; a parallel gripper's ParallelGripperCommand, which takes the controller's
limits), the result shown (reached the goal, stalled, where)."""

from __future__ import annotations

import math

from nicegui import background_tasks, ui

from py_controllers.dashboard import motion
from py_controllers.dashboard.model import GRIPPER_TYPES
from py_controllers.dashboard.names import controller_node
from py_controllers.dashboard.ros_bridge import CallFailedError, Goal, NotAvailableError
from py_controllers.dashboard.ui_common import fmt
from py_controllers.dashboard.ui_jog import JogPanel


class GripperPanel(JogPanel):
    """A gripper action controller (position, effort or parallel)."""

    testid = 'gripper'

    def _prepare(self) -> None:
        self.kind = GRIPPER_TYPES[self.controller_type]
        self.action = motion.gripper_action(self.dash.manager, self.name)
        self.dash.bridge.prepare_action(motion.GRIPPER_ACTIONS[self.kind], self.action)
        self.max_effort: float | None = None

    def _header(self) -> None:
        if self.kind != 'GripperCommand':
            ui.label("the controller's own velocity and effort limits").classes(
                'text-caption q-ml-md'
            )
            return
        self.effort_label = (
            ui.label('max effort: reading…')
            .classes('text-caption q-ml-md')
            .props(f'data-testid=max-effort-{self.name}')
        )
        background_tasks.create(self._read_max_effort())

    async def _read_max_effort(self) -> None:
        """The controller's `max_effort` parameter goes with every goal."""
        node = controller_node(self.dash.manager, self.name)
        try:
            value = (await self.dash.bridge.get_parameters(node, ['max_effort'])).get('max_effort')
        except (NotAvailableError, CallFailedError) as exc:
            self.effort_label.set_text(f'max effort: not read ({exc})')
            return
        if isinstance(value, (int, float)) and math.isfinite(value) and value >= 0.0:
            self.max_effort = float(value)
            self.effort_label.set_text(f'max effort {fmt(value, 2)} (its max_effort)')
        else:
            self.effort_label.set_text(f'max effort: not usable ({value!r})')

    def _ready(self) -> str:
        if not self.joints:
            return 'no joint known yet'
        if self.kind == 'GripperCommand' and self.max_effort is None:
            return "the controller's max_effort is not read"
        return ''

    async def _send(self, target: list[float]) -> tuple[Goal, str]:
        joint = self.joints[0]
        goal = await motion.send_gripper(
            self.dash.bridge,
            self.action,
            self.kind,
            joint,
            target[0],
            self.max_effort,
            self.range_of,
        )
        return goal, f'{joint} to {round(target[0], self._digits(0))}'

    async def _result_text(self, goal: Goal) -> str:
        return await motion.gripper_result(goal)
