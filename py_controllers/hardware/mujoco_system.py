"""`py_controllers/MujocoSystem`: joints and sensors of a MuJoCo model as a ros2_control system.

The `<ros2_control>` joints and sensors map onto the model's joints, actuators and sensors
as `mujoco_model` describes (actuator kinds, Python servos, force-torque and IMU sensors).

Plugin names: `py_controllers/MujocoSystem`, and upstream's, so their URDFs work
unchanged: `mujoco_ros2_control/MujocoSystemInterface` (ros-controls/mujoco_ros2_control)
and `mujoco_ros2_control/MujocoSystem` (moveit/mujoco_ros2_control; its sensor naming,
below, applies under that name). `<hardware>` parameters (`mujoco_params`): each takes
effect in every sim_mode, or on_init fails with one line saying why; none is ignored.

    mujoco_model      MJCF (or URDF MuJoCo compiles) path: absolute, package://pkg/...,
                      $(find pkg)/..., file://..., or relative to the current directory.
    mujoco_model_path the same (moveit's name; moveit read it as a node parameter, here
                      it is a <hardware> parameter: without either, the refusal says so)
    sim_mode          step_with_loop (default): each read() runs round(period / timestep)
                      physics steps, the remainder carried to the next read, so results
                      depend on the cycle count only; realtime: as many steps as the wall
                      time since the last read() times realtime_factor.
    realtime_factor   realtime speed scale, > 0, default 1; upstream's sim_speed_factor
    sim_speed_factor  means the same (negative: not set, as upstream). In step_with_loop
                      the simulation advances one update period per cycle of a loop the
                      manager paces by the wall clock, so it runs at 1x: 1 is accepted
                      there, any other factor refused (use sim_mode realtime).
    max_substeps      cap on physics steps per read(), default 1000 (the rest is dropped)
    viewer            true: MuJoCo's passive viewer when a display is there, else a
    headless          warning and headless. Default false; upstream's headless is its
                      negation (the two contradicting each other is refused).
    initial_keyframe  an MJCF keyframe to start from
    override_start_position_file  upstream's start state: a `<key qpos qvel ctrl/>` file
                      (MuJoCo's 'Copy state'); sizes must match the model; not together
                      with initial_keyframe
    pids_config_file  upstream's YAML, pid_gains.<position|velocity>.<joint>.{p, i, d,
                      i_clamp_max/min, u_clamp_max/min}: the joint's servo gains (clamps
                      symmetric; i_clamp bounds the integral term as control_toolbox's)
    <group>_mjcf_suffix  sensor suffixes (below), for all sensors
  refused: mujoco_model_topic (an MJCF from a topic), odom_free_joint_name and odom_topic
  (a free joint's odometry), and any name not listed here. Cameras and lidars (upstream's
  plugins) are not simulated: a <sensor> without mujoco_type or interfaces is refused.

A joint's position `initial_value` sets its start position on top of the model's; with
initial_keyframe or the start file, an initial_value that disagrees with it is refused
(upstream lets those win, MujocoSystem did the opposite: neither is silently dropped).
(The position command's initial_value serves when the state has none.) States: position,
velocity, effort (generalized force of its actuator plus qfrc_applied; upstream's `force`
and `torque` name the same), acceleration.

Command modes. A joint is driven by the command interface a controller claims on it (one
at a time), starting with a hold: position commands hold where the joint is, velocity
and effort commands at 0, until the controller's first command. Before any claim a joint
holds with its hold drive: the first of position, velocity, effort it has (without
command interfaces: its actuator's own kind; a joint with neither is passive); the arm's
position servo, for one. Hold on release: a joint whose claim ends (stopped in a command
mode switch, or the component deactivated) goes back to that hold drive, aimed at where
it is, bumplessly (`mujoco_simulation`): a servo starts from the force the actuator was
applying, so an arm released mid-pose keeps its gravity load carried and stays put. NaN
commands keep the last target; an infinite one makes write() return ERROR.

Physics advance in read(); write() takes the claimed commands. `simulation_time_ns()` is
the simulated time since the first configure: with use_sim_time the manager runs on it and
publishes it on /clock. It never goes backwards: configured again (or reset after
diverging), the new simulation's time continues from the last one's, so controllers that
update below the manager's rate keep their schedule. The viewer is synced from a thread
of its own (`mujoco_viewer`), never from read().
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

import mujoco

from py_controllers.hardware.mujoco_model import (
    JointBinding,
    MujocoModelError,
    PushBinding,
    SensorReading,
    bind_joint,
    bind_push,
    bind_sensor,
    load_model,
)
from py_controllers.hardware.mujoco_params import (
    SIM_MODES,
    check_start_state,
    joint_params,
    moveit_sensor,
    parse_params,
    start_conflict,
)
from py_controllers.hardware.mujoco_simulation import MujocoSimulation
from py_controllers.hardware.mujoco_viewer import ViewerThread
from py_controllers.hardware.simulated_component import OneCommandPerJoint, take_commands
from py_controllers.hardware_interface.handle import Handle
from py_controllers.hardware_interface.hardware_component import SystemInterface, initial_value
from py_controllers.hardware_interface.types import (
    RETURN_OK,
    CallbackReturn,
    LifecycleStateId,
    ReturnType,
)

MOVEIT_PLUGIN = 'mujoco_ros2_control/MujocoSystem'  # moveit's: its sensor naming applies
__all__ = ['SIM_MODES', 'MujocoSystem']


class MujocoSystem(OneCommandPerJoint, SystemInterface):
    """A ros2_control system simulated by MuJoCo (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.model: Any = None
        self.sim: MujocoSimulation | None = None
        self.viewer: ViewerThread | None = None
        self._time_base_ns = 0  # added to MuJoCo's time: a new simulation continues the old
        self._last_time_ns = 0  # the last simulation time reported
        self._active = False
        self._claimed: list[str | None] = []  # per joint: the claimed command kind
        self._driving: list[str | None] = []  # per joint: the kind driving it, None: its hold
        self._feeds: list[tuple[int, Handle]] = []  # (joint index, claimed command handle)

    # --- the description ----------------------------------------------------------------
    def on_init(self, info: Any) -> CallbackReturn:
        """Load the model and map every joint and sensor onto it; ERROR naming what misfits."""
        super().on_init(info)
        try:
            self._configure_from(info)
        except ValueError as exc:  # MujocoModelError included
            self._log().error(str(exc))
            return CallbackReturn.ERROR
        return CallbackReturn.SUCCESS

    def _configure_from(self, info: Any) -> None:
        hw = dict(info.hardware_parameters)
        where = f"hardware '{info.name}'"
        params = parse_params(hw, [j.name for j in info.joints], where)
        self.model = load_model(params.model_path)
        self.sim_mode = params.sim_mode
        self.realtime_factor = params.realtime_factor
        self.max_substeps = params.max_substeps
        self.viewer_requested = params.viewer
        self._keyframe = -1
        if params.initial_keyframe:
            name = params.initial_keyframe
            self._keyframe = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_KEY, name)
            if self._keyframe < 0:
                raise MujocoModelError(f"{where}: the MuJoCo model has no keyframe '{name}'")
        self._start_state = params.start_state
        if self._start_state is not None:
            check_start_state(self.model, self._start_state, where)
        self.pushes: list[PushBinding] = [
            bind_push(self.model, g) for g in getattr(info, 'gpios', None) or []
        ]
        self.bindings: list[JointBinding] = [
            bind_joint(self.model, j, joint_params(j, params.joint_gains)) for j in info.joints
        ]
        moveit = getattr(info, 'plugin', '') == MOVEIT_PLUGIN
        self.readings: list[SensorReading] = [
            r
            for s in getattr(info, 'sensors', None) or []
            for r in bind_sensor(self.model, s, hw, moveit_sensor(s.name) if moveit else None)
        ]
        self._initial_positions = {}
        for i, joint in enumerate(info.joints):
            for interfaces in (joint.state_interfaces, joint.command_interfaces):
                itf = next((x for x in interfaces if x.name == 'position'), None)
                value = math.nan if itf is None else initial_value(itf.initial_value, joint.name)
                if not math.isnan(value):
                    self._initial_positions[i] = value
                    break
        self._check_initial_values(where)
        timestep = float(self.model.opt.timestep)
        self.timestep_ns = round(timestep * 1e9)
        if self.timestep_ns <= 0:
            raise ValueError(f'{where}: the model timestep {timestep} s is too small')

    def _check_initial_values(self, where: str) -> None:
        """A joint's initial_value must agree with initial_keyframe or the start file."""
        if self._keyframe >= 0:
            qpos, source = self.model.key_qpos[self._keyframe], 'initial_keyframe'
        elif self._start_state is not None:
            qpos, source = self._start_state['qpos'], 'override_start_position_file'
        else:
            return
        for i, value in self._initial_positions.items():
            b = self.bindings[i]
            problem = start_conflict(b.name, value, float(qpos[b.qpos_adr]), source)
            if problem:
                raise ValueError(f'{where}: {problem}')

    # --- lifecycle ----------------------------------------------------------------------
    def on_configure(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Make the simulation at its initial state, resolve every handle once."""
        self.sim = MujocoSimulation(self.model, self.bindings)
        self.sim.reset(self._initial_positions, self._keyframe, self._start_state)
        self._continue_time(self._last_time_ns)
        self._active = False
        self._owed_ns = 0
        self._owed_steps = 0.0
        self._wall_ns: int | None = None
        self._index = {b.name: i for i, b in enumerate(self.bindings)}
        self._claimed = [None] * len(self.bindings)
        self._driving = [None] * len(self.bindings)
        self._feeds = []
        readers = {
            'position': self.sim.position,
            'velocity': self.sim.velocity,
            'effort': self.sim.effort,
            'force': self.sim.effort,  # upstream's names of the effort
            'torque': self.sim.effort,
            'acceleration': self.sim.acceleration,
        }
        self._joint_outputs = [
            (handle, readers[kind], i)
            for i, b in enumerate(self.bindings)
            for kind in readers
            if (handle := self.state_interfaces.get(f'{b.name}/{kind}')) is not None
        ]
        self._sensor_outputs = [(self.state_interfaces[r.interface], r) for r in self.readings]
        # (xfrc_applied row, column, command handle, its state mirror or None)
        self._pushes = [
            (
                self.sim.data.xfrc_applied[p.body_id],
                column,
                self.command_interfaces[f'{p.name}/{axis}'],
                self.state_interfaces.get(f'{p.name}/{axis}'),
            )
            for p in self.pushes
            for axis, column in p.axes
        ]
        self._publish()
        if self.viewer_requested:
            self._open_viewer()
        return CallbackReturn.SUCCESS

    def on_cleanup(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Close the viewer and drop the simulation."""
        self._close_viewer()
        self.sim = None
        return CallbackReturn.SUCCESS

    def on_shutdown(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Close the viewer."""
        self._close_viewer()
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Let the claimed command interfaces drive their joints."""
        self._active = True
        self._wall_ns = None
        self._sync_drives()
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Every joint back on its hold, bumpless (as on a release); pushes off."""
        self._active = False
        if self.sim is not None:
            self.sim.data.xfrc_applied[:] = 0.0
        self._sync_drives()
        return CallbackReturn.SUCCESS

    # --- command modes ----------------------------------------------------------------
    def _commandable(self, i: int, kind: str) -> bool:
        return kind in self.bindings[i].drives

    def perform_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        """Drive each joint by its newly claimed kind; a released joint goes back to its
        hold (see the module docstring)."""
        try:
            self._claimed = self._claims_after(start_interfaces, stop_interfaces)
        except ValueError as exc:
            self.log_rt('error', str(exc))
            return ReturnType.ERROR
        self._sync_drives()
        return ReturnType.OK

    def _sync_drives(self) -> None:
        """Each joint on the drive of its claim while active, else on its hold drive; a
        joint whose drive changes takes over bumplessly. Then the feeds write() takes."""
        sim = self.sim
        for i, claimed in enumerate(self._claimed):
            wanted = claimed if self._active else None
            if sim is None or wanted == self._driving[i]:
                continue
            if wanted is None:
                sim.release(i)
            else:
                sim.set_drive(i, wanted)
            self._driving[i] = wanted
        self._feeds = [
            (i, self.command_interfaces[f'{self.bindings[i].name}/{kind}'])
            for i, kind in enumerate(self._driving)
            if kind is not None
        ]

    # --- the loop -----------------------------------------------------------------------
    def write(self, time: Any, period: Any) -> ReturnType:
        """Take the claimed commands as the joints' targets (while active)."""
        active = self._active and self.sim is not None
        if active and not take_commands(self._feeds, self.sim.target, self.log_rt):
            return ReturnType.ERROR
        if active:
            for row, column, command, _ in self._pushes:
                value = command.value
                row[column] = value if math.isfinite(value) else 0.0
        return RETURN_OK

    def read(self, time: Any, period: Any) -> ReturnType:
        """Advance the physics by `period` (or the wall time) and report the new states."""
        sim = self.sim
        if sim is None:
            return ReturnType.ERROR
        steps = self._steps_for(period)
        before_s = sim.data.time
        viewer = self.viewer
        if viewer is not None:  # its thread copies the state under this lock
            with viewer.lock:
                sim.step(steps)
        else:
            sim.step(steps)
        if sim.diverged and sim.take_divergences():
            ran_ns = round(before_s * 1e9) + steps * self.timestep_ns
            self._continue_time(self._time_base_ns + ran_ns)
            self.log_rt('error', 'the MuJoCo simulation diverged (bad acceleration) and was reset')
            return ReturnType.ERROR
        self._publish()
        return RETURN_OK

    def _steps_for(self, period: Any) -> int:
        """Physics steps for this read(), at most max_substeps."""
        if self.sim_mode == 'realtime':
            now_ns = time.monotonic_ns()
            elapsed_ns = 0 if self._wall_ns is None else now_ns - self._wall_ns
            self._wall_ns = now_ns
            self._owed_steps += elapsed_ns * self.realtime_factor / self.timestep_ns
            steps = int(self._owed_steps)
            self._owed_steps -= steps
        else:
            nanoseconds = getattr(period, 'nanoseconds', None)
            period_ns = round(period * 1e9) if nanoseconds is None else int(nanoseconds)
            self._owed_ns += period_ns
            steps = max(0, (self._owed_ns + self.timestep_ns // 2) // self.timestep_ns)
            self._owed_ns -= steps * self.timestep_ns
        if steps > self.max_substeps:  # a stall: drop what is past the cap
            self._owed_ns = self._owed_steps = 0
            steps = self.max_substeps
        return steps

    def _publish(self) -> None:
        for handle, reader, i in self._joint_outputs:
            handle.value = reader(i)
        sim = self.sim
        for handle, reading in self._sensor_outputs:
            handle.value = sim.sensor(reading)
        for row, column, _, mirror in self._pushes:
            if mirror is not None:
                mirror.value = float(row[column])

    # --- simulated time and the viewer ------------------------------------------------
    def simulation_time_ns(self) -> int:
        """Simulated time in ns, the manager's clock with use_sim_time. It never goes
        backwards: a simulation made anew (configured again, reset after diverging)
        continues from the last time reported, and without one the last time stands."""
        sim = self.sim
        if sim is None:
            return self._last_time_ns
        now_ns = self._time_base_ns + round(sim.data.time * 1e9)
        if now_ns < self._last_time_ns:  # a reset the rebasing below did not see
            self._time_base_ns += self._last_time_ns - now_ns
            now_ns = self._last_time_ns
        self._last_time_ns = now_ns
        return now_ns

    def _continue_time(self, from_ns: int) -> None:
        """Count the fresh simulation's time on from `from_ns` (after a reset)."""
        self._time_base_ns = from_ns - round(self.sim.data.time * 1e9)
        self._last_time_ns = max(self._last_time_ns, from_ns)

    def _open_viewer(self) -> None:
        try:
            self.viewer = ViewerThread(self.model, self.sim.data)
        except Exception as exc:  # no display, no GL, no mjpython on macOS, ...
            name = self.info.name if self.info is not None else 'MujocoSystem'
            self._log().warning(
                f"hardware '{name}': viewer requested but it cannot open ({exc}); running headless"
            )
            self.viewer = None

    def _close_viewer(self) -> None:
        if self.viewer is not None:
            self.viewer.close()
            self.viewer = None

    def _log(self) -> Any:
        return self.logger if self.logger is not None else logging.getLogger(__name__)
