"""The web application: the pages, the ROS side's start and stop, and the server."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from typing import Any

from nicegui import app, ui

from py_controllers.controller_manager.client import resolve_manager_name
from py_controllers.dashboard import (
    ui_controllers,
    ui_hardware,
    ui_io,
    ui_joints,
    ui_loop,
    ui_scene,
    ui_steering,
    ui_trajectory,
    ui_tuning,
)
from py_controllers.dashboard.guard import ClientGoneFilter, GuardMiddleware
from py_controllers.dashboard.manager_watch import ManagerWatch
from py_controllers.dashboard.model import LOOPBACK_HOSTS
from py_controllers.dashboard.motion import Steering
from py_controllers.dashboard.ros_bridge import RosBridge
from py_controllers.dashboard.ui_common import Dashboard, Session, open_page

LOG = logging.getLogger('py_controllers.dashboard')

RECONNECT_TIMEOUT_S = 15.0
"""NiceGUI's default, 3 s, pings every 4 s and drops a page that misses one by 2 s; the page
then reloads and loses its state (a plot's window, a form's answer). A dashboard stalled for
that long on a busy host is not gone: 15 s pings every 12 s, waits 6 and keeps a dropped
page's state 15 s. Motion does not wait for it: a steering pad's lease stops its base."""

BODIES: dict[str, Callable[[Dashboard, Session], None]] = {  # with ui_common.PAGES
    '/': ui_controllers.build,
    '/hardware': ui_hardware.build,
    '/loop': ui_loop.build,
    '/joints': ui_joints.build,
    '/trajectory': ui_trajectory.build,
    '/steering': ui_steering.build,
    '/io': ui_io.build,
    '/tuning': ui_tuning.build,
    '/scene': ui_scene.build,
}


def _register(dash: Dashboard, path: str, body: Callable[[Dashboard, Session], None]) -> None:
    def page(token: str | None = None) -> None:
        session = open_page(dash, path, token)
        if session is not None:
            body(dash, session)

    ui.page(path, title='py_controllers dashboard')(page)


def _page_error(exc: Exception) -> None:
    """What a page that failed to build shows: a sentence, never a traceback."""
    LOG.error('dashboard: a page failed to build: %r', exc)
    ui.label('This page could not be shown').classes('text-h6 text-negative')
    ui.label(f'{type(exc).__name__}: {exc}')
    ui.link('back to the controllers', '/')


def _handler_error(exc: Exception) -> None:
    LOG.error('dashboard: %s: %s', type(exc).__name__, exc, exc_info=exc)


def serve(
    *,
    manager: str,
    host: str,
    port: int,
    token: str | None,
    url: str,
    ros_args: Any = None,
) -> None:
    """Start the ROS side, register the pages, and serve until interrupted; prints
    `dashboard: <url> ...` once the server listens. A relative `manager` lives in the
    dashboard node's namespace (`--ros-args -r __ns:=/robot1`)."""
    bridge = RosBridge(ros_args=ros_args)
    bridge.start()
    watch = ManagerWatch(bridge, resolve_manager_name(bridge.node, manager))
    announce = f'dashboard: {url} (controller manager {watch.manager})'
    dash = Dashboard(bridge=bridge, watch=watch, steering=Steering(bridge), token=token)
    ui_joints.joint_states(watch)  # history from the start, not from the first visit
    for path, body in BODIES.items():
        _register(dash, path, body)
    # bound to loopback, a page of another site must not reach us by DNS rebinding
    allowed = LOOPBACK_HOSTS if host in LOOPBACK_HOSTS else None
    app.add_middleware(GuardMiddleware, allowed_hosts=allowed)
    app.on_page_exception(_page_error)
    app.on_exception(_handler_error)

    async def started() -> None:
        watch.start()
        server = _server()
        while server is not None and not server.started:
            await asyncio.sleep(0.05)  # uvicorn binds its socket after the startup hooks
        print(announce, flush=True)

    async def stopping() -> None:
        watch.stop()
        try:
            await asyncio.wait_for(dash.steering.stop_all(), 2.0)
        except Exception as exc:  # still close the node
            LOG.error('dashboard: could not stop the steering cleanly: %s', exc)
        bridge.close()

    app.on_startup(started)
    app.on_shutdown(stopping)
    logging.getLogger('uvicorn.error').addFilter(ClientGoneFilter())
    ui.run(
        host=host,
        port=port,
        title='py_controllers dashboard',
        reload=False,
        show=False,
        show_welcome_message=False,
        storage_secret=secrets.token_urlsafe(32),
        favicon='🤖',
        uvicorn_logging_level='warning',
        reconnect_timeout=RECONNECT_TIMEOUT_S,
    )


def _server() -> Any:
    """The running uvicorn server, if NiceGUI has made it."""
    from nicegui.server import Server

    return getattr(Server, 'instance', None)
