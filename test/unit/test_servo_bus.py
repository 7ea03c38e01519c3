"""DynamixelSystem and FeetechSystem through their lifecycle, on the simulated bus (a real
pty answering the protocol bytes, through the vendors' SDKs)."""

from __future__ import annotations

import math
import re
import threading
from pathlib import Path

import pytest

from py_controllers.hardware.dynamixel_system import DynamixelSystem
from py_controllers.hardware.feetech_system import FeetechSystem
from py_controllers.hardware.servo_bus import packets
from py_controllers.hardware.servo_bus.bus_sim import PtyServoBus
from py_controllers.hardware.servo_bus.bus_worker import wait_rounds
from py_controllers.hardware.servo_bus.sdk_bus import ATTEMPTS, SdkBus
from py_controllers.hardware.servo_bus.sim_arms import make_servos
from py_controllers.hardware_interface.component_lifecycle import ManagedComponent
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.types import LifecycleStateId, ReturnType

CONFIG = Path(__file__).resolve().parents[2] / 'config'

S = LifecycleStateId
ARMS = {
    'omx': (CONFIG / 'omx_robot.urdf', DynamixelSystem),
    'so101': (CONFIG / 'so101_robot.urdf', FeetechSystem),
}


def arm_urdf(arm: str, port: str, **params: object) -> str:
    """The arm's URDF on `port`, with extra `<hardware>` params."""
    text = ARMS[arm][0].read_text()
    text = re.sub(r'(<param name="usb_port">)[^<]*', lambda m: m.group(1) + port, text)
    extra = ''.join(f'<param name="{k}">{v}</param>' for k, v in params.items())
    return text.replace('</hardware>', extra + '</hardware>', 1)


def component(arm: str, port: str, **params: object) -> ManagedComponent:
    (info,) = parse_control_resources_from_urdf(arm_urdf(arm, port, **params))
    hw = ARMS[arm][1]()
    assert hw.on_init(info) == 0
    return ManagedComponent(hw, info, None)


WAIT_S = 30.0
"""How long a test waits for the bus or the servos: they run in wall-clock time on threads
that share the CPU with the rest of the suite, so the bound is generous; a passing test
returns as soon as what it waits for holds."""


def wait_for(predicate, timeout_s: float = WAIT_S) -> bool:
    """Poll `predicate` until it holds (at most `timeout_s`)."""
    done = threading.Event()
    for _ in range(int(timeout_s / 0.005)):
        if predicate():
            return True
        done.wait(0.005)
    return predicate()


@pytest.fixture(params=list(ARMS))
def arm(request):
    with PtyServoBus(make_servos(request.param)) as bus:
        yield request.param, bus


def test_configure_reads_the_arm_and_activate_holds_it_with_the_torque_on(arm):
    name, bus = arm
    managed = component(name, bus.device)
    hw = managed.component
    first = sorted(bus.servos)[0]
    bus.servo(first).angle = 0.3  # the base was left off-centre (no gravity on it)
    assert managed.set_state(S.INACTIVE)
    assert not any(s.torque_on for s in bus.servos.values())  # configure does not touch torque
    assert hw.read(None, None) == ReturnType.OK
    joint = hw.joints[0].name
    assert hw.get_state(f'{joint}/position') == pytest.approx(0.3, abs=2e-3)
    assert managed.set_state(S.ACTIVE)
    held = bus.servo(first)
    assert held.torque_on and held.mode == held.model.modes['position']
    assert held.get(held.model.goal_position) == round(2048 + 0.3 * 4096 / (2 * math.pi))
    assert managed.set_state(S.INACTIVE)
    assert held.torque_on  # deactivate holds: an arm must not drop
    assert managed.set_state(S.FINALIZED)
    assert held.torque_on  # torque_off_on_shutdown defaults to false


def test_position_commands_move_the_servo_and_ranges_are_never_wrapped(arm):
    name, bus = arm
    managed = component(name, bus.device)
    hw = managed.component
    assert managed.set_state(S.ACTIVE)
    joint = hw.joints[0].name
    assert hw.perform_command_mode_switch([f'{joint}/position'], []) == ReturnType.OK
    hw.set_command(f'{joint}/position', 0.5)
    assert hw.write(None, None) == ReturnType.OK
    assert wait_for(
        lambda: (
            hw.read(None, None) == ReturnType.OK
            and abs(hw.get_state(f'{joint}/position') - 0.5) < 0.01
        )
    )
    servo = bus.servo(hw.joints[0].id)
    hw.set_command(f'{joint}/position', 7.0)  # beyond one turn: held at the end, not wrapped
    assert hw.write(None, None) == ReturnType.OK
    # two whole rounds after write(): the second began after it, so it sent this goal
    worker = hw._worker
    assert wait_rounds(worker, 2, WAIT_S), (worker.rounds, worker.failed_rounds, worker.failed)
    assert servo.get(servo.model.goal_position) == 4095
    assert managed.set_state(S.FINALIZED)


