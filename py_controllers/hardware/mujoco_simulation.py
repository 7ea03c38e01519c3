"""A MuJoCo model stepped with the drives of `mujoco_model` (no ROS here).

Every bound joint has one active drive at a time (see `mujoco_model`) and a target in
joint units. Native drives put their target into the actuator's `ctrl` (or into
`qfrc_applied`) before the steps; servos compute their output at every physics step:

    position servo   out = p (q* - q) + i integral(q* - q) dt - d dq/dt
    velocity servo   out = p (v* - v) + i integral(v* - v) dt

with the integral clamped to +-i_clamp. Every change of a joint's drive or target (a hold,
a claim starting, a release) is bumpless: the new drive is aimed at standing still (where
the joint is now, or velocity/effort 0) and a servo's integral starts where its output
equals what the actuator was applying (i integral = that output, within i_clamp; 0 before
anything applied a force, or without i). So a servo taking over from an effort drive that
held an arm against gravity carries the load from its first step instead of letting the
arm sag until its integral has grown, and the integral then keeps correcting as it does
before any claim. To release a joint is to go back to its hold drive (the one it uses
before any claim) in that way.
"""

from __future__ import annotations

from typing import Any

import mujoco

from py_controllers.hardware.mujoco_model import (
    EFFORT,
    POSITION,
    QFRC_APPLIED,
    Drive,
    JointBinding,
    SensorReading,
)


