"""ROSArduinoBridge: the protocol, the firmware simulator, and the component on a real pty."""

import math
import os
import select
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import serial

from py_controllers.hardware.arduino_diffdrive_system import ArduinoDiffDriveSystem
from py_controllers.hardware.arduino_protocol import (
    ArduinoLink,
    PidGains,
    ProtocolError,
    parse_encoders,
    ticks_per_frame,
)
from py_controllers.hardware.firmware_simulator import BridgeFirmware, PtyFirmware
from py_controllers.hardware_interface.component_lifecycle import ManagedComponent
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.types import LifecycleStateId, ReturnType
from py_controllers.robot_description import swap_hardware
from py_controllers.testing import CONFIG

S = LifecycleStateId
COUNTS_PER_REV = 1000
LOOP_RATE = 30
LOADED_HOST_TIMEOUT_S = 5.0
"""Serial timeout of the tests that are not about timeouts: on a host with every core busy
a reply took over 1 s (h33: upstream's 1 s `timeout_ms` ran out while configuring)."""


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


# --- protocol ---------------------------------------------------------------------------
def test_ticks_per_frame_converts_rad_per_s():
    # one revolution per second = 1000 counts/s = 33.3 per frame at 30 Hz
    assert ticks_per_frame(2 * math.pi, COUNTS_PER_REV, LOOP_RATE) == 33
    assert ticks_per_frame(-2 * math.pi, COUNTS_PER_REV, LOOP_RATE) == -33
    assert ticks_per_frame(math.nan, COUNTS_PER_REV, LOOP_RATE) == 0
    assert ticks_per_frame(math.inf, COUNTS_PER_REV, LOOP_RATE) == 0


@pytest.mark.parametrize('reply', ['', '12', '1 2 3', 'a b', '1.5 2'])
def test_bad_encoder_replies_are_protocol_errors(reply):
    with pytest.raises(ProtocolError):
        parse_encoders(reply)
    assert parse_encoders('-12 345') == (-12, 345)


# --- firmware simulator -----------------------------------------------------------------
def test_firmware_integrates_ticks_per_frame_and_auto_stops():
    clock = FakeClock()
    fw = BridgeFirmware(pid_rate=30, auto_stop_s=2.0, clock=clock)
    assert fw.feed(b'b\r') == b'57600\r\n'
    assert fw.feed(b'm 10 -20\r') == b'OK\r\n'
    clock.t += 1.0
    assert fw.feed(b'e\r') == b'300 -600\r\n'
    clock.t += 5.0  # no command for 5 s: the motors stopped 2 s after the last one
    assert fw.feed(b'e\r') == b'600 -1200\r\n'
    assert fw.auto_stops == 1
    assert fw.feed(b'r\r') == b'OK\r\n'
    assert fw.feed(b'e\r') == b'0 0\r\n'


def test_firmware_answers_every_command_line_even_split_or_bad():
    fw = BridgeFirmware(clock=FakeClock())
    assert fw.feed(b'u 1:2:') == b''  # not complete yet
    assert fw.feed(b'3:4\r') == b'OK\r\n'
    assert fw.pid == PidGains(1, 2, 3, 4)
    for bad in (b'x\r', b'm 1\r', b'm a b\r', b'u 1:2\r', b'\r'):
        assert fw.feed(bad) == b'Invalid Command\r\n'
    assert fw.feed(b'e\r\ne\r') == b'0 0\r\n0 0\r\n'


def test_firmware_garbles_every_nth_encoder_reply_when_asked():
    fw = BridgeFirmware(garble_every=3, clock=FakeClock())
    replies = [fw.feed(b'e\r') for _ in range(6)]
    assert replies == [b'0 0\r\n', b'0 0\r\n', b'garbage!\r\n'] * 2
    assert fw.reads == 6


# --- the link over a real pseudo-terminal -----------------------------------------------
@pytest.fixture
def board():
    with PtyFirmware() as b:
        yield b