def test_a_mode_switch_is_torque_off_mode_goal_torque_on(arm):
    name, bus = arm
    managed = component(name, bus.device)
    hw = managed.component
    assert managed.set_state(S.ACTIVE)
    joint, servo = hw.joints[0].name, bus.servo(hw.joints[0].id)
    m = servo.model
    mark = len(servo.writes)
    assert hw.perform_command_mode_switch([f'{joint}/velocity'], []) == ReturnType.OK
    assert wait_rounds(hw._worker, 2, 5.0)
    sequence = servo.writes[mark:]
    assert [a for a, _ in sequence[:4]] == [
        m.torque_enable.address,
        m.operating_mode.address,
        m.goal_velocity.address,
        m.torque_enable.address,
    ]
    assert [v for _, v in sequence[:4]] == [0, m.modes['velocity'], 0, 1]
    hw.set_command(f'{joint}/velocity', 0.5)
    hw.write(None, None)
    assert wait_for(
        lambda: (
            hw.read(None, None) == ReturnType.OK
            and abs(hw.get_state(f'{joint}/velocity') - 0.5) < 0.05
        )
    )
    # the claim ends: position mode, aimed at the measured position
    assert hw.perform_command_mode_switch([], [f'{joint}/velocity']) == ReturnType.OK
    assert hw._worker.flush(5.0)
    assert servo.mode == m.modes['position'] and servo.torque_on
    assert wait_for(lambda: abs(servo.velocity) < 1e-3)
    goal = servo.get(m.goal_position)
    assert abs(goal - round(2048 + servo.angle * 4096 / (2 * math.pi))) <= 2
    assert managed.set_state(S.FINALIZED)


@pytest.mark.parametrize('step_s', [None, 0.01], ids=['free-running', 'lock-step'])
def test_a_mode_switch_whose_round_fails_half_way_is_sent_again_whole(step_s):
    """The torque-off write's answer is lost: the round fails after the servo let go. The
    next round sends the whole switch again (torque off, mode, goal, torque on) instead of
    leaving the joint limp with the request dropped."""
    with PtyServoBus(make_servos('omx'), step_s=step_s) as bus:
        managed = component('omx', bus.device)
        hw = managed.component
        assert managed.set_state(S.ACTIVE)
        joint, servo = hw.joints[0].name, bus.servo(hw.joints[0].id)
        worker, m = hw._worker, servo.model
        assert worker.bus.fast  # its sync reads lose nothing: the losses hit the write
        bus.lose(servo.id, ATTEMPTS)  # every try of the torque-off write
        assert hw.perform_command_mode_switch([f'{joint}/velocity'], []) == ReturnType.OK
        assert worker.flush(5.0)
        assert worker.failed_rounds == 1 and worker.failed is None
        assert servo.mode == m.modes['velocity'] and servo.torque_on
        assert managed.set_state(S.FINALIZED)


def test_effort_is_current_mode_on_a_dynamixel():
    with PtyServoBus(make_servos('omx')) as bus:
        managed = component('omx', bus.device)
        hw = managed.component
        assert managed.set_state(S.ACTIVE)
        # the shoulder (0.6 N m of arm on it): 0.24 N m lifts it part way and holds it there,
        # never fast enough for the motor to fall short of the goal current
        servo = bus.servo(12)
        assert hw.perform_command_mode_switch(['joint2/effort'], []) == ReturnType.OK
        hw.set_command('joint2/effort', 0.1345)  # A: 50 units of 2.69 mA
        hw.write(None, None)
        assert wait_for(lambda: servo.mode == 0 and servo.get(servo.model.goal_current) == 50)
        assert wait_for(
            lambda: (
                hw.read(None, None) == ReturnType.OK
                and hw.get_state('joint2/position') > 0.1
                and hw.get_state('joint2/effort') == pytest.approx(0.1345, abs=0.003)
            )
        )
        assert managed.set_state(S.FINALIZED)


