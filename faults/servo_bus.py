"""Serial bus servo arms on the simulated bus, faulted: the cable cut and restored K times, one
servo silent, an overload bit, a servo answering garbage (py_controllers/FeetechSystem on the
SO-101, py_controllers/DynamixelSystem on the OpenManipulator-X, each served by PtyServoBus).

Each fault must take the arm and gripper controllers inactive (the joint state broadcaster
stays: only the controllers commanding the bus go), the hardware unconfigured, with an
ERROR line naming the servo (and the bits); once the fault is gone, set_hardware_component_state
active and a switch bring the controllers back on the same manager. Between the two, no servo
may be sent a goal away from where it stands: that would be a command after stop."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from faults.common import Robot, Row, running
from py_controllers.hardware.servo_bus.arm_files import ARMS, urdf_on_port
from py_controllers.hardware.servo_bus.bus_sim import PtyServoBus
from py_controllers.hardware.servo_bus.sim_arms import make_servos

CONTROLLERS = ['joint_state_broadcaster', 'arm_controller', 'gripper_controller']
COMMANDING = CONTROLLERS[1:]
HARDWARE = {'so101': 'SO101Follower', 'omx': 'OpenManipulatorX'}
STRAY_TICKS = 25  # a goal this far from the present position is a command, not a hold


def goals_away(bus: PtyServoBus) -> list[str]:
    """Servos whose goal is away from where they stand (torque on)."""
    out = []
    for servo in bus.servos.values():
        m = servo.model
        present = round(m.zero_tick + servo.angle * m.ticks_per_rev / 6.283185307179586)
        goal = servo.get(m.goal_position)
        if servo.torque_on and abs(goal - present) > STRAY_TICKS:
            out.append(f'servo {servo.id} goal {goal} at {present}')
    return out


def fault_and_recover(
    robot: Robot,
    row: Row,
    name: str,
    bus: PtyServoBus,
    inject: Callable[[PtyServoBus], PtyServoBus],
    named: str,
) -> PtyServoBus:
    """Inject, check the controllers and the component went down with `named` logged,
    recover (inject returns the bus to use from then on), check they come back."""
    states = robot.controller_states
    mark = robot.mark()
    hardware = HARDWARE[name]
    bus = inject(bus)
    if not robot.poll(lambda: all((states() or {}).get(c) == 'inactive' for c in COMMANDING), 15.0):
        row.fail(f'{COMMANDING} still active after the fault: {states()}')
    if (states() or {}).get('joint_state_broadcaster') != 'active':
        row.fail('the joint state broadcaster went down with the bus')
    if not robot.poll(
        lambda: (robot.hardware_states() or {}).get(hardware) == 'unconfigured', 10.0
    ):
        row.fail(f'{hardware} is {robot.hardware_states()} after the fault, not unconfigured')
    lines = robot.log_lines(mark, levels=('ERROR',))
    if not any(named in line for line in lines):
        row.fail(f"no ERROR line names '{named}': {lines[:3]}")
    row.errors += 1
    row.expected_errors += 1
    bus.silent.clear()
    bus.garbled.clear()
    for servo in bus.servos.values():
        servo.clear_error()
    if robot.set_hardware(hardware, 'active') != (True, 'active'):
        row.fail(f'set_hardware_component_state {hardware} active failed after the repair')
    robot.spin(0.3)
    stray = goals_away(bus)
    if stray:
        row.after_stop = (row.after_stop or 0) + 1
        row.note(f'goals sent before any controller was active: {stray[:2]}')
    switched = robot.switch(COMMANDING, [])
    if switched is None or not switched[0]:
        row.fail(f'switch after the repair failed: {switched}')
    robot.expect_states(row, {c: 'active' for c in CONTROLLERS})
    return bus


def run_arm(name: str, kind: str, k: int, rows: list[Row], inject, named: str) -> None:
    arm = ARMS[name]
    plugin = 'FeetechSystem' if name == 'so101' else 'DynamixelSystem'
    row = Row(f'{plugin} ({name}) on a simulated bus', kind, after_stop=0)
    with tempfile.TemporaryDirectory() as tmp:
        link = Path(tmp) / f'tty{name}'
        urdf = Path(tmp) / f'{name}.urdf'
        urdf.write_text(urdf_on_port(arm, str(link)))
        bus = PtyServoBus(make_servos(arm.sim), link=link)
        try:
            with running([arm.controllers], urdf, CONTROLLERS) as robot:
                mark = robot.mark()
                for _ in range(k):
                    with robot.batch(row):
                        row.sent += 1
                        bus = fault_and_recover(robot, row, name, bus, inject, named)
                row.logs = len(robot.log_lines(mark, levels=('ERROR',)))
        finally:
            bus.unplug()
    rows.append(row)


def _cut(link_of: Callable[[PtyServoBus], Path]):
    def inject(bus: PtyServoBus) -> PtyServoBus:
        link = link_of(bus)
        servos = list(bus.servos.values())
        bus.unplug()
        return PtyServoBus(servos, link=link)  # plugged in again: a new pty behind the link

    return inject


def _silence(servo_id: int):
    def inject(bus: PtyServoBus) -> PtyServoBus:
        bus.silence(servo_id)
        return bus

    return inject


def _overload(servo_id: int):
    def inject(bus: PtyServoBus) -> PtyServoBus:
        bus.servo(servo_id).inject_error(0x20, persistent=False)
        return bus

    return inject


def _garble(servo_id: int):
    def inject(bus: PtyServoBus) -> PtyServoBus:
        bus.garble(servo_id)
        return bus

    return inject


def run(k: int, rows: list[Row]) -> None:
    run_arm(
        'so101',
        f'cable cut and restored x{k}',
        k,
        rows,
        _cut(lambda b: b.link),
        "hardware 'SO101Follower'",
    )
    run_arm('so101', 'one servo silent (id 3)', 1, rows, _silence(3), 'servo 3')
    run_arm('omx', 'overload bit (servo 12)', 1, rows, _overload(12), 'overload (bit 5)')
    run_arm('omx', 'a servo answering garbage (id 13)', 1, rows, _garble(13), 'servo 13')