class MujocoSimulation:
    """MjData for `model`, the bound joints' drives and targets, and fixed-step stepping."""

    def __init__(self, model: Any, joints: list[JointBinding]) -> None:
        self.model = model
        self.data = mujoco.MjData(model)
        self.joints = joints
        self.drive: list[Drive | None] = [j.hold_drive for j in joints]
        self.target = [0.0] * len(joints)
        self.integral = [0.0] * len(joints)
        self._servos: list[int] = []
        self._refresh()

    # --- state -----------------------------------------------------------------------
    def reset(
        self,
        positions: dict[int, float],
        keyframe: int = -1,
        state: dict[str, list[float]] | None = None,
    ) -> None:
        """Back to the model's (or keyframe's, or `state`'s qpos/qvel/ctrl) initial state,
        `positions` (joint index -> value) applied on top, every joint holding there."""
        if keyframe >= 0:
            mujoco.mj_resetDataKeyframe(self.model, self.data, keyframe)
        else:
            mujoco.mj_resetData(self.model, self.data)
        for name, values in (state or {}).items():
            getattr(self.data, name)[:] = values
        for i, value in positions.items():
            self.data.qpos[self.joints[i].qpos_adr] = value
        mujoco.mj_forward(self.model, self.data)
        for i in range(len(self.joints)):
            self.hold(i)
        self._apply_native()

    def position(self, i: int) -> float:
        """Joint `i`'s position."""
        return float(self.data.qpos[self.joints[i].qpos_adr])

    def velocity(self, i: int) -> float:
        """Joint `i`'s velocity."""
        return float(self.data.qvel[self.joints[i].dof_adr])

    def effort(self, i: int) -> float:
        """Joint `i`'s generalized force from its actuator and from `qfrc_applied`."""
        dof = self.joints[i].dof_adr
        return float(self.data.qfrc_actuator[dof] + self.data.qfrc_applied[dof])

    def acceleration(self, i: int) -> float:
        """Joint `i`'s acceleration in the last step."""
        return float(self.data.qacc[self.joints[i].dof_adr])

    def sensor(self, reading: SensorReading) -> float:
        """The value of one sensor state interface."""
        return reading.scale * float(self.data.sensordata[reading.address])

    @property
    def time_s(self) -> float:
        """Simulated time, s."""
        return float(self.data.time)

    @property
    def diverged(self) -> int:
        """How often MuJoCo reset the data after a bad acceleration (instability) since the
        last `take_divergences`."""
        return int(self.data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number)

    def take_divergences(self) -> int:
        """The divergences counted so far, the counter back at 0: MuJoCo's reset leaves it
        at 1 after each one, so comparing with the last count would miss the second."""
        warning = self.data.warning[mujoco.mjtWarning.mjWARN_BADQACC]
        count = int(warning.number)
        warning.number = 0
        return count

    # --- drives ----------------------------------------------------------------------
    def hold(self, i: int) -> None:
        """Aim joint `i`'s drive at standing still: here (position) or 0; bumpless."""
        self._take_over(i, self.drive[i])

    def release(self, i: int) -> None:
        """Joint `i` back on its hold drive (as before any claim), aimed at standing still."""
        self._take_over(i, self.joints[i].hold_drive)

    def set_drive(self, i: int, kind: str) -> None:
        """Drive joint `i` by its `kind` command from now on, starting with a hold."""
        self._take_over(i, self.joints[i].drives[kind])

    def _take_over(self, i: int, drive: Drive | None) -> None:
        """`drive` drives joint `i` from now on, aimed at standing still; a servo's integral
        starts where its output is what the actuator applies now, so nothing jumps."""
        old = self.drive[i]
        gains = drive.gains if drive is not None else None
        integral = 0.0
        if gains is not None and gains.i != 0.0 and _same_output(old, drive):
            integral = self.applied(i, old) / gains.i
            integral = min(max(integral, -gains.i_clamp), gains.i_clamp)
        self.drive[i] = drive
        self.target[i] = self.position(i) if drive and drive.kind == POSITION else 0.0
        self.integral[i] = integral
        self._refresh()

    def applied(self, i: int, drive: Drive) -> float:
        """What `drive` puts on joint `i` now, in its output's joint units (effort: the
        generalized force after MuJoCo's ctrl and force ranges)."""
        if drive.actuator == QFRC_APPLIED:
            return float(self.data.qfrc_applied[self.joints[i].dof_adr])
        if drive.output == EFFORT:
            return float(self.data.actuator_force[drive.actuator]) * drive.gear
        return float(self.data.ctrl[drive.actuator]) / drive.gear

    def _refresh(self) -> None:
        self._servos = [i for i, d in enumerate(self.drive) if d is not None and d.gains]

    def _put(self, i: int, drive: Drive, value: float) -> None:
        if drive.actuator == QFRC_APPLIED:
            self.data.qfrc_applied[self.joints[i].dof_adr] = value
        else:
            self.data.ctrl[drive.actuator] = drive.to_ctrl(value)

    def _apply_native(self) -> None:
        for i, drive in enumerate(self.drive):
            if drive is not None and drive.gains is None:
                self._put(i, drive, self.target[i])

    def _apply_servos(self, dt_s: float) -> None:
        data = self.data
        for i in self._servos:
            drive = self.drive[i]
            gains = drive.gains
            joint = self.joints[i]
            velocity = data.qvel[joint.dof_adr]
            if drive.kind == POSITION:
                error = self.target[i] - data.qpos[joint.qpos_adr]
                damping = gains.d * velocity
            else:
                error = self.target[i] - velocity
                damping = 0.0
            integral = self.integral[i] + error * dt_s
            integral = min(max(integral, -gains.i_clamp), gains.i_clamp)
            self.integral[i] = integral
            self._put(i, drive, gains.clamp(gains.p * error + gains.i * integral - damping))

    def step(self, steps: int) -> None:
        """Advance `steps` physics steps with the current targets."""
        if steps <= 0:
            return
        self._apply_native()
        if not self._servos:
            mujoco.mj_step(self.model, self.data, nstep=steps)
            return
        dt_s = float(self.model.opt.timestep)
        for _ in range(steps):
            self._apply_servos(dt_s)
            mujoco.mj_step(self.model, self.data)


def _same_output(old: Drive | None, new: Drive | None) -> bool:
    """Whether `new` drives the same actuator with the same kind of output as `old`."""
    if old is None or new is None:
        return False
    return old.actuator == new.actuator and old.output == new.output