@pytest.mark.parametrize(
    ('arm_name', 'bits', 'named'),
    [('omx', 0x20, 'overload (bit 5)'), ('so101', 0x04, 'overheating (bit 2)')],
)
def test_a_hardware_error_fails_read_naming_the_servo_and_bits(arm_name, bits, named, caplog):
    with PtyServoBus(make_servos(arm_name)) as bus:
        managed = component(arm_name, bus.device)
        hw = managed.component
        assert managed.set_state(S.ACTIVE)
        servo_id = hw.joints[2].id
        bus.servo(servo_id).inject_error(bits)
        assert wait_for(lambda: hw.read(None, None) == ReturnType.ERROR)
        assert f'servo {servo_id}' in hw._worker.failed and named in hw._worker.failed
        assert f"joint '{hw.joints[2].name}'" in hw._worker.failed
        assert managed.handle_error() == S.UNCONFIGURED
        if (
            arm_name == 'omx'
        ):  # a Dynamixel is rebooted at configure: the error clears unless it persists
            assert not managed.set_state(S.ACTIVE)
            bus.servo(servo_id).clear_error()
        else:
            bus.servo(servo_id).clear_error()
        assert managed.set_state(S.ACTIVE)
        assert hw.read(None, None) == ReturnType.OK
        assert managed.set_state(S.FINALIZED)


def test_a_silent_servo_fails_read_and_a_new_cable_reconnects(tmp_path):
    link = tmp_path / 'ttySO101'
    first = PtyServoBus(make_servos('so101'), link=link)
    managed = component('so101', str(link))
    hw = managed.component
    assert managed.set_state(S.ACTIVE)
    first.silence(4)
    assert wait_for(lambda: hw.read(None, None) == ReturnType.ERROR)
    assert 'servo 4 did not answer' in hw._worker.failed
    assert managed.handle_error() == S.UNCONFIGURED
    first.unplug()  # the cable out and in again: a new pty behind the same link
    with PtyServoBus(make_servos('so101'), link=link):
        assert managed.set_state(S.ACTIVE)
        assert hw.read(None, None) == ReturnType.OK
        assert managed.set_state(S.FINALIZED)


def test_a_simulator_answering_later_than_the_host_timeout_is_still_heard(arm):
    """The host's timeout runs on the simulator's time: a starved simulator thread (here 80 ms
    late, the SDKs give up after about 34 ms) is not a silent servo; a silent one still is."""
    name, bus = arm
    managed = component(name, bus.device)
    hw = managed.component
    assert managed.set_state(S.ACTIVE)
    bus.answer_delay_s = 0.08
    assert wait_rounds(hw._worker, 3, WAIT_S)
    assert hw._worker.failed_rounds == 0 and hw.read(None, None) == ReturnType.OK
    silent = hw.joints[3].id
    bus.silence(silent)
    assert wait_for(lambda: hw.read(None, None) == ReturnType.ERROR)
    assert f'servo {silent} did not answer' in hw._worker.failed


def test_on_stepped_time_only_sync_reads_move_the_servos_and_the_component_reports_it():
    with PtyServoBus(make_servos('omx'), step_s=0.01) as sim:
        start = sim.time_ns
        bus = SdkBus('dynamixel', sim.device, 1_000_000)
        bus.open()
        servo, m = sim.servo(11), sim.servo(11).model
        servos = [(i, s.model) for i, s in sim.servos.items()]
        bus.write(11, m.torque_enable, 1)
        bus.write(11, m.goal_position, 2048 + 326)  # 0.5 rad
        for _ in range(100):
            bus.sync_read(servos)
        assert bus.stepped_time_ns() == start + 100 * 10_000_000
        assert servo.angle == pytest.approx(0.5, abs=0.01)
        for _ in range(5):  # a register read takes no time
            bus.read(11, m.present_position)
        assert sim.time_ns == start + 100 * 10_000_000
        bus.close()

        managed = component('omx', sim.device)
        hw = managed.component
        assert hw.simulation_time_ns() == sim.time_ns  # from on_init: the manager's clock
        assert managed.set_state(S.ACTIVE)
        assert hw.read(None, None) == ReturnType.OK
        now = hw.simulation_time_ns()  # the time of the sample read() published
        assert now > start + 100 * 10_000_000 and (now - start) % 10_000_000 == 0
        hw.lockstep_wait_s = 30.0  # all the time the bus needs: the logic is what is checked
        for _ in range(5):  # lock-step: each read() is one round, one step, nothing between
            assert hw.read(None, None) == ReturnType.OK
        assert hw.simulation_time_ns() == sim.time_ns == now + 5 * 10_000_000
        assert managed.set_state(S.FINALIZED)
    with PtyServoBus(make_servos('omx')) as sim:  # wall-clock time: no simulation clock
        assert component('omx', sim.device).component.simulation_time_ns() is None


