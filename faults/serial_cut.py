"""The serial cable of an Arduino base cut and restored K times while it drives
(`py_controllers/ArduinoDiffDriveSystem` on a pseudo-terminal served by PtyFirmware). After
each cut the diff drive controller must go inactive and the node carry on; after each
restore, set_hardware_component_state active + switch bring it back and odometry moves.
Between the two, the board must not be told to move: that would be a command after stop."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry

from faults.common import Robot, Row, running
from faults.messages import Latest, twist
from faults.robots import arduino_robot
from py_controllers.hardware.firmware_simulator import PtyFirmware
from py_controllers.testing import CONFIG

CONTROLLERS = ['joint_state_broadcaster', 'diff_drive_controller']
ODOM = '/diff_drive_controller/odom'


class Base:
    """The base driven at 0.2 m/s from a timer, and its odometry."""

    def __init__(self, robot: Robot) -> None:
        self.robot = robot
        self.odom = Latest(robot.node, Odometry, ODOM)
        self.pub = robot.node.create_publisher(TwistStamped, '/diff_drive_controller/cmd_vel', 10)
        self.driving = False
        robot.node.create_timer(0.05, self._tick)

    def _tick(self) -> None:
        if self.driving:
            self.pub.publish(twist(0.2, 0.0, self.robot.node.get_clock().now().nanoseconds))

    def x(self) -> float | None:
        return None if self.odom.msg is None else self.odom.msg.pose.pose.position.x

    def moves(self, distance: float = 0.05, timeout_s: float = 10.0) -> bool:
        """Odometry advances by `distance` while driving."""
        self.robot.wait(lambda: self.x() is not None, timeout_s)
        start = self.x()
        return start is not None and self.robot.wait(
            lambda: (x := self.x()) is not None and x - start > distance, timeout_s
        )


def idle_targets(robot: Robot, board: PtyFirmware, seconds: float) -> list[list[int]]:
    """Motor targets the board received that were not 0 during `seconds`."""
    seen = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        targets = board.state().targets
        if any(targets):
            seen.append(targets)
        robot.spin(0.02)
    return seen


def cut_and_restore(robot: Robot, base: Base, board: PtyFirmware, device: Path, row: Row):
    """One cut and one restore; returns the new board."""
    states = robot.controller_states
    board.unplug()
    if not robot.poll(lambda: (states() or {}).get('diff_drive_controller') == 'inactive', 10.0):
        row.fail('diff_drive_controller still active after the cable was cut')
    if not robot.poll(
        lambda: (robot.hardware_states() or {}).get('DiffBot') == 'unconfigured', 10.0
    ):
        row.fail(f'DiffBot is {robot.hardware_states()} after the cut, not unconfigured')
    board = PtyFirmware(link=device)
    if robot.set_hardware('DiffBot', 'active') != (True, 'active'):
        row.fail('set_hardware_component_state DiffBot active failed after the restore')
    moving = idle_targets(robot, board, 0.3)  # the base is commanded, no controller is active
    if moving:
        row.after_stop = (row.after_stop or 0) + 1
        row.note(f'board told to move {moving[0]} before any controller was active')
    # a failed component takes out only the controllers that command it (the broadcaster
    # stays active): bring back what went down
    down = [n for n in CONTROLLERS if (states() or {}).get(n) != 'active']
    switched = robot.switch(down, [])
    if switched is None or not switched[0]:
        row.fail(f'switch after the restore failed: {switched}')
    robot.expect_states(row, {name: 'active' for name in CONTROLLERS})
    if not base.moves():
        row.fail('odometry does not move after the restore')
    return board


def run(k: int, rows: list[Row]) -> None:
    row = Row('ArduinoDiffDriveSystem on a pty', f'cable cut and restored x{k}', after_stop=0)
    with tempfile.TemporaryDirectory() as tmp:
        device = Path(tmp) / 'ttyARDUINO'
        urdf = Path(tmp) / 'arduino.urdf'
        urdf.write_text(arduino_robot(str(device)))
        board = PtyFirmware(link=device)
        try:
            files = [CONFIG / 'diffbot_controllers.yaml']
            with running(files, urdf, CONTROLLERS) as robot:
                base = Base(robot)
                base.driving = True
                if not base.moves():
                    row.fail('the base does not move before the first cut')
                mark = robot.mark()
                for _ in range(k):
                    with robot.batch(row):
                        row.sent += 1
                        board = cut_and_restore(robot, base, board, device, row)
                base.driving = False
                row.logs = len(robot.log_lines(mark, levels=('ERROR',)))
        finally:
            board.unplug()
    rows.append(row)
