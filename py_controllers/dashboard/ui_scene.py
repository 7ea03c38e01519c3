"""The robot in 3D (for machines without rviz): drawn from its robot_description, moved
from the joint states, its base placed from a diff drive's odometry, and the goal of a
trajectory panel's sliders shown as a translucent ghost while a slider is dragged, before
the goal is sent on release.

The scene is redrawn ten times a second from the newest messages, never per message; an
object is sent to the browser only when its pose changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from nicegui import app, ui

from py_controllers.dashboard import scene_bridge
from py_controllers.dashboard.bases import BASES
from py_controllers.dashboard.model import JTC_TYPE, joints_of
from py_controllers.dashboard.scene_model import (
    SceneRobot,
    Visual,
    drawn_pose,
    hex_color,
    link_poses,
    parse_scene_robot,
    pose_from_xyz_quaternion,
    resolve_mesh,
    root_pose_from_odometry,
)
from py_controllers.dashboard.ui_common import Dashboard, Session
from py_controllers.dashboard.ui_joints import latest_positions
from py_controllers.dashboard.ui_trajectory import TrajectoryPanel
from py_controllers.hardware_interface.errors import UrdfError

FRAME_S = 0.1
"""Ten redraws a second: readable, and light on the web socket."""
GHOST_OPACITY = 0.3
PLACEHOLDER = '#ff00ff'
_MESH_URLS: dict[Path, str] = {}


def mesh_url(path: Path) -> str:
    """An unguessable URL of a mesh file the robot description names (served once made)."""
    if path not in _MESH_URLS:
        _MESH_URLS[path] = app.add_static_file(local_file=path)
    return _MESH_URLS[path]


@dataclass
class Drawn:
    """The robot as drawn in one page: its model and the objects of the robot and ghost."""

    robot: SceneRobot
    objects: dict[str, Any] = field(default_factory=dict)
    ghosts: dict[str, Any] = field(default_factory=dict)
    not_drawn: list[str] = field(default_factory=list)


def _shape(scene: Any, visual: Visual) -> tuple[Any, str]:
    """The three.js object of one visual, and why it is a placeholder (a magenta wire box
    for a mesh that cannot be drawn) or ''."""
    if visual.kind == 'box':
        return scene.box(*visual.size), ''
    if visual.kind == 'cylinder':
        radius, length = visual.size
        return scene.cylinder(radius, radius, length, 24), ''
    if visual.kind == 'sphere':
        return scene.sphere(visual.size[0], 24, 16), ''
    path = resolve_mesh(visual.mesh, scene_bridge.package_share)
    if path is not None and path.suffix.lower() == '.stl':
        return scene.stl(mesh_url(path)).scale(*visual.scale), ''
    if path is not None and path.suffix.lower() in ('.glb', '.gltf'):
        return scene.gltf(mesh_url(path)).scale(*visual.scale), ''
    why = 'not on this machine' if path is None else f'{path.suffix} is not drawn (STL, glTF are)'
    return scene.box(0.1, 0.1, 0.1, wireframe=True), f'{visual.mesh} ({why})'


def _draw(scene: Any, robot: SceneRobot) -> Drawn:
    drawn = Drawn(robot)
    for visual in robot.visuals:
        real, placeholder = _shape(scene, visual)
        ghost, _ = _shape(scene, visual)
        real.with_name(f'robot:{visual.key}')
        ghost.with_name(f'ghost:{visual.key}')
        if placeholder:
            drawn.not_drawn.append(placeholder)
        real.material(PLACEHOLDER if placeholder else hex_color(visual.rgba), visual.rgba[3])
        ghost.material('#80d8ff', GHOST_OPACITY).visible(False)
        drawn.objects[visual.key], drawn.ghosts[visual.key] = real, ghost
    return drawn


def _place(objects: dict[str, Any], robot: SceneRobot, poses: dict[str, np.ndarray]) -> None:
    for visual in robot.visuals:
        pose = drawn_pose(poses[visual.link], visual)
        rotation = [[round(float(v), 6) for v in row] for row in pose[:3, :3]]
        x, y, z = (round(float(v), 6) for v in pose[:3, 3])
        objects[visual.key].move(x, y, z).rotate_R(rotation)


class ScenePage:
    """The 3D view of one open page."""

    def __init__(self, dash: Dashboard, session: Session) -> None:
        self.dash = dash
        self.session = session
        self.manager = ''
        self._bind()
        self.drawn: Drawn | None = None
        self.source = ''
        self.panels: list[TrajectoryPanel] = []
        self.panels_key: tuple = ()
        with ui.row().classes('w-full no-wrap items-start'):
            with ui.column().classes('col-7'):
                self.status = ui.label('reading the robot description…').props(
                    'data-testid=scene-status'
                )
                self.base = ui.label('').classes('text-caption').props('data-testid=scene-base')
                self.missing = ui.label('').classes('text-caption text-negative')
                self.scene = ui.scene(width=760, height=560, grid=(10, 40)).props(
                    'data-testid=scene'
                )
                self.scene.move_camera(x=1.1, y=-1.1, z=0.9, look_at_z=0.35, duration=0)
            with ui.column().classes('col-5'):
                ui.label(
                    'Drag a slider (after enable): the ghost shows the goal; letting go sends it.'
                ).classes('text-caption')
                self._panels()
        ui.timer(FRAME_S, self._frame)

    def _bind(self) -> None:
        """Subscribe in the watched manager's namespace; the selector may change it."""
        self.manager = self.dash.manager
        self.states = scene_bridge.joint_states(self.dash)
        self.loaded: tuple[str, str] | None = None

    def _panels_key(self) -> tuple:
        """What the trajectory panels are built from (as the trajectory page has it)."""
        jtcs = self.dash.watch.of_type(JTC_TYPE)
        return tuple((c.name, c.state, tuple(joints_of(c))) for c in jtcs), id(
            self.dash.watch.state.ranges
        )

    @ui.refreshable_method
    def _panels(self) -> None:
        self.panels_key = self._panels_key()
        self.panels = [
            TrajectoryPanel(self.dash, self.session, c) for c in self.dash.watch.of_type(JTC_TYPE)
        ]
        if not self.panels:
            ui.label('No joint trajectory controller: no ghost to show.').classes('text-grey-7')

    def _load(self, text: str, source: str) -> None:
        """Draw the robot of the description the watch read (`source` says why there is
        none when `text` is empty)."""
        self.loaded = (text, source)
        if not text:
            self.status.set_text(source)
            return
        try:
            robot = parse_scene_robot(text)
        except UrdfError as exc:
            self.status.set_text(f'cannot draw the robot description ({source}): {exc}')
            return
        if self.drawn is not None:
            self.scene.delete_objects()
        self.drawn = _draw(self.scene, robot)
        self.source = source
        self.status.set_text(
            f'{robot.name}: {len(robot.visuals)} visuals of '
            f'{len({v.link for v in robot.visuals})} links, from {source}'
        )
        if self.drawn.not_drawn:
            self.missing.set_text(
                'meshes shown as magenta boxes: ' + '; '.join(self.drawn.not_drawn)
            )

    def _root_pose(self, positions: dict[str, float]) -> np.ndarray | None:
        """The root's pose in odom from the first active diff drive's odometry."""
        assert self.drawn is not None
        drives = [
            c for c in self.dash.watch.state.controllers if c.type in BASES and c.state == 'active'
        ]
        if not drives:
            self.base.set_text('no active mobile base controller: the base stays at the origin')
            return None
        topic = scene_bridge.scene_topic(self.dash, 'odometry', drives[0].name)
        odom = scene_bridge.odometry(self.dash, drives[0].name).msg
        if odom is None:
            self.base.set_text(f'no odometry on {topic} yet: the base stays at the origin')
            return None
        p, q = odom.pose.pose.position, odom.pose.pose.orientation
        values = (p.x, p.y, p.z, q.x, q.y, q.z, q.w)
        if not all(math.isfinite(v) for v in values) or q.x == q.y == q.z == q.w == 0.0:
            self.base.set_text(f'odometry on {topic} is not a pose: the base stays put')
            return None
        self.base.set_text(f'base {odom.child_frame_id or "?"} placed from {topic}')
        pose = pose_from_xyz_quaternion((p.x, p.y, p.z), (q.x, q.y, q.z, q.w))
        return root_pose_from_odometry(self.drawn.robot, pose, odom.child_frame_id, positions)

    async def _frame(self) -> None:
        if self.dash.manager != self.manager:  # another robot chosen in the header
            self._bind()
            if self.drawn is not None:
                self.scene.delete_objects()
                self.drawn = None
        state = self.dash.watch.state
        if (state.description, state.description_source) != self.loaded:
            self._load(state.description, state.description_source)
        if self._panels_key() != self.panels_key:
            self._panels.refresh()
        if self.drawn is None:
            return
        robot = self.drawn.robot
        positions = latest_positions(self.states)
        root = self._root_pose(positions)
        _place(self.drawn.objects, robot, link_poses(robot, positions, root))
        goal = dict(positions)
        ghost = False
        for panel in self.panels:
            if panel.enable.value:
                ghost = True
                goal.update({j: float(s.value) for j, s in zip(panel.joints, panel.sliders)})
        for obj in self.drawn.ghosts.values():
            obj.visible(ghost)
        if ghost:
            _place(self.drawn.ghosts, robot, link_poses(robot, goal, root))


def build(dash: Dashboard, session: Session) -> None:
    """The page body."""
    session.answer = ui.label('').classes('hidden')
    ScenePage(dash, session)