@pytest.mark.parametrize(('firmware', 'fast'), [(46, True), (44, False)])
def test_fast_sync_read_only_when_every_servo_has_it(firmware, fast):
    with PtyServoBus(make_servos('omx')) as bus:
        servo = bus.servo(13)
        servo.set(servo.model.firmware, firmware)  # one servo's firmware decides for the bus
        managed = component('omx', bus.device)
        assert managed.set_state(S.ACTIVE)
        assert wait_rounds(managed.component._worker, 2, 5.0)
        assert (bus.instructions.get(packets.FAST_SYNC_READ, 0) > 0) == fast
        assert (bus.instructions.get(packets.SYNC_READ, 0) > 0) == (not fast)
        assert managed.set_state(S.FINALIZED)


def test_lost_packets_are_retried_and_garbage_is_named():
    with PtyServoBus(make_servos('omx')) as bus:
        managed = component('omx', bus.device, max_consecutive_errors=3)
        hw = managed.component
        assert managed.set_state(S.ACTIVE)
        worker = hw._worker
        # a fast sync read and its plain fallback each lose one: two rounds fail, the third reads
        bus.lose(13, 4)
        assert wait_for(lambda: worker.failed_rounds == 2 and worker.consecutive_errors == 0)
        assert wait_rounds(worker, 2, 5.0)
        assert hw.read(None, None) == ReturnType.OK and worker.failed_rounds == 2
        bus.lose(13, 6)  # three rounds in a row: the bus fails, naming the servo
        assert wait_for(lambda: hw.read(None, None) == ReturnType.ERROR)
        assert worker.failed.startswith('3 bus rounds failed in a row: servo 13 did not answer')
        assert managed.handle_error() == S.UNCONFIGURED
        bus.garble(13)
        assert not managed.set_state(S.ACTIVE)  # configure does not take a garbling servo
        bus.garble(13, False)
        assert managed.set_state(S.ACTIVE)
        bus.garble(13)
        assert wait_for(lambda: hw.read(None, None) == ReturnType.ERROR)
        assert 'servo 13' in hw._worker.failed
        assert managed.handle_error() == S.UNCONFIGURED


@pytest.mark.parametrize(
    ('params', 'message'),
    [
        ({'torque_limit': 3}, "'torque_limit' is not supported"),
        ({'baud_rate': 'fast'}, 'baud_rate'),
    ],
)
def test_parameters_it_does_not_implement_are_refused_with_one_line(params, message, caplog):
    urdf = arm_urdf('so101', '/dev/null', **params)
    (info,) = parse_control_resources_from_urdf(urdf)
    assert FeetechSystem().on_init(info) != 0
    assert message in caplog.text


def test_upstream_dynamixel_hardware_urdf_loads_and_refuses_what_it_lacks(caplog):
    urdf = arm_urdf('omx', '/dev/null').replace(
        'py_controllers/DynamixelSystem', 'dynamixel_hardware/DynamixelHardware'
    )
    (info,) = parse_control_resources_from_urdf(
        urdf.replace(
            '<param name="model">XM430-W350</param>', '<param name="Profile_Velocity">50</param>', 1
        )
    )
    assert DynamixelSystem().on_init(info) == 0
    (info,) = parse_control_resources_from_urdf(
        urdf.replace(
            '<param name="id">11</param>',
            '<param name="id">11</param><param name="Goal_PWM">5</param>',
        )
    )
    assert DynamixelSystem().on_init(info) != 0
    assert "'Goal_PWM' is not supported" in caplog.text


def test_use_dummy_mirrors_commands_without_a_port():
    managed = component('omx', '', use_dummy='true')
    hw = managed.component
    assert managed.set_state(S.ACTIVE)
    assert hw.perform_command_mode_switch(['joint2/position'], []) == ReturnType.OK
    hw.set_command('joint2/position', 0.4)
    assert hw.read(None, None) == ReturnType.OK
    assert hw.get_state('joint2/position') == 0.4
