"""Hold on release, timed on every path for every hardware kind: a joint whose claim ends
holds where it is (an arm, < 5 mrad over the next 3 s) or brakes to rest (a wheel).

Paths: deactivate (switch_controller), unspawn (`unspawner`), error (a
FaultInjectionController holding the joints fails: update() returns ERROR), fallback (the
same with `fallback_controllers`: a JointGroupPositionController takes the arm over, holding
it where the release left it; the diff drive controller takes the base over) and
shutdown (SIGINT). Kinds: SimulatedSystem (the demo arm) and DiffBotSystem (the demo
base) in one demo robot, MujocoSystem (arm6, use_sim_time) in another. An arm is taken to
0.6 rad on every joint (gravity on the shoulder and the elbow) and settled, a base rolls
at 0.5 m/s; then the claim ends and the joint states of the next 3 s are the figure.
Shutdown ends the process: its figure is the component's record (faults.recording): the
commands of its last write() and its joints stepped 3 s further on its own hold.
"""

from __future__ import annotations

import signal
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from faults.common import Row
from faults.messages import ARM
from faults.recording import read_record
from faults.release_rig import (
    LIMIT_MRAD,
    POSE_RAD,
    WHEEL_SPEED,
    WHEELS,
    Motion,
    ReleaseRobot,
    release_robot,
)
from py_controllers.testing import CONFIG

PATHS = ['deactivate', 'unspawn', 'error', 'fallback', 'shutdown']


@dataclass
class Part:
    """One hardware kind on the robot, the controller that claims it, the failing
    FaultInjectionControllers standing in for it on the error and fallback paths."""

    kind: str
    component: str
    controller: str
    joints: list[str]

    @property
    def fic(self) -> str:
        return f'fic_{self.controller}'

    @property
    def fic_fb(self) -> str:
        return f'fic_{self.controller}_fb'

    @property
    def arm(self) -> bool:
        return self.joints == ARM

    @property
    def holder(self) -> str:
        """The fallback of `fic_fb`: a position hold for an arm, the controller itself for a
        base (an arm's effort controller would start its PID with an empty integral)."""
        return f'hold_{self.controller}' if self.arm else self.controller


SIM_ARM = Part('SimulatedSystem (demo arm)', 'ArmSystem', 'arm_controller', ARM)
DIFFBOT = Part('DiffBotSystem (demo base)', 'DiffBot', 'diff_drive_controller', WHEELS)
MUJOCO_ARM = Part('MujocoSystem (arm6, use_sim_time)', 'MujocoArm6', 'arm_controller', ARM)


def fic_yaml(parts: list[Part]) -> str:
    """A FaultInjectionController per part holding its joints (the arm at POSE in
    position, the wheels at WHEEL_SPEED), and one more whose fallback is the part's
    own controller."""
    types, params = [], []
    for p in parts:
        interfaces = [f'{j}/position' if p.arm else f'{j}/velocity' for j in p.joints]
        value = POSE_RAD if p.arm else WHEEL_SPEED
        types.append(f'    {p.fic}: {{type: py_controllers/FaultInjectionController}}')
        types.append(
            f'    {p.fic_fb}: {{type: py_controllers/FaultInjectionController, '
            f'fallback_controllers: [{p.holder}]}}'
        )
        if p.holder != p.controller:
            types.append(
                f'    {p.holder}: {{type: position_controllers/JointGroupPositionController}}'
            )
            params.append(f'{p.holder}:\n  ros__parameters:\n    joints: [{", ".join(p.joints)}]')
        for name in (p.fic, p.fic_fb):
            params.append(
                f'{name}:\n  ros__parameters:\n'
                f'    command_interfaces: [{", ".join(interfaces)}]\n    value: {value}'
            )
    return 'controller_manager:\n  ros__parameters:\n' + '\n'.join(types) + '\n' + '\n'.join(params)


class Releases:
    """The five paths on one robot, in order, each a Motion per part (shutdown: a record)."""

    def __init__(self, rig: ReleaseRobot, parts: list[Part], rows: dict[tuple[str, str], Row]):
        self.rig, self.parts, self.rows = rig, parts, rows
        self.robot = rig.robot

    def fail(self, path: str, why: str) -> None:
        for p in self.parts:
            self.rows[p.kind, path].fail(why)

    def not_set_up(self, path: str, why: str) -> None:
        for p in self.parts:
            self.rows[p.kind, path].not_set_up(why)

    def ready(self, path: str, claimants: list[str]) -> bool:
        """The arm settled at POSE (through its goal when the arm controller holds it),
        the base rolling: `claimants` are the controllers holding the parts now."""
        for p in self.parts:
            if p.arm and p.controller in claimants and not self.rig.to_pose():
                self.not_set_up(path, 'the arm did not reach the pose')
                return False
            if p.arm and not self.rig.settled(ARM):
                self.not_set_up(path, 'the arm did not settle')
                return False
            if not p.arm:
                self.rig.driving = p.controller in claimants
                if not self.rig.rolling():
                    self.not_set_up(path, 'the base did not roll')
                    return False
        return True

    def measure(self, path: str, let_go: Callable[[], bool]) -> None:
        motion = self.rig.release(let_go)
        if motion is None:
            self.fail(path, 'the release did not happen, or the joint states stopped')
            return
        for p in self.parts:
            judge(self.rows[p.kind, path], p, motion)

    def switch(self, activate: list[str], deactivate: list[str]) -> bool:
        result = self.robot.switch(activate, deactivate)
        return result is not None and result[0]

    def run(self) -> None:
        controllers = [p.controller for p in self.parts]
        fics = [p.fic for p in self.parts]
        fallbacks = [p.fic_fb for p in self.parts]
        holders = [p.holder for p in self.parts]
        if self.ready('deactivate', controllers):
            self.measure('deactivate', lambda: self.switch([], controllers))
        if self.switch(controllers, []) and self.ready('unspawn', controllers):
            self.measure('unspawn', lambda: self.rig.tool('unspawner', *controllers))
        if not self.rig.tool('spawner', *controllers, '--inactive'):
            self.fail('unspawn', 'the controllers could not be spawned again')
        if not self.switch(fics, []):
            self.not_set_up('error', 'the failing controllers could not be activated')
        elif self.ready('error', fics):
            self.measure('error', lambda: self.rig.fail(fics))
        if not self.switch(fallbacks, []):
            self.not_set_up('fallback', 'the controllers with fallbacks could not be activated')
        elif self.ready('fallback', fallbacks):
            self.rig.driving = False  # the diff drive takes over with no cmd_vel: stop
            self.measure('fallback', lambda: self.rig.fail(fallbacks))
            self.robot.expect_states(self.rows[self.parts[0].kind, 'fallback'], {
                **dict.fromkeys(holders, 'active'), **dict.fromkeys(fallbacks, 'inactive')
            })  # fmt: skip
        standing_in = [h for h in holders if h not in controllers]
        if standing_in and not self.switch(
            [p.controller for p in self.parts if p.arm], standing_in
        ):
            self.not_set_up('shutdown', 'the arm controller could not take over from its hold')
        elif self.ready('shutdown', controllers):
            self.shutdown()

    def shutdown(self) -> None:
        process = self.robot.proc.process
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(20.0)
        except subprocess.TimeoutExpired:
            code = None
        for p in self.parts:
            row = self.rows[p.kind, 'shutdown']
            if code != 0:
                row.crashes += code is not None
                row.fail(f'exit status {code}')
            judge_record(row, p, read_record(self.rig.records, p.component))


