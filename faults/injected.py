"""Faults injected while the robot moves: hardware read()/write() returning ERROR, raising,
returning nonsense or DEACTIVATE; a controller's update() raising, returning ERROR or
nonsense. The manager must take out exactly the controllers concerned, stop what they
commanded (the hardware's next write() carries 0 velocity), keep the rest running, and
let everything be brought back over ROS. Deaths of the loop and signals: shutdown.py."""

from __future__ import annotations

from std_msgs.msg import UInt8

from faults import shutdown
from faults.common import Row, cycle
from faults.fault_rig import ALL_ACTIVE, CONTROLLERS, SPEED, FaultRig, fault_rig
from faults.topics import topic_row
from py_controllers.controllers.fault_injection.controller import CODES

COMMANDING_ARM = ['velocity_controller', 'read_trigger', 'write_trigger']

# A failed component takes out only the controllers that command it: the joint state
# broadcaster (reading 'Arm' and 'Aux') keeps publishing the healthy one.
HARDWARE_FAULTS: list[tuple[str, float, str, str, list[str]]] = [
    # (where, gpio code, kind, component state afterwards, controllers taken out)
    ('read', 1.0, 'read() returns ERROR', 'unconfigured', COMMANDING_ARM),
    ('read', 2.0, 'read() raises', 'unconfigured', COMMANDING_ARM),
    ('read', 3.0, 'read() returns nonsense', 'unconfigured', COMMANDING_ARM),
    ('write', 1.0, 'write() returns ERROR', 'unconfigured', COMMANDING_ARM),
    ('write', 2.0, 'write() raises', 'unconfigured', COMMANDING_ARM),
    ('write', 3.0, 'write() returns nonsense', 'unconfigured', COMMANDING_ARM),
    ('write', 5.0, 'write() returns DEACTIVATE', 'inactive', COMMANDING_ARM),
]

CONTROLLER_FAULTS = [
    (1, 'update() raises'),
    (2, 'update() returns ERROR'),
    (3, 'update() returns nonsense'),
]


def bring_back(rig: FaultRig, row: Row) -> None:
    """Everything active again (hardware first), j1 and j2 moving at 1.5 rad/s."""
    robot = rig.robot
    for component, state in (robot.hardware_states() or {}).items():
        if state != 'active' and robot.set_hardware(component, 'active') != (True, 'active'):
            row.fail(f"hardware '{component}' could not be activated again")
    states = robot.controller_states() or {}
    inactive = [n for n in CONTROLLERS if states.get(n) != 'active']
    if inactive:
        switched = robot.switch(inactive, [])
        if switched is None or not switched[0]:
            row.fail(f'could not activate {inactive} again: {switched}')
    if not rig.drive():
        row.fail('the robot does not move again after recovery')


def stopped_while_idle(rig: FaultRig, row: Row) -> None:
    """Commands after stop: bring 'Arm' up with no controller on it and let it run a few
    cycles, then deactivate it (it records its last write()): velocities must be 0."""
    robot = rig.robot
    if robot.set_hardware('Arm', 'active') != (True, 'active'):
        row.fail("'Arm' could not be activated after the fault")
        return
    writes = rig.record('Arm').get('writes', 0)
    robot.spin(0.2)
    if robot.set_hardware('Arm', 'inactive') != (True, 'inactive'):
        row.fail("'Arm' could not be deactivated for its record")
        return
    record = rig.record('Arm')
    if record.get('writes', 0) <= writes:
        row.note('no write() while active without controllers')
    moving = rig.moving_after_stop('Arm')
    if moving:
        row.after_stop = (row.after_stop or 0) + 1
        row.note(f'hardware still told {moving} after its controllers were stopped')


def hardware_row(rig: FaultRig, k: int, fault: tuple[str, float, str, str, list[str]]) -> Row:
    where, code, kind, hw_after, taken_out = fault
    robot = rig.robot
    row = Row("FaultInjectionSystem 'Arm' (faults gpio)", f'{kind} x{k}', after_stop=0)
    expected = {n: ('inactive' if n in taken_out else 'active') for n in CONTROLLERS}
    mark = robot.mark()
    for _ in range(k):
        with robot.batch(row):
            bring_back(rig, row)
            row.sent += 1
            if not rig.inject(where, code, lambda: rig.state_is('velocity_controller', 'inactive')):
                row.fail('the fault was not handled: velocity_controller still active')
                continue
            if not robot.poll(lambda: rig.hardware_is('Arm', hw_after), 5.0):
                row.fail(f"'Arm' is {robot.hardware_states()}, not {hw_after}")
            robot.expect_states(row, expected)
            if rig.velocity('j3') != SPEED:
                row.fail(f'fic on the healthy component stopped: j3 at {rig.velocity("j3")}')
            stopped_while_idle(rig, row)
    bring_back(rig, row)
    row.logs = len(robot.log_lines(mark, ['controller_manager'], ('ERROR',)))
    if not row.logs:
        row.note('no error logged')
    return row


def controller_row(rig: FaultRig, k: int, code: int, kind: str) -> Row:
    robot = rig.robot
    row = Row('FaultInjectionController fic (~/fault)', f'{kind} x{k}', after_stop=0)
    expected = {**ALL_ACTIVE, 'fic': 'inactive'}
    mark = robot.mark()
    for _ in range(k):
        with robot.batch(row):
            bring_back(rig, row)
            row.sent += 1
            if not rig.fail_controller(code, lambda: rig.state_is('fic', 'inactive')):
                row.fail('the fault was not handled: fic still active')
                continue
            robot.expect_states(row, expected)
            if not robot.wait(lambda: rig.velocity('j3') == 0.0, 1.0):
                row.after_stop += 1
                row.note(f'j3 still commanded {rig.velocity("j3")} after fic was stopped')
            if rig.velocity('j1') != SPEED:
                row.fail(f'velocity_controller disturbed: j1 at {rig.velocity("j1")}')
    bring_back(rig, row)
    row.logs = len(robot.log_lines(mark, ['controller_manager'], ('ERROR',)))
    return row


def unknown_code_row(rig: FaultRig, n: int) -> Row:
    """Fault codes fic does not know: logged, ignored, fic keeps running. The one past its
    last code follows the controller (5 was unknown until HOLD_GIL took it, and this row
    then held the loop's GIL for good and the backstop ended the manager)."""
    codes = [0, max(CODES) + 1, 255]
    row = Row('/fic/fault', f'unknown fault codes ({", ".join(map(str, codes))})')
    msgs = [UInt8(data=v) for v in cycle(codes, n)]
    bring_back(rig, row)
    topic_row(
        rig.robot,
        row,
        rig.fic_pub,
        msgs,
        loggers=['fic'],
        observe=lambda: (rig.velocity('j3'), rig.velocity('j1')),
        unchanged=lambda a, b: a == b == (SPEED, SPEED),
        expected=ALL_ACTIVE,
    )
    return row


def run(k: int, signals: int, n: int, rows: list[Row]) -> None:
    """Each hardware and controller fault K times on one robot; then the loop deaths and
    the signals, each on a fresh robot."""
    with fault_rig() as rig:
        rows.append(unknown_code_row(rig, n))
        for code, kind in CONTROLLER_FAULTS:
            rows.append(controller_row(rig, k, code, kind))
        for fault in HARDWARE_FAULTS:
            rows.append(hardware_row(rig, k, fault))
    shutdown.run(signals, rows)
