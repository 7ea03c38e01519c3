"""MuJoCo's passive viewer for MujocoSystem, off the control loop.

The window shows a copy of the simulation (its own MjData). A thread of its own copies
the state under `lock` at display rate, computes the kinematics and syncs the viewer, so
the loop never renders, never waits for the viewer's own lock and only holds `lock`
while it steps (the viewer thread holds it for a copy of a few arrays).
"""

from __future__ import annotations

import os
import threading
import warnings
from typing import Any

import mujoco

DISPLAY_PERIOD_S = 1 / 60  # at most ~60 viewer refreshes per second


def display_problem() -> str | None:
    """Why no viewer window can be opened, or None if one can."""
    # GLFW is tried here first: MuJoCo's viewer ends the whole process when GLFW cannot
    # start (a $DISPLAY naming no X server, say).
    if not (os.environ.get('DISPLAY') or os.environ.get('WAYLAND_DISPLAY')):
        return 'there is no display ($DISPLAY is not set)'
    try:
        import glfw

        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            if not glfw.init():
                return f"GLFW cannot open display '{os.environ.get('DISPLAY', '')}'"
            glfw.terminate()
    except Exception as exc:
        return f'GLFW is not usable ({exc})'
    return None


def launch_passive(model: Any, data: Any) -> Any:
    """Open MuJoCo's passive viewer on `data`; RuntimeError saying why it cannot."""
    problem = display_problem()
    if problem is not None:
        raise RuntimeError(problem)
    import mujoco.viewer

    return mujoco.viewer.launch_passive(model, data)


class ViewerThread:
    """A passive viewer window synced from its own thread (see the module docstring)."""

    def __init__(self, model: Any, data: Any, *, period_s: float = DISPLAY_PERIOD_S) -> None:
        """Open the window (raises if it cannot) and start syncing it from `data`."""
        self.model = model
        self.source = data
        self.shown = mujoco.MjData(model)
        #: held by the loop while it steps `data`, by this thread while it copies it
        self.lock = threading.Lock()
        self.period_s = period_s
        self.handle = launch_passive(model, self.shown)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name='mujoco_viewer', daemon=True)
        self._thread.start()

    def _run(self) -> None:
        model, source, shown, handle = self.model, self.source, self.shown, self.handle
        while not self._stop.wait(self.period_s):
            if not handle.is_running():  # the window was closed: the simulation goes on
                return
            with self.lock:
                shown.time = source.time
                shown.qpos[:] = source.qpos
                shown.qvel[:] = source.qvel
                shown.act[:] = source.act
                shown.ctrl[:] = source.ctrl
                shown.mocap_pos[:] = source.mocap_pos
                shown.mocap_quat[:] = source.mocap_quat
                shown.xfrc_applied[:] = source.xfrc_applied
            mujoco.mj_forward(model, shown)
            handle.sync()

    def close(self) -> None:
        """Stop syncing and close the window."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(2.0)
        self.handle.close()