def judge(row: Row, part: Part, motion: Motion) -> None:
    """An arm: every joint within LIMIT_MRAD of where it was held; a wheel: at rest."""
    row.sent += 1
    moved = motion.moved(part.joints)
    worst = max(moved, key=moved.get)
    if part.arm:
        mrad = moved[worst] * 1000.0
        row.note(f'{mrad:.2f} mrad max ({worst}) in 3 s')
        if mrad >= LIMIT_MRAD:
            row.fail(f'moved {mrad:.1f} mrad >= {LIMIT_MRAD:g}')
        return
    rolled, rest = motion.braking(part.joints, WHEEL_SPEED)
    row.note(f'rolled {rolled:.3f} rad from full speed')
    if rest is None:
        row.after_stop = (row.after_stop or 0) + 1
        row.fail(f'still rolling at {motion.final_speed(part.joints):.3f} rad/s after 3 s')
    else:
        row.note(f'at rest in {rest:.2f} s')


def judge_record(row: Row, part: Part, record: dict) -> None:
    """The shutdown's figure: what the component was last told, and its joints over 3 s
    stepped further on its own hold."""
    row.sent += 1
    if not record:
        row.fail('no record of the shutdown')
        return
    last = record['last_write']
    moved = {j: record['moved'][j] for j in part.joints}
    worst = max(moved, key=moved.get)
    if part.arm:
        mrad = moved[worst] * 1000.0
        efforts = [last.get(f'{j}/effort') for j in part.joints]
        row.note(f'{mrad:.2f} mrad max ({worst}) in 3 s on its hold after exit 0')
        row.note(f'last write: effort {sorted(set(efforts))}')
        if mrad >= LIMIT_MRAD:
            row.fail(f'moved {mrad:.1f} mrad >= {LIMIT_MRAD:g}')
        return
    commands = [last.get(f'{j}/velocity') for j in part.joints]
    moving = [v for v in commands if v != 0.0]
    row.after_stop = (row.after_stop or 0) + len(moving)
    speed = max(abs(v) for v in record['velocities'].values())
    row.note(f'last write: velocity {sorted(set(commands))}; rolled {moved[worst]:.3f} rad')
    if speed >= 0.01:
        row.fail(f'still rolling at {speed:.3f} rad/s 3 s after exit')


def robot_rows(parts: list[Part], rows: list[Row]) -> dict[tuple[str, str], Row]:
    table = {}
    for p in parts:
        for path in PATHS:
            what = 'joint motion in 3 s (< 5 mrad)' if p.arm else 'wheel brakes to rest'
            row = Row(p.kind, f'released by {path}: {what}', measured=False, after_stop=0)
            table[p.kind, path] = row
            rows.append(row)
    return table


def run(rows: list[Row]) -> None:
    demo = [SIM_ARM, DIFFBOT]
    robots = [
        (
            demo,
            CONFIG / 'demo_robot.urdf',
            CONFIG / 'demo_controllers.yaml',
            ['py_controllers/SimulatedSystem', 'py_controllers/DiffBotSystem'],
            {},
        ),
        (
            [MUJOCO_ARM],
            CONFIG / 'mujoco' / 'arm6.urdf',
            CONFIG / 'mujoco_arm_controllers.yaml',
            ['py_controllers/MujocoSystem'],
            {'use_sim_time': 'true'},
        ),
    ]
    for parts, urdf, params_file, plugins, params in robots:
        table = robot_rows(parts, rows)
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / 'fic.yaml').write_text(fic_yaml(parts))
            controllers = ['joint_state_broadcaster', *[p.controller for p in parts]]
            inactive = [name for p in parts for name in (p.fic, p.fic_fb)]
            inactive += [p.holder for p in parts if p.holder != p.controller]
            with release_robot(
                folder,
                urdf,
                [params_file, folder / 'fic.yaml'],
                plugins,
                controllers,
                inactive,
                params=params,
                base=any(not p.arm for p in parts),
            ) as rig:
                Releases(rig, parts, table).run()