def test_link_round_trips_through_a_pty(board):
    # generous: what is tested is the round trip, not its speed (on a loaded host a reply
    # read byte by byte took over 0.5 s: h33)
    with serial.Serial(board.device, 57600, timeout=LOADED_HOST_TIMEOUT_S) as port:
        link = ArduinoLink(port)
        assert link.baud_rate() == 57600
        link.set_pid(PidGains(5, 6, 7, 8))
        link.set_motor_speeds(3, 4)
        assert board.state().pid == PidGains(5, 6, 7, 8)
        assert board.state().targets == [3, 4]
        with pytest.raises(ProtocolError, match='Invalid Command'):
            link.request('z')


def test_the_board_answers_while_this_process_holds_the_interpreter(board):
    """The simulated board is a process of its own, as a real board is a device of its own:
    a test process busy in one thread does not keep it from answering (a thread of this
    process, it missed a 0.5 s and three 1 s replies in a row on a loaded host: h31)."""
    fd = os.open(board.device, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    interval = sys.getswitchinterval()
    try:
        os.write(fd, b'b\r')
        sys.setswitchinterval(60.0)  # no other thread of this process runs until it is reset
        # generous: the board's process needs one turn of a CPU within a second
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            pass
        answered = select.select([fd], [], [], 0)[0]
        sys.setswitchinterval(interval)
        assert answered
        assert os.read(fd, 100) == b'57600\r\n'
    finally:
        sys.setswitchinterval(interval)
        os.close(fd)


@contextmanager
def answering(master: int, asked: bytes, reply: bytes) -> Iterator[None]:
    """The device (the pty's other end) answers `asked` with `reply`, once, from a thread."""

    def answer() -> None:
        assert os.read(master, 100) == asked
        os.write(master, reply)

    responder = threading.Thread(target=answer)
    responder.start()
    try:
        yield
    finally:
        responder.join()


def test_link_times_out_on_a_silent_device_and_recovers_from_late_replies():
    master, slave = os.openpty()
    try:
        with serial.Serial(os.ttyname(slave), 57600, timeout=0.05) as port:
            link = ArduinoLink(port)
            with pytest.raises(ProtocolError, match='no reply'):
                link.read_encoders()
            assert os.read(master, 100) == b'e\r'
            os.write(master, b'1 2\r\n')  # late: it must not answer the next request

            with answering(master, b'e\r', b'7 8\r\n'):
                port.timeout = 10.0
                assert link.read_encoders() == (7, 8)
            port.timeout = 0.05
            os.write(master, b'\xff\xfe\r\n')
            with pytest.raises(ProtocolError):
                link.read_encoders()
    finally:
        os.close(master)
        os.close(slave)


def test_a_late_reply_that_comes_after_the_flush_is_not_taken_for_the_next_answer():
    """q15 (a loaded host): 'm 0 0' timed out, its OK came only once the next 'e' was out,
    and was read as the encoder counts; two such rounds gave the board up."""
    master, slave = os.openpty()
    try:
        with serial.Serial(os.ttyname(slave), 57600, timeout=0.05) as port:
            link = ArduinoLink(port)
            with pytest.raises(ProtocolError, match='no reply'):
                link.set_motor_speeds(0, 0)
            assert os.read(master, 100) == b'm 0 0\r'

            with answering(master, b'e\r', b'OK\r\n7 8\r\n'):  # the late OK, then the counts
                port.timeout = 10.0
                assert link.read_encoders() == (7, 8)
            # with nothing gone wrong before, a wrong reply is an error, not skipped
            os.write(master, b'OK\r\n')
            with pytest.raises(ProtocolError, match='expected two encoder counts'):
                link.read_encoders()
    finally:
        os.close(master)
        os.close(slave)


# --- the component through its lifecycle ------------------------------------------------
def arduino_component(device: str, **params) -> ManagedComponent:
    defaults = {
        'device': device,
        'enc_counts_per_rev': COUNTS_PER_REV,
        'loop_rate': LOOP_RATE,
        'startup_delay_s': 0,
        # not upstream's second: see LOADED_HOST_TIMEOUT_S (the silent device's test sets its own)
        'timeout_ms': round(LOADED_HOST_TIMEOUT_S * 1000),
        'io_rate': 200,
        'max_consecutive_errors': 3,
        'left_wheel_name': 'left_wheel_joint',
        'right_wheel_name': 'right_wheel_joint',
    }
    urdf = swap_hardware(
        (CONFIG / 'diffbot.urdf').read_text(),
        'py_controllers/ArduinoDiffDriveSystem',
        {**defaults, **params},
    )
    (info,) = parse_control_resources_from_urdf(urdf)
    component = ArduinoDiffDriveSystem()
    assert component.on_init(info) == 0
    return ManagedComponent(component, info, None)


def wait_for(predicate, timeout_s: float = 5.0) -> bool:
    done = threading.Event()
    for _ in range(int(timeout_s / 0.005)):
        if predicate():
            return True
        done.wait(0.005)
    return predicate()


def fed(hw, predicate):
    """`predicate` after a write() of the component's commands, which keeps the board's
    motors going as a control loop's writes do."""
    return lambda: hw.write(None, None) == ReturnType.OK and predicate()


DRIVE_WAIT_S = 30.0
"""How long a wait for the wheels to move may take: two threads of this process (the test and
the component's I/O) and the board's process hand each round over between them, and on a
host with two busy loops beside the suite a wait of 5 s once ran out (h25)."""


def drive_report(hw, board) -> str:
    """What the I/O thread and the board were doing, for a failed wait."""
    worker, fw = hw._worker, board.state()
    return (
        f'I/O rounds {worker.rounds}, failed {worker.failed}, errors in a row '
        f'{worker.consecutive_errors}, its targets {worker.targets}; board targets {fw.targets}, '
        f'auto stops {fw.auto_stops}, counts {fw.encoder_counts()}, commands {fw.commands}'
    )


def test_component_drives_the_wheels_and_reads_them_back(board):
    managed = arduino_component(board.device, pid_p=30, pid_d=10, pid_i=1, pid_o=40)
    hw = managed.component
    assert managed.set_state(S.ACTIVE)
    assert board.state().pid == PidGains(30, 10, 1, 40)
    assert board.state().commands['r'] == 1
    hw.set_command('left_wheel_joint/velocity', 2 * math.pi)  # 1 rev/s: 33 ticks per frame
    hw.set_command('right_wheel_joint/velocity', -math.pi)
    assert hw.write(None, None) == ReturnType.OK
    assert wait_for(lambda: board.state().targets == [33, -17])
    # from here each wait writes the commands again, as the loop does every cycle: the
    # firmware stops the motors 2 s after the last motor command, and on a busy host the
    # steps below took longer than that (h21, two busy loops: the encoder stood still)
    assert wait_for(fed(hw, lambda: board.state().encoder_counts()[0] > 200), DRIVE_WAIT_S), (
        drive_report(hw, board)
    )
    assert wait_for(
        fed(
            hw,
            lambda: (
                hw.read(None, None) == ReturnType.OK
                and hw.get_state('left_wheel_joint/position') > 200 * 2 * math.pi / COUNTS_PER_REV
            ),
        ),
        DRIVE_WAIT_S,
    ), drive_report(hw, board)
    # a velocity from host timestamps: the median of a few reads, so that one round delayed
    # by a busy host does not decide it
    readings = []
    for _ in range(15):
        counts = board.state().encoder_counts()[0]
        assert wait_for(
            fed(hw, lambda c=counts: board.state().encoder_counts()[0] >= c + 33), DRIVE_WAIT_S
        ), drive_report(hw, board)
        assert hw.read(None, None) == ReturnType.OK
        readings.append(hw.get_state('left_wheel_joint/velocity'))
    left_velocity = statistics.median(readings)
    assert left_velocity == pytest.approx(33 * LOOP_RATE * 2 * math.pi / COUNTS_PER_REV, rel=0.3)
    assert hw.get_state('right_wheel_joint/position') < 0.0

    assert managed.set_state(S.INACTIVE)
    assert board.state().targets == [0, 0]  # `m 0 0` on deactivate
    motor_commands, reads = board.state().commands['m'], board.state().commands['e']
    assert wait_for(lambda: board.state().commands['e'] > reads + 3)
    assert board.state().commands['m'] == motor_commands  # inactive: encoders only
    assert managed.set_state(S.UNCONFIGURED)


def test_unplugged_board_makes_read_fail_and_activation_reconnects(tmp_path):
    link_path = tmp_path / 'ttyARDUINO'
    first = PtyFirmware(link=link_path)
    managed = arduino_component(str(link_path))
    hw = managed.component
    assert managed.set_state(S.ACTIVE)
    hw.set_command('left_wheel_joint/velocity', 3.0)
    hw.set_command('right_wheel_joint/velocity', 3.0)
    hw.write(None, None)
    assert wait_for(lambda: first.state().counts[0] > 50)
    assert hw.read(None, None) == ReturnType.OK
    before = hw.get_state('left_wheel_joint/position')

    first.unplug()
    assert wait_for(lambda: hw.read(None, None) == ReturnType.ERROR)
    assert managed.handle_error() == S.UNCONFIGURED

    with PtyFirmware(link=link_path) as second:  # plugged in again (a new pty behind the link)
        assert managed.set_state(S.ACTIVE)
        assert second.state().commands['b'] >= 1
        assert hw.read(None, None) == ReturnType.OK
        # positions continue where they were, not from the new board's zero
        assert hw.get_state('left_wheel_joint/position') >= before
        assert managed.set_state(S.FINALIZED)


def test_configure_fails_cleanly_without_firmware(tmp_path):
    managed = arduino_component(str(tmp_path / 'missing'))
    assert not managed.set_state(S.INACTIVE)
    assert managed.state == S.UNCONFIGURED
    master, slave = os.openpty()  # a device that never answers
    try:
        silent = arduino_component(os.ttyname(slave), timeout_ms=50)
        assert not silent.set_state(S.INACTIVE)
        assert silent.state == S.UNCONFIGURED
    finally:
        os.close(master)
        os.close(slave)


@pytest.mark.parametrize(
    ('params', 'message'),
    [
        ({'enc_counts_per_rev': 0}, 'enc_counts_per_rev'),
        ({'loop_rate': 'fast'}, 'loop_rate'),
        ({'left_wheel_name': 'nope'}, 'left/right_wheel_name'),
    ],
)
def test_bad_parameters_fail_on_init(params, message, caplog):
    urdf = swap_hardware(
        (CONFIG / 'diffbot.urdf').read_text(), 'py_controllers/ArduinoDiffDriveSystem', params
    )
    (info,) = parse_control_resources_from_urdf(urdf)
    assert ArduinoDiffDriveSystem().on_init(info) != 0
    assert message in caplog.text


def test_isolated_bad_replies_are_counted_but_do_not_fail_the_component():
    with PtyFirmware(garble_every=2) as board:
        managed = arduino_component(board.device, max_consecutive_errors=2)
        hw = managed.component
        assert managed.set_state(S.ACTIVE)
        worker = hw._worker
        assert wait_for(lambda: board.state().reads > 20)
        assert hw.read(None, None) == ReturnType.OK  # one bad round at a time never adds up
        assert not worker.failed
        assert managed.set_state(S.FINALIZED)


def test_consecutive_bad_replies_fail_the_component():
    with PtyFirmware(garble_every=1) as board:
        managed = arduino_component(board.device, max_consecutive_errors=3)
        # every encoder reply is garbage: configuring cannot even read the encoders once
        assert not managed.set_state(S.INACTIVE)
        assert managed.state == S.UNCONFIGURED
